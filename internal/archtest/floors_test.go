package archtest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The floors table of docs/architecture.md is the rule itself: this file reads it, so the
// page and the check cannot drift apart. The table sits under "## The floors" and has
// three columns, found by their headers:
//
//   - floor: the floor's name, which other rows use to allow it;
//   - packages: the floor's packages, each in backticks, inside the module's internal/
//     ("ci/sandbox") or in full when outside it ("cmd/bot"), separated by commas; text in
//     parentheses after a package describes it and is not read;
//   - may import: what the floor's packages may import of ours, separated by commas or
//     "and": a floor's name, "its own floor", "every floor below" (the rows under it),
//     a package in backticks, or "nothing of ours". Text in parentheses is not read.
//
// Every package of the module under internal/ and cmd/ must be on exactly one floor, and
// every import of ours it makes must be allowed by its floor.

const architectureDoc = "docs/architecture.md"

// floor is one row of the table.
type floor struct {
	name     string
	pkgs     []string // paths inside the module: "internal/ci/sandbox", "cmd/bot"
	floors   []string // the floors its packages may import, by name
	allowed  []string // single packages they may import, inside the module
	anyBelow bool     // "every floor below"
}

// TestTheFloorsTableHolds: every package is on a floor of docs/architecture.md, and
// imports only what its floor may.
func TestTheFloorsTableHolds(t *testing.T) {
	m := repoModule(t)
	doc, err := os.ReadFile(filepath.Join("..", "..", architectureDoc))
	if err != nil {
		t.Fatal(err)
	}
	floors, problems := parseFloors(string(doc))
	for _, p := range problems {
		t.Error(p)
	}
	if len(floors) == 0 {
		return
	}
	for _, p := range floorProblems(m, floors) {
		t.Error(p)
	}
}

// floorProblems checks that every package of m under internal/ or cmd/ is on exactly
// one floor, that every listed package exists, and that every import of ours is allowed.
func floorProblems(m *module, floors []floor) []string {
	var problems []string
	on := map[string]int{} // package → index of its floor
	for i, f := range floors {
		for _, p := range f.pkgs {
			if j, twice := on[p]; twice {
				problems = append(problems, fmt.Sprintf("%s's floors table lists %s on %q and on %q: keep it on one floor", architectureDoc, p, floors[j].name, f.name))
				continue
			}
			on[p] = i
			if m.pkgs[p] == nil {
				problems = append(problems, fmt.Sprintf("%s's floors table lists %s on %q, which is not a package of the module: remove it, or write where the package went", architectureDoc, p, f.name))
			}
		}
	}
	for _, p := range m.sortedPkgs() {
		if !onFloors(p.rel) {
			continue
		}
		i, ok := on[p.rel]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s is on no floor: add `%s` to the row of its floor in %s's floors table (its doc comment: %q)", p.rel, shortName(p.rel), architectureDoc, p.doc))
			continue
		}
		for _, imp := range p.imports {
			rel, ours := m.rel(imp)
			if !ours || !onFloors(rel) {
				continue
			}
			j, known := on[rel]
			if !known {
				continue // reported as a package on no floor
			}
			if !mayImport(floors, i, j, rel) {
				problems = append(problems, fmt.Sprintf("%s (%s) imports %s (%s), which its floor may not (it may import: %s). Move the code that needs it, or, if the floors are wrong, change the table in %s",
					p.rel, floors[i].name, rel, floors[j].name, floors[i].says(), architectureDoc))
			}
		}
	}
	return problems
}

// mayImport says whether a package on floors[i] may import pkg, which is on floors[j].
func mayImport(floors []floor, i, j int, pkg string) bool {
	f := floors[i]
	return (f.anyBelow && j > i) || slices.Contains(f.floors, floors[j].name) || slices.Contains(f.allowed, pkg)
}

func (f floor) says() string {
	var parts []string
	if f.anyBelow {
		parts = append(parts, "every floor below")
	}
	for _, n := range f.floors {
		parts = append(parts, n)
	}
	for _, p := range f.allowed {
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "nothing of ours"
	}
	return strings.Join(parts, ", ")
}

// onFloors says whether a package of the module must be on a floor.
func onFloors(rel string) bool {
	return strings.HasPrefix(rel, "internal/") || strings.HasPrefix(rel, "cmd/")
}

// shortName is how the table writes a package: inside internal/, or in full.
func shortName(rel string) string {
	if s, ok := strings.CutPrefix(rel, "internal/"); ok {
		return s
	}
	return rel
}

// longName is the package a name of the table stands for.
func longName(name string) string {
	if strings.HasPrefix(name, "cmd/") || strings.HasPrefix(name, "internal/") {
		return name
	}
	return "internal/" + name
}

// parseFloors reads the floors table of doc, with one message per thing it cannot read.
func parseFloors(doc string) ([]floor, []string) {
	_, section, ok := strings.Cut(doc, "\n## The floors\n")
	if !ok {
		return nil, []string{architectureDoc + ` has no "## The floors" section: put the floors table back`}
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows [][]string
	for _, line := range strings.Split(section, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break // the first table only
			}
			continue
		}
		rows = append(rows, splitRow(line))
	}
	if len(rows) < 3 {
		return nil, []string{architectureDoc + `'s "## The floors" has no table with a header and rows`}
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.ToLower(h)] = i
	}
	for _, h := range []string{"floor", "packages", "may import"} {
		if _, ok := col[h]; !ok {
			return nil, []string{fmt.Sprintf("%s's floors table has no %q column: its columns are floor, packages and may import", architectureDoc, h)}
		}
	}
	var floors []floor
	var problems []string
	names := map[string]bool{}
	for _, r := range rows[2:] {
		if len(r) != len(rows[0]) {
			problems = append(problems, fmt.Sprintf("%s's floors table has a row with %d cells, not %d: %q", architectureDoc, len(r), len(rows[0]), strings.Join(r, " | ")))
			continue
		}
		f := floor{name: r[col["floor"]]}
		names[f.name] = true
		pkgs, bad := packageNames(r[col["packages"]])
		if bad != "" {
			problems = append(problems, fmt.Sprintf("%s's floors table, floor %q: cannot read %q in its packages; write packages in backticks, separated by commas, each described in parentheses", architectureDoc, f.name, bad))
		}
		for _, p := range pkgs {
			f.pkgs = append(f.pkgs, longName(p))
		}
		for _, item := range importItems(r[col["may import"]]) {
			switch {
			case item == "every floor below":
				f.anyBelow = true
			case item == "its own floor":
				f.floors = append(f.floors, f.name)
			case item == "nothing of ours":
			case strings.HasPrefix(item, "`") && strings.HasSuffix(item, "`") && strings.Count(item, "`") == 2:
				f.allowed = append(f.allowed, longName(strings.Trim(item, "`")))
			default:
				f.floors = append(f.floors, item) // a floor's name, checked below
			}
		}
		floors = append(floors, f)
	}
	for _, f := range floors {
		for _, n := range f.floors {
			if !names[n] {
				problems = append(problems, fmt.Sprintf("%s's floors table, floor %q may import %q, which is no floor's name: write floors by their name in the first column, \"its own floor\", \"every floor below\", \"nothing of ours\" or a package in backticks", architectureDoc, f.name, n))
			}
		}
	}
	return floors, problems
}

// splitRow returns the trimmed cells of a Markdown table row.
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	cells := strings.Split(line, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}

// outsideParens drops the text in parentheses, nested ones included.
func outsideParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// packageNames reads a packages cell: backticked names separated by commas. It returns
// the first piece it cannot read, if any.
func packageNames(cell string) (names []string, bad string) {
	for _, item := range strings.Split(outsideParens(cell), ",") {
		item = strings.TrimSpace(item)
		name, ok := strings.CutPrefix(item, "`")
		if ok {
			name, ok = strings.CutSuffix(name, "`")
		}
		if !ok || name == "" || strings.ContainsAny(name, "` ") {
			if bad == "" {
				bad = item
			}
			continue
		}
		names = append(names, name)
	}
	return names, bad
}

// importItems splits a may-import cell into its items.
func importItems(cell string) []string {
	var items []string
	for _, part := range strings.Split(outsideParens(cell), ",") {
		for _, item := range strings.Split(" "+strings.TrimSpace(part), " and ") {
			if item = strings.TrimSpace(item); item != "" {
				items = append(items, item)
			}
		}
	}
	return items
}
