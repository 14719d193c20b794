package report

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/tamperscan"
)

// outline is what a CommonMark (plus GFM tables) parser sees in a report.
type outline struct {
	headings []string       // level-2 headings, in order
	tables   [][]int        // per table: the cell count of each row, header first
	fences   map[string]int // fenced code blocks by info string
	details  int            // <details> blocks opened
	closed   int            // </details> seen
}

func parseOutline(t *testing.T, md string) outline {
	t.Helper()
	src := []byte(md)
	doc := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader(src))
	o := outline{fences: map[string]int{}}
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if n.Level == 2 {
				o.headings = append(o.headings, string(n.Lines().Value(src)))
			}
		case *east.Table:
			var rows []int
			for r := n.FirstChild(); r != nil; r = r.NextSibling() {
				rows = append(rows, r.ChildCount())
			}
			o.tables = append(o.tables, rows)
		case *ast.FencedCodeBlock:
			o.fences[string(n.Language(src))]++
		case *ast.HTMLBlock:
			block := string(n.Lines().Value(src))
			if n.HasClosure() {
				block += string(n.ClosureLine.Value(src))
			}
			o.details += strings.Count(block, "<details>")
			o.closed += strings.Count(block, "</details>")
		}
		return ast.WalkContinue, nil
	})
	require.NoError(t, err)
	return o
}

// The PR body must parse into the sections a reviewer looks for, with well-formed
// tables, one Mermaid chart and every collapsible block closed.
func TestReportHasItsStructureUnderCommonMark(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			s, res := f.play(t)
			o := parseOutline(t, Render(s, res, Options{Limit: PRLimit}))
			want := []string{"What now", "Why it stopped", "Where the implementations disagree", "Coders × vetted tests (last suite run)",
				"How the implementations differ", "Rounds", "Spend", "The vetted tests", "Agents"}
			assert.Equal(t, want, o.headings)
			assert.Equal(t, 1, o.fences["mermaid"], "one chart")
			assert.Equal(t, len(res.Vetted)+stacked(res), o.fences["go"], "every test fenced as Go, its contract's language")
			assert.Equal(t, 1, o.fences["text"], "the event log fenced as text")
			assert.Equal(t, o.details, o.closed, "every collapsible block is closed")
			assert.Equal(t, len(res.Vetted)+stacked(res)+1, o.details, "a block per vetted test, per stacked test, and the event log")
			for i, rows := range o.tables {
				for _, cells := range rows[1:] {
					assert.Equal(t, rows[0], cells, "table %d: every row has as many cells as the header", i)
				}
			}
			if len(res.Vetted) > 0 {
				assert.Contains(t, o.tables, matrixShape(len(res.Coders), len(res.Vetted)+1), "the coder × test matrix")
			}
		})
	}
}

func stacked(res *orchestrate.Result) int {
	n := 0
	for _, ts := range res.Testers {
		n += len(ts.Stacked)
	}
	return n
}

func matrixShape(rows, cols int) []int {
	out := []int{cols}
	for range rows {
		out = append(out, cols)
	}
	return out
}

// A run with a huge suite and many disagreements still fits GitHub's limit, keeps what
// a reviewer needs first, and links to the full report.
func TestPRBodyIsShortenedToGitHubsLimit(t *testing.T) {
	s, res := fixtures[0].play(t)
	big := strings.Repeat("\t// a long table-driven case with ✅ and | pipes\n", 200)
	for i := range 60 {
		v := orchestrate.Vetted{Candidate: orchestrate.Candidate{ID: fmt.Sprintf("t9-%d", i), Tester: "t9", Proposal: i, Content: []byte(testFile("big") + big)},
			Number: len(res.Vetted) + 1, Round: 1, PassedBy: []string{"c1"}, FailedBy: []string{"c2"}}
		res.Vetted = append(res.Vetted, v)
		s.Vetted = append(s.Vetted, runfile.VettedTest{ID: v.ID, Number: v.Number, Tester: v.Tester, Round: 1})
	}
	coders := s.Comparison.Differential.Coders
	answers := map[string][]differential.Answer{}
	for i, c := range coders {
		for k := range 3000 {
			answers[c] = append(answers[c], differential.Answer{Input: fmt.Sprintf(`"input %d"`, k), Output: fmt.Sprintf(`"%s says %d"`, c, k*i)})
		}
	}
	rep := differential.Compare(coders, answers, nil)
	s.Comparison.Differential = &rep

	full := Render(s, res, Options{})
	require.Greater(t, length(full), PRLimit, "the fixture is too long for a PR")
	link := "https://github.com/o/r-dixit/blob/dixit/7-report/report.md"
	body := Render(s, res, Options{Limit: PRLimit, FullReport: link})
	assert.LessOrEqual(t, length(body), PRLimit)
	assert.Contains(t, body, "[the full report]("+link+")")
	assert.Contains(t, body, "**Outcome: TESTERS_EXHAUSTED**", "the outcome is never cut")
	assert.Contains(t, body, "## Where the implementations disagree")
	assert.Regexp(t, regexp.MustCompile(`… and \d+ more inputs on which they disagree, in \[the full report\]\(`+regexp.QuoteMeta(link)+`\) and summary.json`),
		body, "the disagreement list is cut, with a count and where the rest is")
	o := parseOutline(t, body)
	assert.Equal(t, o.details, o.closed, "shortening never leaves a block open")
	assert.Equal(t, 1, o.fences["mermaid"])
}

// Agents and tests write what ends up in the report: answers, paths, test files. None
// of it may become markup, on GitHub or in the HTML page.
func TestHostileTextStaysInert(t *testing.T) {
	s, res := fixtures[0].play(t)
	evil := "</code></td><script>alert(1)</script><img src=x onerror=alert(2)>"
	res.Vetted[0].Content = []byte("package semver\n// </details>" + evil + "\n```\n~~~\n")
	s.Comparison.Touched[0].Files[0].Path = "a|b" + evil + ".go"
	// The tamper scan quotes a coder's path and line.
	s.Comparison.Touched[0].Scan = &tamperscan.Scan{Findings: []tamperscan.Finding{{Path: "a|b" + evil + ".py", Line: 2, Found: "atexit",
		Why: "runs code after the tests end", Text: "import atexit # " + evil + "`\n|`"}}}
	s.Coders[0].Tampered = &orchestrate.Tamper{Test: "t1-1", Evidence: "tampered: " + evil}
	coders := s.Comparison.Differential.Coders
	answers := map[string][]differential.Answer{}
	for i, c := range coders {
		answers[c] = []differential.Answer{{Input: `"` + evil + "`\n|`" + `"`, Output: fmt.Sprintf(`"%s %d"`, evil, i)}}
	}
	rep := differential.Compare(coders, answers, map[string]string{coders[0]: "build failed:\n" + evil})
	s.Comparison.Differential = &rep

	page, err := HTML(s, res)
	require.NoError(t, err)
	for _, bad := range []string{"<script", "<img", "</td><script"} {
		assert.NotContains(t, page, bad, "untrusted text became markup")
	}
	assert.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;", "it is shown, escaped")
	assert.Contains(t, page, "runs code after the tests end", "the scan's finding is on the page")

	o := parseOutline(t, Render(s, res, Options{}))
	assert.Equal(t, o.details, o.closed, "a test's </details> does not close its block")
	for i, rows := range o.tables {
		for _, cells := range rows[1:] {
			assert.Equal(t, rows[0], cells, "table %d: pipes and newlines in answers do not add cells", i)
		}
	}
}
