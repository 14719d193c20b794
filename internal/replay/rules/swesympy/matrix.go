package swesympy

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay/rules"
)

// matrix turns one checked wireMatrix into an instance.
type matrix struct {
	w     *wireMatrix
	opts  Options
	notes *Notes
	id    string
}

// Row names that are not coders.
const (
	rowBase = "base"
	rowGold = "gold"
)

// errLeftOut marks an instance whose labels cannot be trusted: left out, and said so.
var errLeftOut = errors.New("instance left out")

func (m matrix) instance() (rules.Instance, error) {
	tests, kept, err := m.tests()
	if err != nil {
		return rules.Instance{}, err
	}
	if err := m.checkRows(len(tests)); err != nil {
		return rules.Instance{}, err
	}
	rows := *m.w.Rows
	in := rules.Instance{ID: m.id}
	for _, t := range kept {
		wt := tests[t]
		in.Tests = append(in.Tests, rules.Test{Name: *wt.Name, Source: *wt.Source,
			Gold: cellOf(rows[rowGold][t]), Base: cellOf(rows[rowBase][t])})
		m.notes.GoldEnv += one(rows[rowGold][t] == cellEnv)
		m.notes.BaseEnv += one(rows[rowBase][t] == cellEnv)
	}
	pool, err := m.pool()
	if err != nil {
		return rules.Instance{}, err
	}
	for _, c := range pool {
		in.Coders = append(in.Coders, rules.Coder{Name: *c.Name, Source: *c.Source, Resolved: *c.Resolved, Group: *c.PatchSHA256})
		m.notes.Resolved += one(*c.Resolved)
		cells := make([]rules.Cell, len(kept))
		for i, t := range kept {
			cells[i] = cellOf(rows[*c.Name][t])
			m.notes.EnvCells += one(cells[i] == rules.Env)
		}
		in.Cells = append(in.Cells, cells)
	}
	if err := m.checkEnvCells(); err != nil {
		return rules.Instance{}, err
	}
	if why := m.untrusted(); why != "" {
		m.notes.InstancesLeftOut = append(m.notes.InstancesLeftOut, m.id+": "+why)
		return rules.Instance{ID: m.id}, errLeftOut
	}
	for _, n := range m.w.Notes {
		m.notes.FileNotes = append(m.notes.FileNotes, m.id+": "+n)
	}
	m.notes.Instances++
	m.notes.Tests += len(tests)
	m.notes.Kept += len(kept)
	m.notes.Pool += len(pool)
	return in, nil
}

// tests checks every test and returns them with the indices of those that enter the
// instance: runnable ones, and unless asked otherwise, not a duplicate of an earlier one.
func (m matrix) tests() ([]wireTest, []int, error) {
	tests := *m.w.Tests
	index := map[string]int{}
	var kept []int
	for i, t := range tests {
		switch {
		case t.Name == nil || *t.Name == "":
			return nil, nil, fmt.Errorf("tests[%d].name missing or empty", i)
		case t.Source == nil || *t.Source == "":
			return nil, nil, fmt.Errorf("tests[%d] (%s).source missing or empty", i, *t.Name)
		case t.Runnable == nil:
			return nil, nil, fmt.Errorf("tests[%d] (%s).runnable missing", i, *t.Name)
		}
		if j, dup := index[*t.Name]; dup {
			return nil, nil, fmt.Errorf("tests[%d].name %s is also tests[%d]'s", i, *t.Name, j)
		}
		if t.DuplicateOf != "" {
			if _, ok := index[t.DuplicateOf]; !ok {
				return nil, nil, fmt.Errorf("tests[%d] (%s).duplicate_of names %s, which is no earlier test", i, *t.Name, t.DuplicateOf)
			}
		}
		index[*t.Name] = i
		switch {
		case !*t.Runnable:
			m.notes.NotRunnable++
		case t.DuplicateOf != "" && m.opts.DropDuplicateTests:
			m.notes.DuplicateTests++
			m.notes.DuplicatesDropped++
		default:
			m.notes.DuplicateTests += one(t.DuplicateOf != "")
			kept = append(kept, i)
		}
	}
	return tests, kept, nil
}

// checkRows wants a row for the base, the gold and every coder, nothing else, each with
// one known cell per test.
func (m matrix) checkRows(tests int) error {
	rows := *m.w.Rows
	want := map[string]bool{rowBase: true, rowGold: true}
	for i, c := range *m.w.Coders {
		if c.Name == nil || *c.Name == "" {
			return fmt.Errorf("coders[%d].name missing or empty", i)
		}
		if want[*c.Name] {
			return fmt.Errorf("coders[%d].name %s is taken (by another coder, or a control row)", i, *c.Name)
		}
		want[*c.Name] = true
	}
	for name := range want {
		if _, ok := rows[name]; !ok {
			return fmt.Errorf("rows has no row %q", name)
		}
	}
	for name, row := range rows {
		if !want[name] {
			return fmt.Errorf("rows.%s: no coder of that name", name)
		}
		if len(row) != tests {
			return fmt.Errorf("rows.%s has %d cells for %d tests", name, len(row), tests)
		}
		for t, v := range row {
			if v != cellPass && v != cellFail && v != cellEnv {
				return fmt.Errorf("rows.%s[%d] is %q: want pass, fail or env", name, t, v)
			}
		}
	}
	return nil
}

// checkEnvCells wants every listed environment failure to name a tree of the file.
func (m matrix) checkEnvCells() error {
	rows := *m.w.Rows
	for i, e := range *m.w.EnvCells {
		if _, ok := rows[e.Tree]; !ok {
			return fmt.Errorf("env_cells[%d].tree %q is no row of the file", i, e.Tree)
		}
		m.notes.ListedEnvCells++
	}
	for i, e := range *m.w.LabelEnv {
		if _, ok := rows[e.Tree]; !ok {
			return fmt.Errorf("label_env[%d].tree %q is no row of the file", i, e.Tree)
		}
	}
	return nil
}

// untrusted says why the instance's labels cannot be trusted, if they cannot: SWE-bench's
// labels mean something only where the gold patch passes every label test and every
// FAIL_TO_PASS test fails on the base.
func (m matrix) untrusted() string {
	lc := m.w.LabelCheck
	var why []string
	if !*lc.GoldPasses {
		why = append(why, "the gold patch does not pass its own tests ("+strings.Join(lc.GoldFailures, ", ")+")")
	}
	if !*lc.F2PFailOnBase {
		why = append(why, "FAIL_TO_PASS tests pass on the base ("+strings.Join(lc.F2PPassOnBase, ", ")+")")
	}
	return strings.Join(why, "; ")
}

// unlabelled are the trees whose label the environment kept from being computed.
func (m matrix) unlabelled() map[string]bool {
	out := map[string]bool{}
	for _, e := range *m.w.LabelEnv {
		out[e.Tree] = true
	}
	return out
}

func cellOf(s string) rules.Cell {
	switch s {
	case cellPass:
		return rules.Pass
	case cellFail:
		return rules.Fail
	}
	return rules.Env
}

func one(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isArray says whether raw is absent, null or a JSON array.
func isArray(raw []byte) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || bytes.Equal(raw, []byte("null")) || raw[0] == '['
}
