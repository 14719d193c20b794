package languages

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/contract"
)

// Suite is how a language runs a tree's own tests and reads what they did (package
// suites runs it in the sandbox). Build and Units may be nil.
type Suite struct {
	// Build, when set, compiles the suite once before its runs (Go: a test binary per
	// package), in a build invocation: only the toolchain runs there.
	Build func(p SuitePlan) string
	// Units lists what the runs cover, read from the laid-out tree (after the build):
	// Go packages, Node test files; nil when the runner finds the tests itself.
	Units func(src string, c contract.Contract, only []string) ([]SuiteUnit, error)
	// Run runs the whole suite once, writing its reports under SuiteRunDir.
	Run func(p SuitePlan) string
	// Read turns a run's reports into cases; the string says why the run reported
	// nothing at all.
	Read func(src string, p SuitePlan) ([]SuiteCase, string, error)
	// Scope is what a suite restricted to only (not nil) covers: test files, or Go
	// import paths; nil when the restriction cannot be told (the whole suite).
	Scope func(src string, c contract.Contract, only []string) ([]string, error)
	// Settings, when set, copies the runner's settings from the tree the tests come from
	// (tests) into the suite's directory of the tree under test (src), so that the tree's
	// own cannot change what runs, and returns what the runs take (SuitePlan.Config).
	Settings func(tests, src string) (string, error)
}

// SuitePlan is what the scripts of one suite job are made from.
type SuitePlan struct {
	Only      []string
	Config    string // Python: the -c the run takes ("" for the tree's own settings)
	Toolchain string
	Units     []SuiteUnit
	Timeout   time.Duration // one unit's run, where the runner can bound it (Go)
}

// SuiteUnit is one part of a suite the judge runs by itself: a Go package (its import
// path and directory), a Node test file (its path, twice) or a Rust test binary (its
// target's source file, its package's directory and the binary).
type SuiteUnit struct{ Name, Dir, Bin string }

// SuiteCase is one test's outcome in one run of a suite.
type SuiteCase struct {
	Name    string
	Outcome string // "pass", "fail" or "skip"
	Message string // first line of the failure, or ""
}

// Where a suite's scripts keep their files, inside the tree: a dot directory, which
// go's ./..., pytest's collection and the Node file list all pass over.
const (
	SuiteDir    = ".dixit-suite"
	SuiteRunDir = SuiteDir + "/run" // emptied before every run
)

// maxSuiteFile bounds what the judge reads back of one report a suite's run wrote in
// the tree: past it the report is cut, and what it does not show did not pass.
const maxSuiteFile = 16 << 20

// shellQuote makes s one word of a shell command.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// FirstLine is the first non-empty line of a message, trimmed and capped.
func FirstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 200 {
				line = line[:200] + "…"
			}
			return line
		}
	}
	return ""
}

// under reports whether a slash path is one of the roots or inside one.
func under(p string, roots []string) bool {
	for _, r := range roots {
		if r == "." || p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// readSuiteFile reads a file a suite's build or run wrote in the tree, never following
// a link out of it, up to maxSuiteFile bytes.
func readSuiteFile(src, rel string) ([]byte, error) {
	root, err := os.OpenRoot(src)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	return io.ReadAll(io.LimitReader(f, maxSuiteFile))
}

// testFileScope is the scope of a suite restricted to only: its test files.
func testFileScope(src string, c contract.Contract, only []string) ([]string, error) {
	units, err := testFileUnits(src, c, only)
	if err != nil {
		return nil, err
	}
	scope := []string{}
	for _, u := range units {
		scope = append(scope, u.Name)
	}
	return scope, nil
}
