package swebench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
)

// control reports whether a row is one of the controls, whose code is trusted: what
// keeps a control's test from an answer is the environment's doing.
func control(row string) bool { return row == "base" || row == "gold" }

// definite reports whether a unit's outcome on a row is an answer of its code.
func (run *instanceRun) definite(row string, u unit) bool {
	r, ok := run.results[row][u.key()]
	return ok && (r.state == "pass" || r.state == "fail" || r.state == "collect")
}

// cell turns a unit's raw outcome on the tree of row from into a cell of row name,
// with the reason of an env cell or a note for a failure without a report.
func (run *instanceRun) cell(from, name string, u unit) (string, string) {
	r, ok := run.results[from][u.key()]
	if !ok {
		return CellEnv, "the test did not run on this tree"
	}
	switch r.state {
	case "pass":
		return CellPass, ""
	case "fail":
		return CellFail, ""
	case "collect":
		// A label test file that does not import even with the gold patch is the
		// environment's problem; a test patch's file that does not import is its own.
		if u.label && run.results["gold"][u.key()].state == "collect" {
			return CellEnv, r.reason
		}
		return CellFail, ""
	case "nosession":
		if !control(from) && run.definite("base", u) && run.definite("gold", u) && !strings.HasPrefix(r.reason, "the test patch does not apply") {
			run.notes = append(run.notes, fmt.Sprintf("%s: %s fails without a report (the base and the gold patch answer it): %s", name, run.unitName(u), r.reason))
			return CellFail, ""
		}
		return CellEnv, r.reason
	}
	return CellEnv, r.reason // missing
}

func (run *instanceRun) unitName(u unit) string {
	if u.label {
		return run.lay.labels[u.index].name
	}
	return run.inst.Tests[u.index].Name
}

// row is the cells of the tree of row from, under the name name (default from).
func (run *instanceRun) row(m *Matrix, from string, name ...string) []string {
	n := from
	if len(name) > 0 {
		n = name[0]
	}
	cells := make([]string, len(run.lay.tests))
	for k, tp := range run.lay.tests {
		if tp.mode == modeNone {
			cells[k] = CellEnv
			m.EnvCells = append(m.EnvCells, EnvCell{Tree: n, Test: run.inst.Tests[k].Name, Reason: "not runnable: " + tp.reason})
			continue
		}
		c, why := run.cell(from, n, unit{index: k})
		cells[k] = c
		if c == CellEnv {
			m.EnvCells = append(m.EnvCells, EnvCell{Tree: n, Test: run.inst.Tests[k].Name, Reason: why})
		}
	}
	return cells
}

// labelFailures lists the label tests that do not pass on the tree of row from; the
// ones the environment kept from an answer go to m.LabelEnv too.
func (run *instanceRun) labelFailures(m *Matrix, from, name string) []string {
	out := []string{}
	for i, lt := range run.lay.labels {
		if len(lt.ids) == 0 {
			out = append(out, lt.name)
			m.LabelEnv = append(m.LabelEnv, EnvCell{Tree: name, Test: lt.name, Reason: "no test file of the instance defines it"})
			continue
		}
		c, why := run.cell(from, name, unit{label: true, index: i})
		if c != CellPass {
			out = append(out, lt.name)
		}
		if c == CellEnv {
			m.LabelEnv = append(m.LabelEnv, EnvCell{Tree: name, Test: lt.name, Reason: why})
		}
	}
	return out
}

// labelCheck checks the controls: every FAIL_TO_PASS test fails on the base, every
// label test passes with the gold patch, as the corpus' gold check says.
func (run *instanceRun) labelCheck(m *Matrix) LabelCheck {
	lc := LabelCheck{}
	baseFail := map[string]bool{}
	for _, n := range run.labelFailures(m, "base", "base") {
		baseFail[n] = true
	}
	goldFail := run.labelFailures(m, "gold", "gold")
	lc.F2PFailOnBase = true
	for _, lt := range run.lay.labels {
		if len(lt.ids) == 0 {
			lc.NamesNotFound = append(lc.NamesNotFound, lt.name)
		}
		switch {
		case lt.f2p && !baseFail[lt.name]:
			lc.F2PFailOnBase = false
			lc.F2PPassOnBase = append(lc.F2PPassOnBase, lt.name)
		case !lt.f2p && baseFail[lt.name]:
			lc.P2PFailOnBase = append(lc.P2PFailOnBase, lt.name)
		}
	}
	lc.GoldFailures = goldFail
	lc.GoldPasses = len(goldFail) == 0
	lc.Goldcheck = run.compareGoldcheck(lc, baseFail)
	if len(lc.GoldFailures) == 0 {
		lc.GoldFailures = nil
	}
	return lc
}

// published compares the labels with the ones the sources published.
func (run *instanceRun) published(m *Matrix) {
	lc := &m.LabelCheck
	lc.PublishedDisagr = []string{}
	for _, c := range m.Coders {
		if c.Resolved {
			lc.CodersResolved++
		}
		if c.PublishedLabel == "" {
			continue
		}
		lc.Published++
		here := "unresolved"
		if c.Resolved {
			here = "resolved"
		}
		if here == c.PublishedLabel {
			lc.PublishedAgree++
			continue
		}
		why := ""
		if len(c.LabelFailures) > 0 {
			why = " (" + strings.Join(c.LabelFailures[:min(len(c.LabelFailures), 5)], ", ") + ")"
		}
		lc.PublishedDisagr = append(lc.PublishedDisagr, fmt.Sprintf("%s: published %s, here %s%s", c.Name, c.PublishedLabel, here, why))
	}
}

// goldCheck is one instance of the corpus' goldcheck.json, as far as it is compared.
type goldCheck struct {
	F2P                map[string][]string `json:"f2p"`
	F2PFailBefore      bool                `json:"f2p_fail_before"`
	F2PPassAfter       bool                `json:"f2p_pass_after"`
	P2PNotPassingAfter map[string]any      `json:"p2p_not_passing_after"`
	P2PNotPassingBefor map[string]any      `json:"p2p_not_passing_before"`
	NamesNotFound      []string            `json:"names_not_found"`
}

func loadGoldcheck(file string) (map[string]goldCheck, error) {
	data, err := readCapped(file, 64<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m map[string]goldCheck
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not the expected JSON: %w", file, err)
	}
	return m, nil
}

// compareGoldcheck says whether the controls came out as the corpus' gold check says.
func (run *instanceRun) compareGoldcheck(lc LabelCheck, baseFail map[string]bool) string {
	gc, ok := run.r.gold[run.inst.ID]
	if !ok {
		return "absent"
	}
	var diffs []string
	if gc.F2PFailBefore != lc.F2PFailOnBase {
		diffs = append(diffs, fmt.Sprintf("every F2P fails on the base: goldcheck %v, here %v", gc.F2PFailBefore, lc.F2PFailOnBase))
	}
	goldAll := len(lc.GoldFailures) == 0
	if gcAll := gc.F2PPassAfter && len(gc.P2PNotPassingAfter) == 0; gcAll != goldAll {
		diffs = append(diffs, fmt.Sprintf("every label test passes with the gold patch: goldcheck %v, here %v", gcAll, goldAll))
	}
	gcBefore := slices.Sorted(maps.Keys(gc.P2PNotPassingBefor))
	hereBefore := slices.Clone(lc.P2PFailOnBase)
	slices.Sort(hereBefore)
	if !slices.Equal(gcBefore, hereBefore) {
		diffs = append(diffs, fmt.Sprintf("P2P not passing on the base: goldcheck %v, here %v", gcBefore, hereBefore))
	}
	for name, outcomes := range gc.F2P {
		if len(outcomes) == 2 {
			before := outcomes[0] == "PASSED" || outcomes[0] == "XFAIL"
			if before == !baseFail[name] {
				continue
			}
			diffs = append(diffs, fmt.Sprintf("F2P %s on the base: goldcheck %s, here %v", name, outcomes[0], !baseFail[name]))
		}
	}
	if len(diffs) == 0 {
		return "agrees"
	}
	slices.Sort(diffs)
	return "disagrees: " + strings.Join(diffs, "; ")
}
