package report

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/tamperscan"
)

// scannedRun is tamperedRun once the implementations are compared: dune's change is the
// session's forger (it reads its caller's name from the stack and prints a pass), basil
// logs with runtime.Caller, amber's change is plain.
func scannedRun(t *testing.T) runfile.Summary {
	t.Helper()
	forger, err := os.ReadFile(filepath.Join("..", "session", "testdata", "tamper", "coders", "d", "1", "calc.go"))
	require.NoError(t, err)
	scan := func(files ...tamperscan.File) *tamperscan.Scan {
		s := tamperscan.Change(files).Scan()
		return &s
	}
	s := tamperedRun()
	s.Comparison = &runfile.Comparison{Touched: []runfile.CoderDiff{
		{Coder: "amber", Scan: scan(tamperscan.NewFile("calc.go", "package calc\n\nfunc Add(a, b int) int { return a + b }\n"))},
		{Coder: "basil", Scan: scan(tamperscan.NewFile("calc.go",
			"package calc\n\nimport (\n\t\"log\"\n\t\"runtime\"\n)\n\nfunc Add(a, b int) int {\n\t_, file, line, _ := runtime.Caller(0)\n\tlog.Println(file, line)\n\treturn a + b\n}\n"))},
		{Coder: "dune", Scan: scan(tamperscan.NewFile("calc.go", string(forger)))},
	}}
	return s
}

// A tampered coder's row names the judge's evidence and, beside it, where the scan of
// its change points first; the scan's own section lists every coder's findings, file and
// line, in the report, the PR body and the HTML page.
func TestTheReportShowsEachCodersTamperScan(t *testing.T) {
	s := scannedRun(t)
	res := &orchestrate.Result{Outcome: s.Outcome, Vetted: []orchestrate.Vetted{{Candidate: orchestrate.Candidate{ID: "ivy-1", Tester: "ivy"}, Number: 1}}}
	page, err := HTML(s, res)
	require.NoError(t, err)
	for name, md := range map[string]string{"report.md": Markdown(s, res), "PR body": Render(s, res, Options{Limit: PRLimit, Decide: "/dixit "})} {
		assert.Contains(t, md, "| the first place to look |\n", name)
		assert.Contains(t, md, " | `calc.go:18` a test's name looked for; `calc.go:19` the runner's report words (\\\\x16); `calc.go:20` syscall.Exit; 1 more in the tamper scan |\n", name)

		_, scanPart, ok := strings.Cut(md, "## Tamper scan\n")
		require.True(t, ok, name)
		assert.Contains(t, scanPart, "| dune · **tampered** | `calc.go:18` | a test's name looked for<br>`if strings.HasPrefix(name, \"Test\") {` | looks for a test's name", name)
		assert.Contains(t, scanPart, "|  | `calc.go:14` | runtime.CallersFrames<br>", name)
		assert.Contains(t, scanPart, "| basil | `calc.go:9` | runtime.Caller<br>`_, file, line, _ := runtime.Caller(0)` | reads its own call stack", name)
		assert.Contains(t, scanPart, "but this file also logs, and loggers read their caller's name this way", name)
		assert.Contains(t, scanPart, "\nNo finding in the change of amber.\n", name)
		assert.Contains(t, scanPart, "A finding decides nothing", name)
	}
	assert.Contains(t, page, "<td><code>calc.go:18</code></td>")
	assert.Contains(t, page, "the first place to look")
}

// The status comment names, beside a tampered coder, where to look first, once the
// implementations are compared; a run whose tampered coder's change holds nothing says so.
func TestTheStatusCommentSaysWhereToLookFirst(t *testing.T) {
	s := scannedRun(t)
	st := NewStatus("r1", []string{"amber", "basil", "dune"}, []string{"ivy", "jun"})
	for _, ev := range s.Events {
		st.Event(context.Background(), ev)
	}
	assert.Contains(t, st.Markdown(), "| dune · **tampered** (test jun-2): no vote, never picked | ACC |", "not yet compared")
	st.Scanned(s.Comparison)
	md := st.Markdown()
	assert.Contains(t, md, "| dune · **tampered** (test jun-2): no vote, never picked; look first at `calc.go:18` a test's name looked for; `calc.go:19` the runner's report words (\\\\x16); 2 more in the tamper scan | ACC |")
	assert.Contains(t, md, "| basil | WA |", "an untampered coder's findings stay in the report")

	s.Comparison.Touched[2].Scan = &tamperscan.Scan{Findings: []tamperscan.Finding{}}
	st.Scanned(s.Comparison)
	assert.Contains(t, st.Markdown(), "never picked; the tamper scan found nothing: the tampering is in a place it does not look | ACC |")
}

// With no finding anywhere the section is one sentence; a summary from before the scan
// shows none, and its tampered coder a dash.
func TestAQuietScanIsShort(t *testing.T) {
	s := scannedRun(t)
	for i := range s.Comparison.Touched {
		s.Comparison.Touched[i].Scan = &tamperscan.Scan{Findings: []tamperscan.Finding{}}
	}
	md := scanSection(s, 0, "the full report")
	assert.Equal(t, 4, strings.Count(md, "\n"), md)
	assert.Contains(t, md, "No finding in any coder's change")

	for i := range s.Comparison.Touched {
		s.Comparison.Touched[i].Scan = nil
	}
	assert.Empty(t, scanSection(s, 0, "the full report"))
	assert.Contains(t, tamperedSection(s), "| — |\n")
}

// A shortened PR body keeps a few findings per coder and says where the rest are; the
// coder's path and line reach the page inert.
func TestTheScanSectionShortensAndIsInert(t *testing.T) {
	s := scannedRun(t)
	short := scanSection(s, 2, "[the full report](u)")
	assert.Contains(t, short, "| | … | 2 more findings, in [the full report](u) | |\n")
	assert.NotContains(t, short, "runtime.CallersFrames")

	s.Comparison.Touched[0].Scan = &tamperscan.Scan{Findings: []tamperscan.Finding{{Path: "a|b @team\n## x.py", Line: 3, Found: "atexit", Why: "w", Text: "closes #1 <b>"}}}
	md := scanSection(s, 0, "the full report")
	assert.Contains(t, md, "| `a\\|b @team⏎## x.py:3` | atexit<br>`closes #1 <b>` |")
	assert.NotContains(t, md, "\n## x.py")
}

// The scan reaches the report through summary.json and back.
func TestTheScanIsKeptInTheSummary(t *testing.T) {
	s := scannedRun(t)
	data, err := s.Encode()
	require.NoError(t, err)
	assert.Contains(t, string(data), `"tamper_scan": {`)
	var back runfile.Summary
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, s.Comparison.Touched, back.Comparison.Touched)
}
