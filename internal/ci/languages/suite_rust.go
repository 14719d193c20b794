package languages

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
)

// rustBuildFile is where the suite's build keeps cargo's messages, after the tree's
// directory as the sandbox sees it.
const rustBuildFile = SuiteDir + "/build.json"

// rustSuiteBuild compiles every test target of the workspace (library and binary unit
// tests, integration tests) without running them; cargo's messages name the binaries.
func rustSuiteBuild(SuitePlan) string {
	return `{ pwd; cargo test --offline --no-run --workspace --tests --message-format=json-render-diagnostics; } >` + rustBuildFile
}

// rustArtifact is the part of cargo's compiler-artifact message the suite reads.
type rustArtifact struct {
	Reason       string `json:"reason"`
	ManifestPath string `json:"manifest_path"`
	Target       struct {
		SrcPath string `json:"src_path"`
	} `json:"target"`
	Profile struct {
		Test bool `json:"test"`
	} `json:"profile"`
	Executable *string `json:"executable"`
}

// rustSuiteUnits are the test binaries the build made, each named by its target's
// source file ("src/lib.rs", "tests/it.rs") and run from its package's directory, as
// cargo test would.
func rustSuiteUnits(src string, _ contract.Contract, only []string) ([]SuiteUnit, error) {
	data, err := readSuiteFile(src, rustBuildFile)
	if err != nil {
		return nil, fmt.Errorf("read the suite's build messages: %w", err)
	}
	root, rest, _ := bytes.Cut(data, []byte("\n"))
	rel := func(p string) (string, bool) {
		r, err := filepath.Rel(string(root), p)
		r = filepath.ToSlash(r)
		return r, err == nil && (r == "." || contract.LocalPath(r))
	}
	var units []SuiteUnit
	for _, line := range bytes.Split(rest, []byte("\n")) {
		var a rustArtifact
		if json.Unmarshal(line, &a) != nil || a.Reason != "compiler-artifact" || !a.Profile.Test || a.Executable == nil {
			continue
		}
		name, ok1 := rel(a.Target.SrcPath)
		dir, ok2 := rel(filepath.Dir(a.ManifestPath))
		bin, ok3 := rel(*a.Executable)
		if !ok1 || !ok2 || !ok3 {
			return nil, fmt.Errorf("test target %s lies outside the tree", a.Target.SrcPath)
		}
		if len(only) == 0 || under(name, only) {
			units = append(units, SuiteUnit{Name: name, Dir: dir, Bin: bin})
		}
	}
	return units, nil
}

// rustSuiteRun runs each test binary with libtest's JUnit output (unstable: stable
// binaries write it under RUSTC_BOOTSTRAP).
func rustSuiteRun(p SuitePlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, `R=$PWD s=0
suite() {
	(cd "$3" && RUSTC_BOOTSTRAP=1 exec "$R/$4" -Z unstable-options --format junit) >"$R/%[1]s/$1.xml" 2>"$R/%[1]s/$1.err" || {
		s=1
		printf '\n--- %%s failed\n' "$2"
		tail -n 40 "$R/%[1]s/$1.err"
	}
}
`, SuiteRunDir)
	for i, u := range p.Units {
		fmt.Fprintf(&b, "suite %d %s %s %s\n", i+1, shellQuote(u.Name), shellQuote(u.Dir), shellQuote(u.Bin))
	}
	b.WriteString(`exit "$s"`)
	return b.String()
}

// rustReport is libtest's JUnit document, with each case's captured output, where the
// panic's message is.
type rustReport struct {
	Cases []struct {
		Class   string    `xml:"classname,attr"`
		Name    string    `xml:"name,attr"`
		Failure *struct{} `xml:"failure"`
		Skipped *struct{} `xml:"skipped"`
		Out     string    `xml:"system-out"`
	} `xml:"testsuite>testcase"`
}

// rustSuiteRead names each test "src/lib.rs::tests::name"; a binary without a whole
// report (it crashed) becomes a failing test named after its target. Ignored tests are
// not in libtest's report: they are not in the suite.
func rustSuiteRead(src string, p SuitePlan) ([]SuiteCase, string, error) {
	var cases []SuiteCase
	for i, u := range p.Units {
		data, err := readSuiteFile(src, SuiteRunDir+"/"+strconv.Itoa(i+1)+".xml")
		var r rustReport
		if err == nil {
			err = xml.Unmarshal(bytes.TrimSpace(data), &r)
		}
		if err != nil {
			cases = append(cases, SuiteCase{Name: u.Name, Outcome: "fail", Message: "the test binary wrote no whole report: it crashed or was killed"})
			continue
		}
		for _, c := range r.Cases {
			sc := SuiteCase{Name: u.Name + "::" + rustTestPath(c.Class, c.Name), Outcome: "pass"}
			switch {
			case c.Failure != nil:
				sc.Outcome, sc.Message = "fail", rustPanic(c.Out)
			case c.Skipped != nil:
				sc.Outcome = "skip"
			}
			cases = append(cases, sc)
		}
	}
	return cases, "", nil
}

// rustTestPath is a test's path in its crate, as cargo test names it: libtest's JUnit
// output splits a unit test's path into classname and name ("crate" at the root), and
// gives an integration test's whole path as its name.
func rustTestPath(class, name string) string {
	switch class {
	case "crate", "integration", "unknown", "":
		return name
	}
	return class + "::" + name
}

// rustPanic is the message of a test's panic: the line after "panicked at".
func rustPanic(out string) string {
	_, after, ok := strings.Cut(out, "panicked at")
	if !ok {
		return ""
	}
	_, msg, _ := strings.Cut(after, "\n")
	return FirstLine(msg)
}

// rustSuite runs each test binary of the workspace.
func rustSuite(contract.Contract) Suite {
	return Suite{Build: rustSuiteBuild, Units: rustSuiteUnits, Run: rustSuiteRun, Read: rustSuiteRead, Scope: rustSuiteScope}
}

// rustSuiteScope is a restricted suite's target files, as given.
func rustSuiteScope(_ string, _ contract.Contract, only []string) ([]string, error) {
	return append([]string{}, only...), nil
}
