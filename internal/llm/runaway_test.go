package llm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goSource is ordinary code: indentation, repeated keywords, similar lines.
func goSource(funcs int) string {
	var b strings.Builder
	b.WriteString("package demo\n\n")
	for i := range funcs {
		fmt.Fprintf(&b, "// F%d returns %d.\nfunc F%d(x int) int {\n\tif x > %d {\n\t\treturn x\n\t}\n\treturn %d\n}\n\n",
			i, i, i, i, i)
	}
	return b.String()
}

func TestRunawayGuard(t *testing.T) {
	tests := []struct {
		name    string
		lim     RunawayLimits
		text    string
		pieces  int // stream it in this many bytes per write; 0: one write
		runaway bool
	}{
		{name: "ordinary code", text: goSource(400), pieces: 3},
		{name: "ordinary code in one write", text: goSource(400)},
		{name: "table separator line", text: "| a | b |\n|" + strings.Repeat("---|", 40) + "\n"},
		{name: "2000 spaces is allowed", text: "x" + strings.Repeat(" ", 2000) + "y", pieces: 7},
		{name: "2001 spaces", text: "x" + strings.Repeat(" ", 2001), pieces: 7, runaway: true},
		{name: "blank lines", text: "x" + strings.Repeat("\n", 3000), runaway: true},
		{name: "50 repeats is allowed", text: "intro " + strings.Repeat("the same twenty chars", 50)},
		{name: "51 repeats", text: "intro " + strings.Repeat("the same twenty chars", 51), runaway: true},
		{name: "short unit, many times", text: strings.Repeat("ab", 600), pieces: 5, runaway: true},
		{name: "loop after real text", text: goSource(20) + strings.Repeat("Let me try again.\n", 300), pieces: 16,
			runaway: true},
		{name: "size", lim: RunawayLimits{MaxBytes: 1000}, text: goSource(40), runaway: true},
		{name: "checks disabled", lim: RunawayLimits{MaxWhitespaceRun: -1, MaxRepeats: -1, MaxBytes: -1},
			text: strings.Repeat(" ", 5000) + strings.Repeat("again and again and again ", 500)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newRunawayGuard(tc.lim)
			var err error
			text := tc.text
			step := tc.pieces
			if step == 0 {
				step = len(text)
			}
			for len(text) > 0 && err == nil {
				n := min(step, len(text))
				err = g.write("content", text[:n])
				text = text[n:]
			}
			if err == nil {
				err = g.finish()
			}
			if tc.runaway {
				require.ErrorIs(t, err, ErrRunaway)
				t.Log(err)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

func TestRunawayGuardStopsEarly(t *testing.T) {
	// A loop is caught within a check interval of crossing the limit, not at the end.
	g := newRunawayGuard(RunawayLimits{})
	unit := "I will now run the tests again.\n"
	written := 0
	var err error
	for i := 0; i < 10_000 && err == nil; i++ {
		err = g.write("content", unit)
		written += len(unit)
	}
	require.ErrorIs(t, err, ErrRunaway)
	assert.Less(t, written, 51*len(unit)+checkEvery+len(unit))
}

func BenchmarkRunawayGuard(b *testing.B) {
	text := goSource(2000)
	for b.Loop() {
		g := newRunawayGuard(RunawayLimits{MaxBytes: -1})
		for i := 0; i < len(text); i += 8 {
			_ = g.write("content", text[i:min(i+8, len(text))])
		}
	}
}
