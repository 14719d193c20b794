package languages

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/reports"
)

// testFileUnits lists the tree's test files: those the contract's Exclude matches
// (the files the judge removes from a coder's tree), outside node_modules and dot
// directories, within Only. Node runs them; for pytest, which collects by its own
// settings, they are a restricted suite's scope.
func testFileUnits(src string, c contract.Contract, only []string) ([]SuiteUnit, error) {
	var units []SuiteUnit
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
			units = append(units, SuiteUnit{Name: rel, Dir: rel})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the tree's test files: %w", err)
	}
	sort.Slice(units, func(i, j int) bool { return units[i].Name < units[j].Name })
	return units, nil
}

// nodeSuiteRun runs each test file under node --test by itself, so each test is named
// with its file: readable results on stdout, TAP for the judge.
func nodeSuiteRun(p SuitePlan) string {
	node := "node --test"
	if p.Toolchain == "typescript" {
		node = "node --import tsx --test"
	}
	var b strings.Builder
	b.WriteString("s=0\n")
	for i, u := range p.Units {
		fmt.Fprintf(&b, "%s --test-reporter=spec --test-reporter-destination=stdout --test-reporter=tap --test-reporter-destination=%s/%d.tap %s || s=1\n",
			node, SuiteRunDir, i+1, shellQuote(u.Name))
	}
	b.WriteString(`exit "$s"`)
	return b.String()
}

// nodeSuiteRead names each test point "file::name". A file that could not load is
// reported by node as a point named after the file: it becomes the test "file".
func nodeSuiteRead(src string, p SuitePlan) ([]SuiteCase, string, error) {
	var cases []SuiteCase
	for i, u := range p.Units {
		data, err := readSuiteFile(src, SuiteRunDir+"/"+strconv.Itoa(i+1)+".tap")
		if err != nil {
			cases = append(cases, SuiteCase{Name: u.Name, Outcome: "fail", Message: "node wrote no report for this file"})
			continue
		}
		r, messages := reports.TAP(data), tapMessages(data)
		if !r.Complete {
			cases = append(cases, SuiteCase{Name: u.Name, Outcome: "fail", Message: "the file's report is incomplete: its process ended early"})
		}
		for _, t := range r.Tests {
			name := u.Name + "::" + t.Name
			if t.Name == u.Name || strings.HasSuffix(t.Name, "/"+u.Name) {
				name = u.Name
			}
			cases = append(cases, SuiteCase{Name: name, Outcome: t.Outcome, Message: messages[t.Name]})
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
			out[failing] = FirstLine(strings.Trim(msg, "'\""))
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

// nodeSuite runs the tree's test files each by itself under node --test, or all in one
// vitest process when the contract runs vitest.
func nodeSuite(c contract.Contract) Suite {
	if usesVitest(c) {
		return Suite{Units: testFileUnits, Run: vitestSuiteRun, Read: vitestSuiteRead, Scope: testFileScope}
	}
	return Suite{Units: testFileUnits, Run: nodeSuiteRun, Read: nodeSuiteRead, Scope: testFileScope}
}
