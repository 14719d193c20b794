package orchestrate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The shapes critics' answers really take.
func TestParseReviewToleratesTheShapesModelsReturn(t *testing.T) {
	cases := []struct {
		name, text string
		lgtm       bool
		want       []string
	}{
		{"as asked", `{"lgtm": true}`, true, nil},
		{"approval with a null", `{"lgtm": true, "corrections": null}`, true, nil},
		{"string boolean", `{"lgtm": "False", "corrections": ["a", "b"]}`, false, []string{"a", "b"}},
		{"one string", `{"lgtm": false, "corrections": "handle empty input"}`, false, []string{"handle empty input"}},
		{"objects", `{"lgtm": false, "corrections": [{"line": 4, "fix": "use <"}]}`, false, []string{"fix: use <; line: 4"}},
		{"fenced after prose", "Sure.\n```json\n{\"LGTM\": false, \"corrections\": [\"x\"]}\n```\nHope it helps", false, []string{"x"}},
		{"None as a string", `{"lgtm": false, "corrections": "None"}`, false, []string{"The review does not approve the code but names no correction."}},
		{"nested lists", `{"lgtm": false, "corrections": [["a"], ["b", {"c": "d"}]]}`, false, []string{"a", "b", "c: d"}},
		{"not JSON", "Looks fine to me!", false, []string{"The review was not the JSON object asked for; it said: Looks fine to me!"}},
		{"approval by number", `{"lgtm": 1}`, true, nil},
		{"a list, not an object", `[true]`, false, []string{"The review was not the JSON object asked for; it said: [true]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := parseReview(tc.text)
			assert.Equal(t, tc.lgtm, v.LGTM)
			assert.Equal(t, tc.want, v.Corrections)
		})
	}
	many := `{"lgtm": false, "corrections": [` + strings.Repeat(`"`+strings.Repeat("x", 5000)+`",`, 40) + `"y"]}`
	v := parseReview(many)
	assert.Len(t, v.Corrections, maxCorrections, "a flood of corrections is capped")
	assert.LessOrEqual(t, len(v.Corrections[0]), maxCorrectionBytes+len("…"))
}

func FuzzParseReview(f *testing.F) {
	for _, s := range []string{`{"lgtm": true}`, `{"lgtm": "no", "corrections": [{"a": [1, {"b": null}]}]}`, "```\n{}\n```", "{", "}{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		v := parseReview(text)
		if !v.LGTM && len(v.Corrections) == 0 {
			t.Fatalf("a review that does not approve must say something to the fixer: %q", text)
		}
		if len(v.Corrections) > maxCorrections {
			t.Fatalf("%d corrections", len(v.Corrections))
		}
	})
}
