package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
)

// Options shape one rendering of the report.
type Options struct {
	// Title starts the report with a "# Dixit run" heading (report.md; a PR has its own).
	Title bool
	// Preface is Markdown put first: the PR's link to its issue and what its branch holds.
	Preface string
	// Limit caps the length in characters; 0 means none. Parts that do not fit are
	// shortened, the least useful first, and FullReport is linked in their place.
	Limit int
	// FullReport is where the complete report can be read.
	FullReport string
	// Decide is how a reader gives a decision: "/dixit " on GitHub; "bot decide <run> "
	// when empty.
	Decide string

	figures *Figures // draw the chart as inline SVG among these (the HTML page) instead of Mermaid
}

// PRLimit keeps a pull request body under GitHub's 65,536 characters with room to spare.
const PRLimit = 65_000

// Markdown renders the complete report of a run.
func Markdown(s runfile.Summary, res *orchestrate.Result) string {
	return Render(s, res, Options{Title: true})
}

// section is a part of the report with a shorter form for when the whole does not fit;
// cut names what the short form leaves out, for the note that ends a shortened body.
type section struct {
	name        string
	full, short string
	cut         string
}

// shortenFirst orders the sections by how little a reviewer loses when they shrink.
var shortenFirst = []string{"failures", "log", "spec", "tests", "agents", "timeline", "diffs", "scan", "matrix", "spend", "differential", "evidence", "vet", "preflight"}

// Render renders the report with the given options.
func Render(s runfile.Summary, res *orchestrate.Result, opt Options) string {
	more := "the full report"
	if opt.FullReport != "" {
		more = fmt.Sprintf("[the full report](%s)", opt.FullReport)
	}
	lang := Language(s.TestPath)
	sections := []section{
		{name: "head", full: head(s, opt)},
		{name: "preflight", full: preflightSection(s, true), short: preflightSection(s, false), cut: "the judge's output on the base revision"},
		{name: "tampered", full: tamperedSection(s)},
		{name: "existing", full: existingSection(s, true), short: existingSection(s, false), cut: "the base's suite output"},
		{name: "next", full: nextSection(s, opt.Decide)},
		{name: "decisions", full: decisionsSection(s)},
		{name: "spec", full: specSection(s, true, more), short: specSection(s, false, more), cut: "the text of the comments hidden in the spec"},
		{name: "vet", full: vetSection(s, true), short: vetSection(s, false), cut: "the failing tests' text and the patch's outputs"},
		{name: "evidence", full: evidenceSection(s, res),
			short: fmt.Sprintf("## Why it stopped\n\nThe evidence for the reason is in %s.\n\n", more), cut: "the evidence for the reason"},
		{name: "differential", full: differentialSection(s, 0, more), short: differentialSection(s, differentialRows, more),
			cut: fmt.Sprintf("all but %d of the inputs the implementations disagree on", differentialRows)},
		{name: "matrix", full: "## Coders × vetted tests (last suite run)\n\n" + matrix(s),
			short: fmt.Sprintf("## Coders × vetted tests\n\nThe matrix is in %s.\n\n", more), cut: "the pass matrix"},
		{name: "failures", full: failuresSection(s, true, more), short: failuresSection(s, false, more), cut: "the failing verdicts' output"},
		{name: "scan", full: scanSection(s, 0, more), short: scanSection(s, scanRows, more),
			cut: fmt.Sprintf("all but %d findings of each coder's tamper scan", scanRows)},
		{name: "diffs", full: diffSection(s, true, more), short: diffSection(s, false, more), cut: "the files each coder touched"},
		{name: "timeline", full: timelineSection(s, true, opt.figures, more), short: timelineSection(s, false, opt.figures, more), cut: "the table by round"},
		{name: "spend", full: spendSection(s, true, more), short: spendSection(s, false, more), cut: "the tokens per agent"},
		{name: "tests", full: testsSection(s, res, true, more, lang), short: testsSection(s, res, false, more, lang), cut: "the vetted tests' text"},
		{name: "agents", full: agentsSection(s), short: fmt.Sprintf("## Agents\n\nThe coders' hidden refs and the testers' states are in %s.\n\n", more),
			cut: "the agents tables"},
		{name: "log", full: logSection(s), short: fmt.Sprintf("The event log is in %s and in summary.json.\n", more), cut: "the event log"},
	}
	out := join(sections)
	if opt.Limit <= 0 || length(out) <= opt.Limit {
		return out
	}
	var cut []string
	for _, name := range shortenFirst {
		for i := range sections {
			if sections[i].name == name && sections[i].full != sections[i].short {
				sections[i].full = sections[i].short
				cut = append(cut, sections[i].cut)
			}
		}
		out = join(sections) + fmt.Sprintf("\n---\nThis body is shortened to fit GitHub's limit; %s can be read in %s.\n", words.List(cut...), more)
		if length(out) <= opt.Limit {
			return out
		}
	}
	// Still too long (a huge reason or preface): cut at a line, and say so.
	note := fmt.Sprintf("\n\n… cut here to fit GitHub's limit; %s can be read in %s.\n", words.List(append([]string{"the rest of this body"}, cut...)...), more)
	return cutAt(out, opt.Limit, note)
}

// cutAt cuts text at the last line that leaves room for note, and appends note.
func cutAt(text string, limit int, note string) string {
	text = string([]rune(text)[:max(0, limit-length(note))])
	if i := strings.LastIndexByte(text, '\n'); i > 0 {
		text = text[:i]
	}
	return text + note
}

func join(sections []section) string {
	var b strings.Builder
	for _, s := range sections {
		b.WriteString(s.full)
	}
	return b.String()
}

func length(s string) int { return utf8.RuneCountInString(s) }

func head(s runfile.Summary, opt Options) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	if opt.Title {
		p("# Dixit run %s\n\n", s.Run)
	}
	b.WriteString(opt.Preface)
	if s.Agents == "scripted" {
		p("> Agents: a **scripted population** (coders and testers answering from the files of %s); no LLM was called.\n\n", inlineCode(s.Population))
	}
	if s.Protocol != "" && s.Protocol != "dixit" {
		p("Protocol: **%s** (docs/protocols.md).\n\n", s.Protocol)
	}
	p("**Outcome: %s** — %s.\n\n%s\n\n", s.Outcome, plain(s.Reason), whatNext(s))
	b.WriteString(specCommentsLine(s))
	b.WriteString(instructionsLine(s))
	p("%s · %s · %s · %s · wall time %s\n\n", words.Count(s.Rounds, "round", "rounds"), words.Count(len(s.Vetted), "vetted test", "vetted tests"),
		words.Count(len(s.Coders), "coder", "coders"), words.Count(len(s.Testers), "tester", "testers"), seconds(s.WallSeconds)+invocations(s))
	if c := s.Comparison; c != nil && c.Pick.Coder != "" {
		p("**The pick: %s.** %s\n\n", plain(c.Pick.Coder), plain(c.Pick.Why))
	}
	return b.String()
}

// whatNext says what the stop means and who acts, as the table of outcomes words it.
func whatNext(s runfile.Summary) string {
	r := orchestrate.ReasonFor(s.Outcome)
	switch {
	case r.NextMidRun != "" && s.Preflight != nil && s.Preflight.MidRun:
		return r.NextMidRun
	case r.NextNoTests != "" && len(s.Vetted) == 0:
		return r.NextNoTests
	}
	return r.Next
}
