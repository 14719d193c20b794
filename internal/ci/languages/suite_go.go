package languages

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/reports"
)

// goPackagesFile is where the suite's build lists the packages with tests: the tree's
// directory as the sandbox sees it, then "import/path\tdirectory" per package (empty
// lines for packages without tests).
const goPackagesFile = SuiteDir + "/pkgs"

// goSuitePatterns are the go list patterns of a suite's packages.
func goSuitePatterns(only []string) string {
	if len(only) == 0 {
		return "./..."
	}
	var pats []string
	for _, o := range only {
		pats = append(pats, shellQuote("./"+o))
	}
	return strings.Join(pats, " ")
}

// goSuiteBuild lists the packages that have tests and compiles a test binary for each,
// numbered in list order, with the build cache: only the go command runs here. Links
// run side by side (up to four), which on two cores takes 40 % off ten packages. A
// package that does not compile fails the suite's build, with the compiler's output.
func goSuiteBuild(p SuitePlan) string {
	return `mkdir -p ` + SuiteDir + `/bin || exit 1
{ pwd; go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{"\t"}}{{.Dir}}{{end}}' ` + goSuitePatterns(p.Only) + `; } >` + goPackagesFile + ` || exit 1
j=$(nproc 2>/dev/null || echo 1)
[ "$j" -gt 4 ] && j=4
tail -n +2 ` + goPackagesFile + ` | cut -f1 | grep -v '^$' | nl -ba -w1 -s' ' |
	xargs -r -P "$j" -n 2 sh -c 'go test -c -ldflags=-w -o "` + SuiteDir + `/bin/$0.test" "$1"'`
}

// goSuiteUnits reads the build's package list, numbered as the build numbered them.
func goSuiteUnits(src string, _ contract.Contract, _ []string) ([]SuiteUnit, error) {
	data, err := readSuiteFile(src, goPackagesFile)
	if err != nil {
		return nil, fmt.Errorf("read the suite's package list: %w", err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	root := lines[0]
	var units []SuiteUnit
	for _, line := range lines[1:] {
		ip, dir, ok := strings.Cut(line, "\t")
		if !ok || ip == "" {
			continue
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil || !(rel == "." || contract.LocalPath(filepath.ToSlash(rel))) {
			return nil, fmt.Errorf("package %s lies outside the tree (%s)", ip, dir)
		}
		units = append(units, SuiteUnit{Name: ip, Dir: filepath.ToSlash(rel)})
	}
	return units, nil
}

// goSuiteRun runs each package's test binary in its directory, as go test would, and
// keeps its output, whose framing lines say what each test did; a failing package's
// tail goes to the run's output for people.
func goSuiteRun(p SuitePlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, `R=$PWD s=0
suite() {
	(cd "$3" && exec "$R/%[1]s/bin/$1.test" -test.count=1 -test.paniconexit0 -test.timeout=%[2]s -test.v=test2json) >"$R/%[3]s/$1.out" 2>&1 || {
		s=1
		printf '\n--- package %%s failed:\n' "$2"
		tr -d '\026' <"$R/%[3]s/$1.out" | tail -n 40
	}
}
`, SuiteDir, p.Timeout, SuiteRunDir)
	for i, u := range p.Units {
		fmt.Fprintf(&b, "suite %d %s %s\n", i+1, shellQuote(u.Name), shellQuote(u.Dir))
	}
	b.WriteString(`exit "$s"`)
	return b.String()
}

// goSuiteRead reads each package's framing lines. Tests are its top-level ones, named
// "import/path.TestX"; one that started and never finished failed (the binary crashed,
// called os.Exit or ran out of time).
func goSuiteRead(src string, p SuitePlan) ([]SuiteCase, string, error) {
	var cases []SuiteCase
	for i, u := range p.Units {
		data, err := readSuiteFile(src, SuiteRunDir+"/"+strconv.Itoa(i+1)+".out")
		if err != nil {
			continue // the binary never ran: its tests are missing
		}
		r := reports.FramedOutput(data)
		messages := goMessages(data)
		for _, t := range r.Tests {
			if strings.Contains(t.Name, "/") {
				continue
			}
			cases = append(cases, SuiteCase{Name: u.Name + "." + t.Name, Outcome: t.Outcome, Message: messages[t.Name]})
		}
		for _, name := range r.Unfinished {
			if !strings.Contains(name, "/") {
				cases = append(cases, SuiteCase{Name: u.Name + "." + name, Outcome: "fail",
					Message: "started but never finished: the package's test binary ended (a crash, os.Exit or its timeout)"})
			}
		}
	}
	return cases, "", nil
}

// goMessages finds each top-level test's first logged line ("x_test.go:12: want 3"):
// framing lines say which test the lines that follow belong to. A location with its
// message on the lines below (testify's "Error Trace:" block) takes the "Error:" line,
// and the error itself when that line only announces one.
func goMessages(data []byte) map[string]string {
	out := map[string]string{}
	cur, pending := "", ""
	for _, line := range bytes.Split(data, []byte("\n")) {
		if i := bytes.IndexByte(line, reports.FramingByte); i >= 0 {
			f := string(line[i+1:])
			for _, prefix := range []string{"=== RUN   ", "=== NAME  ", "=== CONT  "} {
				if name, ok := strings.CutPrefix(f, prefix); ok {
					cur, pending = name, ""
				}
			}
			continue
		}
		top, _, _ := strings.Cut(cur, "/")
		text := strings.TrimSpace(string(line))
		switch {
		case top == "" || text == "" || out[top] != "" && pending == "":
		case pending != "" && strings.HasSuffix(pending, "error:"):
			// testify's "Received unexpected error:" puts the error on the next line.
			out[top], pending = FirstLine(pending+" "+text), ""
		case pending != "":
			if msg, ok := strings.CutPrefix(text, "Error:"); ok {
				pending += " " + strings.TrimSpace(msg)
				out[top] = FirstLine(pending)
				if !strings.HasSuffix(pending, "error:") {
					pending = ""
				}
			}
		case strings.Contains(text, ".go:"):
			out[top] = FirstLine(text)
			if strings.HasSuffix(text, ":") {
				pending = text
			}
		}
	}
	return out
}

// goSuite runs each package's test binary.
func goSuite(contract.Contract) Suite {
	return Suite{Build: goSuiteBuild, Units: goSuiteUnits, Run: goSuiteRun, Read: goSuiteRead, Scope: goSuiteScope}
}

// goSuiteScope is the import paths of the package directories a suite is restricted to,
// read from go.mod.
func goSuiteScope(src string, _ contract.Contract, only []string) ([]string, error) {
	mod, err := GoModule(src)
	if err != nil {
		return nil, nil // it will not build: the whole suite fails, closed
	}
	scope := []string{}
	for _, o := range only {
		scope = append(scope, path.Join(mod, o))
	}
	return scope, nil
}

// GoModule reads the module path in the go.mod at dir.
func GoModule(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("the tree has no readable go.mod: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			rest, _, _ = strings.Cut(strings.TrimSpace(rest), "//")
			rest = strings.TrimSpace(rest)
			if unq, err := strconv.Unquote(rest); err == nil {
				rest = unq
			}
			return rest, nil
		}
	}
	return "", fmt.Errorf("go.mod names no module")
}
