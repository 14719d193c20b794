package render

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/replay"
)

func sliceReport(t *testing.T) *replay.Report {
	t.Helper()
	ps, err := replay.LoadFile(context.Background(), "../testdata/slice.jsonl")
	require.NoError(t, err)
	cfg := replay.DefaultConfig()
	cfg.Panels = 4
	rep, err := replay.Run(context.Background(), ps, cfg, nil)
	require.NoError(t, err)
	return rep
}

func TestMarkdownHasEveryTable(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Markdown(&b, sliceReport(t)))
	md := b.String()
	for _, want := range []string{
		"## Every K on the same problems (threshold 0.6)",
		"Brackets: 95% bootstrap interval, 1000 resamples of the problems",
		"**diverse**, on the 2 of 4 problems that can have a panel at every K.",
		"| K | problems | kept precision | yield | per-problem precision, mean | problems < 80% | wrong caught: vetted |",
		"| 9 | 2 | **100.0% [100.0, 100.0]** |", // diverse K=9: only two slice problems have nine sources
		"## How to choose N and the threshold for a target precision",
		"- precision ≥ 95%: ",
		"## Tests (threshold 0.6), BASELINE.md's layout",
		"| panel | K | problems | panels | ≥1 kept test | kept tests | kept precision |",
		"| diverse | 9 | 2 | 8 |",
		"## Per-problem precision (diverse, threshold 0.6)",
		"## Picks (threshold 0.6)",
		"| Dixit pick | CodeT pick, same panels |",
		"## Kept-test precision by tester (diverse panels, threshold 0.6)",
		"## Hybrid pick (threshold 0.6)",
		"## Calibration: panel size and threshold",
		"| K | problems | t=0.5 | t=0.6 | t=0.7 | t=0.8 |",
		"| 3 | 4 | ", // random K=3 on the four problems
		"nothing kept",
		"![Kept precision and yield against K and the threshold](replay.svg)",
		"## Reading the figures",
		"this replay has 4 (another data set, or a part of that one), so its figures are not comparable",
		"Reruns do not apply here",
	} {
		assert.Contains(t, md, want)
	}
	// Every table row has as many cells as its header.
	var cols int
	for _, line := range strings.Split(md, "\n") {
		switch {
		case !strings.HasPrefix(line, "|"):
			cols = 0
		case cols == 0:
			cols = strings.Count(line, "|")
		default:
			assert.Equal(t, cols, strings.Count(line, "|"), line)
		}
	}
}

func TestSVGIsWellFormed(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, SVG(&b, sliceReport(t)))
	dec := xml.NewDecoder(&b)
	polylines := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if el, ok := tok.(xml.StartElement); ok && el.Name.Local == "polyline" {
			polylines++
		}
	}
	assert.GreaterOrEqual(t, polylines, 6, "a line per kind in two charts, and per K in the third")
}

func TestWriteLeavesThreeFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	paths, err := Write(dir, sliceReport(t))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(dir, "replay.md"), filepath.Join(dir, "replay.json"), filepath.Join(dir, "replay.svg")}, paths)
	data, err := os.ReadFile(filepath.Join(dir, "replay.json"))
	require.NoError(t, err)
	var back replay.Report
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, 4, back.Problems)
	row, ok := back.Find("diverse", 5, 60)
	require.True(t, ok)
	assert.Equal(t, 16, row.Panels)
}

func TestExecReportSaysWhatDisagreedAndWhy(t *testing.T) {
	rep := &replay.ExecReport{Problems: 1, Coders: 3, Programs: 2, Jobs: 4, Reruns: 20, Seconds: 3,
		Cells: 6, Agree: 5, AgreeAfter: 5, Environment: 2, Timeouts: 1,
		ByClass:       map[string]int{replay.ClassTimeout: 1},
		EnvironmentAt: []string{"T/1 c#0: No module named pytest"},
		Disagreements: []replay.Disagreement{{TaskID: "T/0", Coder: "a#0", Test: "t#1", Assert: "assert f(1) | 2 == 3",
			Recorded: true, First: "timeout", Confirm: "timeout", Class: replay.ClassTimeout}}}
	var md, sum bytes.Buffer
	require.NoError(t, ExecMarkdown(&md, rep))
	require.NoError(t, ExecSummary(&sum, rep))
	assert.Contains(t, md.String(), "| **agree, first execution** | **5 (83.333%)** |")
	assert.Contains(t, md.String(), "| kept from running by the environment (not counted) | 2 |")
	assert.Contains(t, md.String(), "| T/0 | a#0 | t#1 | `assert f(1) \\| 2 == 3` | pass | timeout | timeout | timeout |")
	assert.Contains(t, md.String(), "- T/1 c#0: No module named pytest")
	assert.Contains(t, sum.String(), "agreement with the recorded matrix: 5 of 6 cells (83.333%) at the first execution")
	assert.Contains(t, sum.String(), "disagreements: 1 timeout; cells timed out here: 1; cells the environment kept from running (not counted): 2")
}

// The recommendation reads the interval's lower end, prefers fewer coders, then yield.
func TestChooseReadsTheLowerEndOfTheInterval(t *testing.T) {
	row := func(k, pct int, prec, lo, yield float64) replay.Row {
		r := replay.Row{Kind: "diverse", K: k, Threshold: float64(pct) / 100, Set: replay.AllProblems, Problems: 10}
		r.Figures.KeptPrecision, r.Figures.AnyKept, r.Figures.KeptTests = prec, yield, 100
		r.CI.Precision = replay.Interval{Lo: lo, Hi: 1}
		return r
	}
	rep := &replay.Report{Problems: 10, Sizes: []int{3, 5}, Kinds: []string{"diverse"}, Resamples: 1000, Rows: []replay.Row{
		row(3, 60, 0.96, 0.93, 0.6), // point above 95%, lower end not
		row(5, 60, 0.97, 0.955, 0.7),
		row(5, 80, 0.99, 0.985, 0.5),
	}}
	lines := chooseLines(rep)
	require.Len(t, lines, 4)
	assert.Contains(t, lines[0], "precision ≥ 90%: fewest coders K=3, t=0.6")
	assert.Contains(t, lines[0], "most yield K=5, t=0.6")
	assert.True(t, strings.HasPrefix(lines[1], "precision ≥ 95%: K=5, t=0.6: precision 97.0% [95.5, 100.0], yield 70.0%"), lines[1])
	assert.True(t, strings.HasPrefix(lines[2], "precision ≥ 98%: K=5, t=0.8"), lines[2])
	assert.Contains(t, lines[3], "precision ≥ 99%: no replayed setting is sure to reach it; the closest is K=5, t=0.8")
}
