package llm

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// maxHintWait bounds a server's retry hint: a day-long Retry-After is a quota in disguise,
// and with no deadline on the context we would otherwise hang on it.
const maxHintWait = 10 * time.Minute

// retryHint returns how long the server asked us to wait, or 0 if it did not say.
// Order: retry-after-ms (Azure), Retry-After (seconds or HTTP date), the error message's
// "Please try again in 26.604s" (OpenAI, Groq: the wait for this request, no header
// says it), then, for a rate limit only, OpenAI's x-ratelimit-reset-requests/-tokens
// (Go-style durations such as "1s", "6m0s", "20ms"), preferring the limit whose
// remaining count is 0, else the longer of the two. OpenAI sends the reset headers on
// every answer, so on a 5xx they say nothing about when the fault will pass.
func retryHint(h http.Header, msg string, rateLimited bool, now time.Time) time.Duration {
	if h == nil {
		h = http.Header{}
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return capHint(time.Duration(ms * float64(time.Millisecond)))
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
			return capHint(time.Duration(s * float64(time.Second)))
		}
		if t, err := http.ParseTime(v); err == nil && t.After(now) {
			return capHint(t.Sub(now))
		}
	}
	if d := messageHint(msg); d > 0 {
		return capHint(d)
	}
	if !rateLimited {
		return 0
	}
	var best time.Duration
	exhausted := false
	for _, kind := range []string{"requests", "tokens"} {
		d := parseReset(h.Get("X-Ratelimit-Reset-" + kind))
		if d <= 0 {
			continue
		}
		zero := strings.TrimSpace(h.Get("X-Ratelimit-Remaining-"+kind)) == "0"
		switch {
		case zero && !exhausted:
			best, exhausted = d, true
		case zero == exhausted && d > best:
			best = d
		}
	}
	return capHint(best)
}

// parseReset reads "1s", "6m0s", "20ms" or a bare number of seconds.
func parseReset(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(s * float64(time.Second))
	}
	return 0
}

// tryAgainIn finds the wait an error message names: "Please try again in 26.604s",
// "try again in 1m2s", "Please retry in 20ms", "try again in 7 seconds".
var tryAgainIn = regexp.MustCompile(`(?i)(?:try again|retry) in ~?\s*((?:\d+(?:\.\d+)?(?:ms|h|m|s))+|\d+(?:\.\d+)?\s*(?:seconds?|secs?)\b)`)

func messageHint(msg string) time.Duration {
	m := tryAgainIn.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	if d, err := time.ParseDuration(m[1]); err == nil {
		return d
	}
	// "7 seconds", "1.5 secs"
	num := strings.TrimRight(m[1], "abcdefghijklmnopqrstuvwxyz ")
	if s, err := strconv.ParseFloat(num, 64); err == nil {
		return time.Duration(s * float64(time.Second))
	}
	return 0
}

func capHint(d time.Duration) time.Duration {
	return min(max(d, 0), maxHintWait)
}
