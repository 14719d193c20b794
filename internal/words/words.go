// Package words says counts, lists and joined sentences the one way every message of
// Dixit says them: "1 test", "2 tests", "a, b and c", "… (fail). It turns …".
package words

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Count is n with the noun that fits it: Count(1, "test", "tests") is "1 test",
// Count(0, …) "0 tests". The plural is given, not guessed: "1 entry", "2 entries".
func Count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, Noun(n, one, many))
}

// Noun is the noun alone that fits n, for a phrase that words the number itself.
func Noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// List joins phrases as a sentence does: "a", "a and b", "a, b and c"; "" for none.
func List(items ...string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// Sentences joins sentences into one text: each ends with a full stop (one is added where
// it has none) and starts with a capital, so a clause joined to a finished sentence
// never reads "(fail).; it turns". Empty parts are left out.
func Sentences(parts ...string) string {
	var out []string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		r, size := utf8.DecodeRuneInString(p)
		p = string(unicode.ToUpper(r)) + p[size:]
		if !strings.HasSuffix(p, ".") && !strings.HasSuffix(p, "!") && !strings.HasSuffix(p, "?") {
			p += "."
		}
		out = append(out, p)
	}
	return strings.Join(out, " ")
}

// Clip cuts s to at most max characters at a word's end, marking the cut with "…", for
// lines a person reads at a glance; the whole text goes where there is room (a report).
func Clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max-1]
	if i := strings.LastIndexByte(string(r), ' '); i > len(string(r))/2 {
		return strings.TrimRight(string(r)[:i], " ,;:") + "…"
	}
	return string(r) + "…"
}
