package report

import (
	"fmt"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
	"strings"
)

// existingSection says what the repository's own tests guarded: the regression set
// from the base, the flaky tests left out, and which coder or patch broke which test.
func existingSection(s runfile.Summary, full bool) string {
	e := s.Existing
	if e == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("## The repository's own tests\n\n")
	if e.Note != "" {
		fmt.Fprintf(&b, "%s%s.\n\n", strings.ToUpper(e.Note[:1]), e.Note[1:])
		if full && e.Output != "" {
			details(&b, "the base's suite output", "text", []byte(e.Output))
		}
		return b.String()
	}
	scope := "the packages each change touches and those that depend on them"
	switch {
	case e.Mode == "all":
		scope = "all of them"
	case e.AsReached && e.Whole:
		scope = "the test files each change reaches; a change reached them all, so the whole suite ran on the base"
	case e.AsReached:
		scope = fmt.Sprintf("the test files each change reaches, run on the base when a change first reached them: %s of the suite",
			words.Count(len(e.Scope), "file", "files"))
	}
	runs := fmt.Sprintf("in every one of %d runs", e.Runs)
	if e.Runs == 1 {
		runs = "in its one run"
	}
	fmt.Fprintf(&b, "On the base revision, %s passed %s: every coder must keep %s passing (%s), without changing %s.",
		words.Count(len(e.Set.Tests), "existing test", "existing tests"), runs,
		words.Noun(len(e.Set.Tests), "it", "them"), scope, words.Noun(len(e.Set.Tests), "it", "them"))
	if len(e.Set.Flaky) > 0 {
		fmt.Fprintf(&b, " %s passed in some runs and not in others, so %s nothing: %s.", words.Count(len(e.Set.Flaky), "flaky test", "flaky tests"),
			verb(len(e.Set.Flaky), "it guards", "they guard"), codeList(e.Set.Flaky))
	}
	b.WriteString("\n\n")
	if e.AsReached && e.Output != "" {
		b.WriteString("Some of the base's test files did not run, so their tests guard nothing.\n\n")
		if full {
			details(&b, "the base's suite output", "text", []byte(e.Output))
		}
	}
	if len(e.Retired) > 0 {
		fmt.Fprintf(&b, "Most coders' first solutions broke %s: the spec changes what %s, so %s nothing in this run.\n\n",
			codeList(e.Retired), verb(len(e.Retired), "it checks", "they check"), verb(len(e.Retired), "it guarded", "they guarded"))
	}
	var rows []string
	for _, c := range s.Coders {
		if len(c.Breaks) > 0 {
			rows = append(rows, breaksRow(c.Name, c.Breaks[0].Test, c.Breaks[0].Reason, len(c.Breaks)))
		}
	}
	if len(e.Patch) > 0 {
		rows = append(rows, breaksRow("the patch under review", e.Patch[0].Test, e.Patch[0].Reason, len(e.Patch)))
	}
	if len(rows) == 0 {
		b.WriteString("No coder's final tree breaks one of them.\n\n")
		return b.String()
	}
	b.WriteString("| who | breaks | first | why |\n|---|---|---|---|\n")
	b.WriteString(strings.Join(rows, ""))
	b.WriteString("\n")
	return b.String()
}

// breaksRow is one row of the table: test names and reasons come from test output, so
// they are shown as inert code.
func breaksRow(who, first, why string, n int) string {
	return fmt.Sprintf("| %s | %d | %s | %s |\n", plainHTML(who), n, code(first), code(why))
}

// codeList formats names as inline code, comma-separated.
func codeList(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = code(n)
	}
	return strings.Join(quoted, ", ")
}

// OwnTestsOnBase is the progress line when the base runs the files of its own tests a
// change reaches first (files 0: the whole suite, a change reached every test).
func OwnTestsOnBase(files, runs int) string {
	what := "the whole suite, which a change reaches all of"
	if files > 0 {
		what = words.Count(files, "test file", "test files") + " a change reaches first"
	}
	return fmt.Sprintf("the repository's own tests on the base revision: %s, %s", what, words.Count(runs, "run", "runs"))
}
