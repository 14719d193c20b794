package fence

import "testing"

func TestFenceIsLongerThanAnyRunInTheText(t *testing.T) {
	for text, want := range map[string]string{
		"":                "```",
		"no ticks":        "```",
		"a `b` c":         "```",
		"```go\nx\n```":   "````",
		"`````` and ````": "```````",
	} {
		if got := For(text); got != want {
			t.Errorf("For(%q) = %q, want %q", text, got, want)
		}
	}
}
