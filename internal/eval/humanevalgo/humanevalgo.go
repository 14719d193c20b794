// Package humanevalgo builds the examples/humaneval-go benchmark of `bot eval` from
// HumanEval-X's Go translation (THUDM/CodeGeeX, Apache-2.0): each problem becomes a task
// with a spec, a base revision whose function panics, the canonical solution as the
// reference, and the problem's test as the hidden test, rewritten from testify's assert
// to the standard library so that the judge builds it offline.
package humanevalgo

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// Problem is one line of humaneval_go.jsonl.
type Problem struct {
	TaskID            string `json:"task_id"`
	Prompt            string `json:"prompt"`
	Import            string `json:"import"`
	Docstring         string `json:"docstring"`
	Declaration       string `json:"declaration"`
	CanonicalSolution string `json:"canonical_solution"`
	Test              string `json:"test"`
	TestSetup         string `json:"test_setup"`
	ExampleTest       string `json:"example_test"`
}

// Read reads the problems of a jsonl file, gzip-compressed or not, in file order.
func Read(r io.Reader) ([]Problem, error) {
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("read the problems: %w", err)
		}
		defer gz.Close()
		br = bufio.NewReader(gz)
	}
	dec := json.NewDecoder(br)
	var out []Problem
	for dec.More() {
		var p Problem
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("read the problems: record %d: %w", len(out)+1, err)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("read the problems: none found")
	}
	return out, nil
}

// Package is the Go package every task's code is in. HumanEval-X uses package main, which
// a library with tests cannot be.
const Package = "humaneval"

// Task is a problem turned into a benchmark task: file contents by path relative to the
// task's directory.
type Task struct {
	Name     string
	Function string
	Files    map[string][]byte
	problem  string // task_id
}

var funcName = regexp.MustCompile(`func\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// Convert turns a problem into a task, or says why it cannot.
func Convert(p Problem) (Task, error) {
	num, ok := strings.CutPrefix(p.TaskID, "Go/")
	if !ok {
		return Task{}, fmt.Errorf("task id %q: want Go/<n>", p.TaskID)
	}
	m := funcName.FindStringSubmatch(p.Declaration)
	if m == nil {
		return Task{}, fmt.Errorf("%s: no function in the declaration", p.TaskID)
	}
	fn := m[1]
	snake := snakeCase(fn)
	name := fmt.Sprintf("go%03s-%s", num, strings.ReplaceAll(snake, "_", "-"))
	if len(name) > 40 {
		name = strings.TrimRight(name[:40], "-")
	}
	test, err := hiddenTest(p)
	if err != nil {
		return Task{}, fmt.Errorf("%s: %w", p.TaskID, err)
	}
	decl := strings.TrimSpace(p.Declaration)
	doc := strings.TrimRight(p.Docstring, "\n") + "\n"
	module := "module example.com/humaneval/" + snake + "\n\ngo 1.22\n"
	file := snake + ".go"
	base := fmt.Sprintf("package %s\n\n%s%s\n\tpanic(\"not implemented\")\n}\n", Package, doc, decl)
	imports := strings.TrimSpace(p.Import)
	if imports != "" {
		imports += "\n\n"
	}
	reference := fmt.Sprintf("package %s\n\n%s%s%s\n%s", Package, imports, doc, decl, strings.TrimRight(p.CanonicalSolution, "\n")+"\n")
	files := map[string][]byte{
		"base/go.mod":                  []byte(module),
		"base/" + file:                 []byte(base),
		"reference/go.mod":             []byte(module),
		"reference/" + file:            []byte(reference),
		"hidden/" + snake + "_test.go": test,
		"spec.md":                      []byte(spec(p, fn, file, decl)),
		"dixit.yml":                    []byte(settings),
	}
	return Task{Name: name, Function: fn, Files: files, problem: p.TaskID}, nil
}

// settings is every task's dixit.yml: the agents are live (bot eval --live), so only the
// counts and the test contract are set here; --model names the model.
const settings = `# HumanEval-X Go task for bot eval --live (docs/eval.md). No scripted agents: offline,
# bot eval skips this task.
protocol: dixit
coders: 3
testers: 3
reruns: 1
max_rounds: 3
test:
  preset: go
  timeout: 20s
`

// spec states the problem as an issue would: the function to write, its docstring and
// the problem's own example test.
func spec(p Problem, fn, file, decl string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Implement `%s` in package `%s` (file `%s`; it panics for now):\n\n", fn, Package, file)
	fmt.Fprintf(&b, "```go\n%s\n```\n\n", strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(decl), "{")))
	for _, line := range strings.Split(strings.TrimRight(p.Docstring, "\n"), "\n") {
		line = strings.TrimPrefix(strings.TrimPrefix(line, "//"), " ")
		b.WriteString(strings.TrimRightFunc("    "+line, unicode.IsSpace) + "\n")
	}
	example := strings.ReplaceAll(strings.TrimSpace(p.ExampleTest), "assert.New(t)", "assert.New(t) // testify's assert")
	fmt.Fprintf(&b, "\nExamples, as a test:\n\n```go\n%s\n```\n", example)
	return b.String()
}

// stdPackages are the packages a hidden test may use by their last element; the
// translation's tests rely on the solution file's imports, which a separate test file
// cannot see, so those it uses are imported again.
var stdPackages = map[string]string{
	"math": "math", "strings": "strings", "strconv": "strconv", "sort": "sort", "fmt": "fmt",
	"rand": "math/rand", "time": "time", "md5": "crypto/md5", "unicode": "unicode", "bytes": "bytes",
	"regexp": "regexp", "hex": "encoding/hex",
}

var selector = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.[A-Za-z_]`)

// hiddenTest rewrites the problem's test from testify's assert to the standard library:
// assert.New(t) becomes a small asserter appended to the file, whose Equal compares with
// reflect.DeepEqual as testify's does for anything but []byte.
func hiddenTest(p Problem) ([]byte, error) {
	body := strings.TrimSpace(p.Test)
	if strings.Count(body, "assert.New(t)") != 1 {
		return nil, fmt.Errorf("the test does not create one asserter with assert.New(t)")
	}
	body = strings.Replace(body, "assert.New(t)", "newAsserter(t)", 1)
	for _, m := range regexp.MustCompile(`assert\.([A-Za-z]+)\(`).FindAllStringSubmatch(body, -1) {
		if m[1] != "Equal" {
			return nil, fmt.Errorf("the test calls assert.%s, which the shim does not have", m[1])
		}
	}
	used := map[string]bool{"reflect": true, "testing": true, "fmt": true}
	for _, m := range selector.FindAllStringSubmatch(body, -1) {
		if path, ok := stdPackages[m[1]]; ok {
			used[path] = true
		}
	}
	var paths []string
	for p := range used {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b bytes.Buffer
	fmt.Fprintf(&b, "package %s\n\nimport (\n", Package)
	for _, p := range paths {
		fmt.Fprintf(&b, "\t%q\n", p)
	}
	b.WriteString(")\n\n")
	b.WriteString(body + "\n")
	b.WriteString(shim)
	return b.Bytes(), nil
}

// shim stands in for testify's assert.New(t).Equal, from the standard library only.
const shim = `
// asserter replaces testify's assert in HumanEval-X's test, so the test needs no module.
type asserter struct{ t *testing.T }

func newAsserter(t *testing.T) asserter { return asserter{t} }

// Equal reports a failure when want and got differ, as testify's assert.Equal does.
func (a asserter) Equal(want, got any, msgAndArgs ...any) bool {
	a.t.Helper()
	if reflect.DeepEqual(want, got) {
		return true
	}
	a.t.Errorf("not equal:\nwant: %#v\n got: %#v %s", want, got, fmt.Sprint(msgAndArgs...))
	return false
}
`

// snakeCase turns HasCloseElements into has_close_elements.
func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
