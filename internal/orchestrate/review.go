package orchestrate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// reviewVerdict is a critic's answer: approve, or the corrections it asks for.
type reviewVerdict struct {
	LGTM        bool
	Corrections []string
}

// Caps on what one critic's answer can put in front of the fixer.
const (
	maxCorrections     = 20
	maxCorrectionBytes = 2000
)

// parseReview reads a critic's answer. Models do not always return the JSON asked for:
// the object may sit in a code fence or after prose, "lgtm" may be a string, and
// "corrections" a string, a list of objects or "None". Anything that cannot be read as
// approval is not approval, and an unreadable answer is handed on as it is.
func parseReview(text string) reviewVerdict {
	obj, ok := jsonObject(text)
	if !ok {
		return reviewVerdict{Corrections: []string{"The review was not the JSON object asked for; it said: " + clipText(strings.TrimSpace(text), 500)}}
	}
	var v reviewVerdict
	for key, val := range obj {
		switch strings.ToLower(strings.TrimSpace(key)) {
		case "lgtm", "approved", "approve":
			v.LGTM = truthy(val)
		case "corrections", "correction", "issues", "errors":
			v.Corrections = append(v.Corrections, corrections(val)...)
		}
	}
	if v.LGTM {
		return reviewVerdict{LGTM: true}
	}
	if len(v.Corrections) == 0 {
		v.Corrections = []string{"The review does not approve the code but names no correction."}
	}
	if len(v.Corrections) > maxCorrections {
		v.Corrections = v.Corrections[:maxCorrections]
	}
	return v
}

// jsonObject finds the JSON object in a reply: the whole text, a fenced block, or the
// span from the first "{" to the last "}".
func jsonObject(text string) (map[string]any, bool) {
	candidates := []string{strings.TrimSpace(text)}
	if i, j := strings.Index(text, "{"), strings.LastIndex(text, "}"); i >= 0 && j > i {
		candidates = append(candidates, text[i:j+1])
	}
	for _, c := range candidates {
		dec := json.NewDecoder(bytes.NewReader([]byte(c)))
		dec.UseNumber()
		var obj map[string]any
		if dec.Decode(&obj) == nil && obj != nil {
			return obj, true
		}
	}
	return nil, false
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "yes", "lgtm", "approved":
			return true
		}
	case json.Number:
		return x.String() == "1"
	}
	return false
}

// corrections flattens whatever shape the corrections came in into sentences.
func corrections(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		s := strings.TrimSpace(x)
		switch strings.ToLower(s) {
		case "", "none", "null", "n/a", "[]":
			return nil
		}
		return []string{clipText(s, maxCorrectionBytes)}
	case []any:
		var out []string
		for _, item := range x {
			out = append(out, corrections(item)...)
		}
		return out
	case map[string]any:
		// An object per correction: its descriptive fields, in a stable order.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			for _, s := range corrections(x[k]) {
				parts = append(parts, k+": "+s)
			}
		}
		if len(parts) == 0 {
			return nil
		}
		return []string{clipText(strings.Join(parts, "; "), maxCorrectionBytes)}
	default:
		return []string{clipText(fmt.Sprint(x), maxCorrectionBytes)}
	}
}

func clipText(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
