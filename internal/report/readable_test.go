package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/vet"
)

// The commands under "What now" are copied into a shell as they are: they name the
// state directory when it is not the default, quoted when a shell would split it.
func TestWhatNowCommandsCanBeCopied(t *testing.T) {
	s, res := fixtures[0].play(t)
	run := s.Run
	cases := []struct {
		name, state    string
		decide, resume string
	}{
		{"no state dir given", "", "`bot decide " + run + " continue`", "`bot run --resume " + run + "`"},
		{"the default", ".dixit", "`bot decide " + run + " continue`", "`bot run --resume " + run + "`"},
		{"the default, spelled otherwise", "./.dixit/", "`bot decide " + run + " continue`", "`bot run --resume " + run + "`"},
		{"another dir", "/tmp/st", "`bot decide --state /tmp/st " + run + " continue`", "`bot run --resume " + run + " --state /tmp/st`"},
		{"a dir with a space", "/tmp/my runs", "`bot decide --state '/tmp/my runs' " + run + " continue`", "`bot run --resume " + run + " --state '/tmp/my runs'`"},
		{"a dir with a quote and a dollar", "it's $HOME", `bot decide --state 'it'\''s $HOME' ` + run + " continue", `--state 'it'\''s $HOME'` + "`"},
		{"a dir with a backtick", "a`b", "``bot decide --state 'a`b' " + run + " continue``", "``bot run --resume " + run + " --state 'a`b'``"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s.StateDir = tc.state
			md := Markdown(s, res)
			assert.Contains(t, md, tc.decide)
			assert.Contains(t, md, tc.resume+" then carries it out", "the line that carries decisions out")
			if tc.state == "" || strings.Contains(tc.state, ".dixit") {
				assert.NotContains(t, md, "--state")
			}
		})
	}

	s.StateDir = "/srv/dixit"
	body := Render(s, res, Options{Limit: PRLimit, Decide: "/dixit "})
	assert.Contains(t, body, "- `/dixit continue`\n", "on GitHub a decision is a comment")
	assert.NotContains(t, body, "--state", "the server's state dir is no business of a commenter's")
	assert.NotContains(t, body, "bot run --resume")
}

// The coders' first solutions come before round 1's marker; a reader looks for them in
// round 1, and the rounds' tokens add up to the run's.
func TestRoundOneCountsTheFirstSolutions(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			s, res := f.play(t)
			rounds := Timeline(s)
			require.NotEmpty(t, rounds)
			assert.GreaterOrEqual(t, rounds[0].Solves, len(res.Coders), "every coder's first solution is in round 1")
			tokens, solves := 0, 0
			for _, r := range rounds {
				tokens += r.Tokens
				solves += r.Solves
			}
			assert.Equal(t, s.Spend.PromptTokens+s.Spend.CompletionTokens, tokens)
			want := 0
			for _, c := range s.Coders {
				want += c.Solves
			}
			assert.Equal(t, want, solves, "the table counts every solve the agents table does")
			md := Markdown(s, res)
			assert.Contains(t, md, "Round 1 counts the coders' first solutions too")
			assert.Contains(t, md, fmt.Sprintf("| 1 | 0 → %d | ", rounds[0].SuiteAfter))
			assert.Contains(t, md, fmt.Sprintf(" | %d | %d | ", rounds[0].Solves, rounds[0].Rollbacks))
		})
	}
}

// Test files are fenced in the contract's language, outputs and the event log as text.
func TestCodeBlocksCarryTheirLanguage(t *testing.T) {
	for path, want := range map[string]string{"{id}_test.go": "go", "tests/test_{id}.py": "python", "{id}.test.js": "javascript",
		"spec/{id}_spec.RB": "ruby", "{id}.txt": "", "": ""} {
		assert.Equal(t, want, Language(path), path)
	}
	s, res := fixtures[2].play(t) // stacked tests and no vetted ones
	o := parseOutline(t, Markdown(s, res))
	assert.Equal(t, 4, o.fences["go"], "each stacked test")
	assert.Equal(t, 1, o.fences["text"], "the event log")
	assert.Zero(t, o.fences[""], "no block without a language")

	s.TestPath = "tests/test_{id}.py"
	s.Vet = &vet.Verdict{Conclusion: "failure", Why: "it fails a vetted test", Vetted: []vet.Finding{
		{Number: 1, ID: "t1-1", Tester: "t1", Content: []byte("def test_x():\n    assert False\n"), Implementations: 3,
			Patch: ci.Verdict{Outcome: ci.Fail, Output: "AssertionError"}},
	}}
	o = parseOutline(t, Markdown(s, res))
	assert.Equal(t, 5, o.fences["python"], "the stacked tests and the test the patch fails")
	assert.Equal(t, 2, o.fences["text"], "the patch's output and the event log")
}

// Wherever the report shows part of something, it says what it leaves out and where the
// rest is.
func TestCutsSayWhatTheyLeaveOut(t *testing.T) {
	t.Run("the evidence shows the last rounds", func(t *testing.T) {
		var events []orchestrate.Event
		for r := 1; r <= 7; r++ {
			events = append(events, orchestrate.Event{Round: r, Kind: orchestrate.EvRound},
				orchestrate.Event{Round: r, Kind: orchestrate.EvPropose, Agent: "t1"})
		}
		res := &orchestrate.Result{Outcome: orchestrate.TestersExhausted, Reason: "nothing new", Rounds: 7, Events: events}
		md := Markdown(NewSummary("r", res), res)
		assert.Contains(t, md, "The last 3 of 7 rounds; every round is in the table under Rounds and in summary.json")
		assert.Contains(t, md, "| 5 | 0 | 0 | 0 | 1 |\n| 6 |")
		assert.NotContains(t, md, "| 4 | 0 | 0 | 0 | 1 |\n", "only the last three in the evidence")

		s, res := fixtures[0].play(t) // two rounds: nothing left out, nothing said
		assert.NotContains(t, Markdown(s, res), "The last")
	})

	t.Run("a coder's long file list", func(t *testing.T) {
		s, res := fixtures[0].play(t)
		var files []gitstate.FileStat
		for i := range 25 {
			files = append(files, gitstate.FileStat{Path: fmt.Sprintf("f%d.go", i), Added: 1})
		}
		s.Comparison.Touched[0].Files = files
		assert.Contains(t, Markdown(s, res), "<br>… 5 more files, in summary.json |")
	})

	t.Run("long answers in the disagreements", func(t *testing.T) {
		s, res := fixtures[0].play(t)
		note := "Inputs and answers longer than 80 characters are cut short here (…); summary.json has them whole."
		assert.NotContains(t, Markdown(s, res), note, "nothing cut, nothing said")
		coders := s.Comparison.Differential.Coders
		answers := map[string][]differential.Answer{}
		for i, c := range coders {
			answers[c] = []differential.Answer{{Input: `"` + strings.Repeat("x", 100) + `"`, Output: fmt.Sprint(i)}}
		}
		rep := differential.Compare(coders, answers, nil)
		s.Comparison.Differential = &rep
		assert.Contains(t, Markdown(s, res), note)
	})

	t.Run("the patch's output is the judge's tail", func(t *testing.T) {
		assert.Equal(t, "the patch's output on test 2", outputSummary(2, "FAIL"))
		assert.Equal(t, "the patch's output on test 2: its last 8 KiB, all the judge keeps", outputSummary(2, strings.Repeat("x", ci.MaxOutput)))
	})

	t.Run("a long decision", func(t *testing.T) {
		s, res := fixtures[0].play(t)
		note := "Texts over 300 characters are cut short here (…); summary.json has them whole."
		s.Decisions = []orchestrate.AppliedDecision{{Decision: orchestrate.Decision{Verb: orchestrate.DecideContinue, By: "maria", Reason: "short"}}}
		assert.NotContains(t, Markdown(s, res), note)
		s.Decisions[0].Reason = strings.Repeat("because ", 50)
		assert.Contains(t, Markdown(s, res), note)
	})

	t.Run("a review cut to fit", func(t *testing.T) {
		s, _ := fixtures[1].play(t)
		s.Vet = &vet.Verdict{Conclusion: "failure", Why: strings.Repeat("why ", 5000)}
		review := VetReview(s, "", 2000, "https://x/report.md")
		assert.LessOrEqual(t, length(review), 2000)
		assert.Contains(t, review, "… cut here to fit GitHub's limit; the rest of this review, the failing tests' text and the patch's outputs can be read in [the full report](https://x/report.md).")
	})
}

// Every section a shortened PR body shrinks says where the rest is, and the closing note
// names each one.
func TestShortenedBodyNamesWhatItLeftOut(t *testing.T) {
	s, res := fixtures[0].play(t)
	link := "https://github.com/o/r-dixit/blob/dixit/7-report/report.md"
	more := "[the full report](" + link + ")"
	full := Render(s, res, Options{FullReport: link})
	body := Render(s, res, Options{Limit: length(full) - 100, FullReport: link})
	assert.Contains(t, body, "The event log is in "+more+" and in summary.json.")
	assert.Contains(t, body, "This body is shortened to fit GitHub's limit; the event log can be read in "+more+".")

	body = Render(s, res, Options{Limit: 4000, FullReport: link})
	for _, want := range []string{
		"The coders' hidden refs and the testers' states are in " + more,
		"The table by round is in " + more,
		"The files each coder touched are in " + more,
		"The matrix is in " + more,
		"The tokens per agent are in " + more,
		"This body is shortened to fit GitHub's limit; the event log, the vetted tests' text, the agents tables, the table by round, the files each coder touched, the pass matrix, the tokens per agent and the evidence for the reason can be read in " + more,
		"## Why it stopped\n\nThe evidence for the reason is in " + more,
	} {
		assert.Contains(t, body, want)
	}
	assert.LessOrEqual(t, length(body), 4000)

	body = Render(s, res, Options{Limit: 600, FullReport: link})
	assert.LessOrEqual(t, length(body), 600)
	assert.Contains(t, body, "… cut here to fit GitHub's limit; the rest of this body, the event log, ")
}
