package ci

import (
	"fmt"
	"path"
	"strings"
	"time"
)

// suiteSpec is how one toolchain runs a tree's own tests and reads what they did.
type suiteSpec struct {
	// build, when set, compiles the suite once before its runs (Go: a test binary per
	// package), in a build invocation: only the toolchain runs there.
	build func(p suitePlan) string
	// units lists what the runs cover, read from the laid-out tree (after the build):
	// Go packages, Node test files; nil when the runner finds the tests itself.
	units func(src string, c Contract, only []string) ([]suiteUnit, error)
	// run runs the whole suite once, writing its reports under suiteRunDir.
	run func(p suitePlan) string
	// read turns a run's reports into cases; the string says why the run reported
	// nothing at all.
	read func(src string, p suitePlan) ([]suiteCase, string, error)
}

// suitePlan is what the scripts of one suite job are made from.
type suitePlan struct {
	only      []string
	config    string // Python: the -c the run takes ("" for the tree's own settings)
	toolchain string
	units     []suiteUnit
	timeout   time.Duration // one unit's run, where the runner can bound it (Go)
}

// suiteUnit is one part of a suite the judge runs by itself: a Go package (its import
// path and directory), a Node test file (its path, twice) or a Rust test binary (its
// target's source file, its package's directory and the binary).
type suiteUnit struct{ name, dir, bin string }

// Where a suite's scripts keep their files, inside the tree: a dot directory, which
// go's ./..., pytest's collection and the Node file list all pass over.
const (
	suiteDir    = ".dixit-suite"
	suiteRunDir = suiteDir + "/run" // emptied before every run
)

// suiteFor is how the contract's toolchain runs a tree's own tests.
func suiteFor(c Contract) (suiteSpec, bool) {
	switch c.Toolchain {
	case "go":
		return suiteSpec{build: goSuiteBuild, units: goSuiteUnits, run: goSuiteRun, read: goSuiteRead}, true
	case "python":
		return suiteSpec{run: pythonSuiteRun, read: pythonSuiteRead}, true
	case "rust":
		return suiteSpec{build: rustSuiteBuild, units: rustSuiteUnits, run: rustSuiteRun, read: rustSuiteRead}, true
	case "java":
		return suiteSpec{build: javaSuiteBuild, run: javaSuiteRun, read: javaSuiteRead}, true
	case "node", "typescript":
		if usesVitest(c) {
			return suiteSpec{units: testFileUnits, run: vitestSuiteRun, read: vitestSuiteRead}, true
		}
		return suiteSpec{units: testFileUnits, run: nodeSuiteRun, read: nodeSuiteRead}, true
	}
	return suiteSpec{}, false
}

// checkOnly refuses a SuiteJob.Only entry that is not a clean path inside the tree.
func checkOnly(p string) error {
	if p == "." {
		return nil
	}
	if !localPath(p) {
		return fmt.Errorf("only %q: want a clean relative path inside the tree", p)
	}
	return nil
}

// localPath reports whether a slash path is clean, relative and stays in the tree.
func localPath(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.Contains(p, `\`) &&
		path.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../")
}

// shellQuote makes s one word of a shell command.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// firstLine is the first non-empty line of a message, trimmed and capped.
func firstLine(s string) string {
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

// suiteScope is what a suite restricted to only covers (nil: the whole suite): for Go
// the import paths of its package directories, read from go.mod; for the others the
// test files within it (Rust: its target files as given).
func suiteScope(src string, c Contract, only []string) ([]string, error) {
	if only == nil {
		return nil, nil
	}
	scope := []string{}
	switch c.Toolchain {
	case "go":
		mod, err := goModulePath(src)
		if err != nil {
			return nil, nil // it will not build: the whole suite fails, closed
		}
		for _, o := range only {
			scope = append(scope, path.Join(mod, o))
		}
	case "rust":
		scope = append(scope, only...)
	case "java":
		return nil, nil // the launcher runs every class: Only does not restrict it
	default:
		units, err := testFileUnits(src, c, only)
		if err != nil {
			return nil, err
		}
		for _, u := range units {
			scope = append(scope, u.name)
		}
	}
	return scope, nil
}
