// Package tripwire lays tests of the judge's own into a proposal's test file, so that the
// runner's report can be checked against outcomes the judge knows in advance.
//
// Code under test runs in the test's own process: it can print a runner's report, patch
// the runner's failure method, or re-run the process and relay a doctored report. None of
// that needs to read the proposal; all of it changes what the runner reports about every
// test in the process. So every file the judge runs also holds, before and after the
// proposal's tests, one test that must pass and one that must fail, named like ordinary
// tests from a word list and a random draw, and for each assertion library the proposal
// imports, one test that must fail through that library. A report in which a wire is
// missing while the proposal passed, or a wire came out the other way, was tampered with.
//
// Code can also change the report only for the tests that call it, leaving the wires,
// which call nothing of the coder's, alone. So each of the proposal's tests also gets a
// twin: a copy of it under another name that must fail whatever its body does (a Go
// deferred failure, a Python finally). A twin calls the coder's code exactly as its
// original does, so what hides the original's failure hides the twin's too. Twins run
// in a job's first run only (RunEnv says which run it is): a job passes only if that run
// passes, so code that behaves differently in later runs gains nothing.
//
// What the wires cannot prove: code that recognises them (by name, by body, by position)
// and behaves honestly whenever one runs. Their names and bodies vary per job to make
// that harder, not impossible (docs/judge.md).
package tripwire

import (
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// Outcomes a wire must have.
const (
	MustPass = "pass"
	MustFail = "fail"
)

// Wire is one test of the judge's inside a proposal's file.
type Wire struct {
	Name string // as the runner reports it
	Want string // MustPass or MustFail
	// Via names the assertion library the wire fails through ("" for the language's
	// own failure: t.Error, assert).
	Via string
	// Twin names the proposal's test this wire copies ("" for the others). A twin
	// must fail in a job's first run and is not checked in the later ones.
	Twin string
}

// RunEnv is the variable the sandbox's wrapper sets to the number of the run ("1" for
// the first): twins return at once in the other runs.
const RunEnv = "DIXIT_RUN"

// Armed is a test file with its wires laid in.
type Armed struct {
	Content []byte
	Wires   []Wire
	// Lead counts the Wires that come before the proposal's tests in a Python file: a
	// run that selects tests by node id lists them first, so they run in file order.
	Lead int
}

// Arm lays wires into the test file at rel (its extension says the language). only
// names the tests of a Python file the run selects by node id ("test_x"); nil: all of
// them. A language without wires yet, or a file the wires cannot be laid into (it does
// not parse), comes back as it was with no wires: the judge then decides as before, and
// the file's own failure to build is reported as such.
func Arm(rel string, content []byte, rng *rand.Rand, only []string) Armed {
	switch path.Ext(rel) {
	case ".go":
		if a, ok := armGo(content, rng); ok {
			return a
		}
	case ".py":
		if a, ok := armPython(content, rng, only); ok {
			return a
		}
	}
	return Armed{Content: content}
}

// Check compares the outcomes a run's report gave (by test name: "pass", "fail",
// "skip"; absent when not reported) with the wires. It returns "" when every wire came
// out as it must, else why the run was tampered with. proposalPassed says whether the
// report claims the proposal's tests passed: a wire that did not report at all is
// tampering only then (a run that crashed early fails on its own). Twins are checked in
// the first run only.
func Check(wires []Wire, outcomes map[string]string, proposalPassed, firstRun bool) string {
	for _, w := range wires {
		if w.Twin != "" && !firstRun {
			continue
		}
		got, reported := outcomes[w.Name]
		if !reported {
			if proposalPassed {
				return fmt.Sprintf("a check of the judge's own in the same process (%s) never reported while the test passed: "+
					"the run was cut short or its report rewritten", w.Name)
			}
			continue
		}
		if w.Twin != "" && got == "skip" && skipped(outcomes, w.Twin) {
			continue // a test skipped by its own marks skips its copy too
		}
		if got == "skip" || got == w.Want {
			if got == "skip" {
				return fmt.Sprintf("a check of the judge's own (%s) was skipped: something in the process decides which tests run", w.Name)
			}
			continue
		}
		if w.Twin != "" {
			return fmt.Sprintf("a copy of %s made by the judge (%s), which must fail, was reported as %s: "+
				"something in the test's process changes what the runner reports for the tests that call the code under test", w.Twin, w.Name, got)
		}
		via := ""
		if w.Via != "" {
			via = " through " + w.Via
		}
		return fmt.Sprintf("a check of the judge's own that must %s%s (%s) was reported as %s: "+
			"something in the test's process changes what the runner reports", w.Want, via, w.Name, got)
	}
	return ""
}

// skipped reports whether the test name, or a parametrized case of it, was skipped.
func skipped(outcomes map[string]string, name string) bool {
	for n, got := range outcomes {
		if got == "skip" && (n == name || strings.HasPrefix(n, name+"[")) {
			return true
		}
	}
	return false
}

// Names lists the wires' names, for a report parser that must tell them from the
// proposal's tests.
func Names(wires []Wire) []string {
	out := make([]string, len(wires))
	for i, w := range wires {
		out[i] = w.Name
	}
	return out
}

// namer draws test names that read like ordinary ones and are not taken in the file.
type namer struct {
	rng   *rand.Rand
	taken []string
}

var (
	verbs   = []string{"parse", "format", "merge", "split", "load", "store", "encode", "decode", "sort", "match", "scan", "build", "trim", "render", "resolve", "count"}
	objects = []string{"header", "value", "range", "token", "entry", "record", "path", "name", "list", "field", "key", "block", "line", "item", "option", "unit"}
	cases   = []string{"empty", "single", "nested", "large", "unicode", "repeated", "mixed", "zero", "negative", "default", "missing", "twice", "order", "bounds", "spaces", "prefix"}
)

// words is three words and a number, unlikely to be a name the proposal already uses.
func (n *namer) words() []string {
	pick := func(list []string) string { return list[n.rng.IntN(len(list))] }
	return []string{pick(verbs), pick(objects), pick(cases), fmt.Sprint(n.rng.IntN(90) + 10)}
}

// next returns a fresh name made by join from the words.
func (n *namer) next(join func([]string) string) string {
	for {
		name := join(n.words())
		if !slices.Contains(n.taken, name) {
			n.taken = append(n.taken, name)
			return name
		}
	}
}

func goName(w []string) string {
	var b strings.Builder
	b.WriteString("Test")
	for _, s := range w {
		b.WriteString(strings.ToUpper(s[:1]) + s[1:])
	}
	return b.String()
}

func pythonName(w []string) string { return "test_" + strings.Join(w, "_") }
