package ci

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/reports"
)

// testFileUnits lists the tree's test files: those the contract's Exclude matches
// (the files the judge removes from a coder's tree), outside node_modules and dot
// directories, within Only. Node runs them; for pytest, which collects by its own
// settings, they are a restricted suite's scope.
func testFileUnits(src string, c Contract, only []string) ([]suiteUnit, error) {
	var units []suiteUnit
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == src {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && c.Private(rel) && (len(only) == 0 || under(rel, only)) {
			units = append(units, suiteUnit{name: rel, dir: rel})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the tree's test files: %w", err)
	}
	sort.Slice(units, func(i, j int) bool { return units[i].name < units[j].name })
	return units, nil
}

// nodeSuiteRun runs each test file under node --test by itself, so each test is named
// with its file: readable results on stdout, TAP for the judge.
func nodeSuiteRun(p suitePlan) string {
	node := "node --test"
	if p.toolchain == "typescript" {
		node = "node --import tsx --test"
	}
	var b strings.Builder
	b.WriteString("s=0\n")
	for i, u := range p.units {
		fmt.Fprintf(&b, "%s --test-reporter=spec --test-reporter-destination=stdout --test-reporter=tap --test-reporter-destination=%s/%d.tap %s || s=1\n",
			node, suiteRunDir, i+1, shellQuote(u.name))
	}
	b.WriteString(`exit "$s"`)
	return b.String()
}

// nodeSuiteRead names each test point "file::name". A file that could not load is
// reported by node as a point named after the file: it becomes the test "file".
func nodeSuiteRead(src string, p suitePlan) ([]suiteCase, string, error) {
	var cases []suiteCase
	for i, u := range p.units {
		data, err := readSuiteFile(src, suiteRunDir+"/"+strconv.Itoa(i+1)+".tap")
		if err != nil {
			cases = append(cases, suiteCase{name: u.name, outcome: "fail", message: "node wrote no report for this file"})
			continue
		}
		r, messages := reports.TAP(data), tapMessages(data)
		if !r.Complete {
			cases = append(cases, suiteCase{name: u.name, outcome: "fail", message: "the file's report is incomplete: its process ended early"})
		}
		for _, t := range r.Tests {
			name := u.name + "::" + t.Name
			if t.Name == u.name || strings.HasSuffix(t.Name, "/"+u.name) {
				name = u.name
			}
			cases = append(cases, suiteCase{name: name, outcome: t.Outcome, message: messages[t.Name]})
		}
	}
	return cases, "", nil
}

// tapMessages finds the error of each failing test point in its YAML block ("error:
// 'boom'", or "error: |-" and the lines below), which parseTAP passes over.
func tapMessages(data []byte) map[string]string {
	out := map[string]string{}
	failing, block := "", false
	lines := strings.Split(string(data), "\n")
	for i, raw := range lines {
		text := strings.TrimSpace(raw)
		switch {
		case strings.HasPrefix(text, "not ok "):
			if t, ok := reports.TAPPoint(text); ok {
				failing = t.Name
			}
		case strings.HasPrefix(text, "ok "):
			failing = ""
		case text == "---" || text == "...":
			block = text == "---"
		case block && failing != "" && out[failing] == "" && strings.HasPrefix(text, "error: "):
			msg := strings.TrimPrefix(text, "error: ")
			if strings.HasPrefix(msg, "|") { // a block scalar: the lines indented below
				msg = blockScalar(lines[i+1:], indent(raw))
			}
			out[failing] = firstLine(strings.Trim(msg, "'\""))
		}
	}
	return out
}

// blockScalar joins the first lines of a YAML block scalar: those indented deeper than
// its key, up to three that say something.
func blockScalar(lines []string, keyIndent int) string {
	var parts []string
	for _, line := range lines {
		text := strings.TrimSpace(line)
		if text != "" && indent(line) <= keyIndent || len(parts) == 3 {
			break
		}
		if text != "" {
			parts = append(parts, text)
		}
	}
	return strings.Join(parts, " ")
}

func indent(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }
