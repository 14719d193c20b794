package swebench

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// Runner makes the pass matrices of a corpus' instances.
type Runner struct {
	corpus *Corpus
	bases  *Bases
	opts   Options
	python string // versions, asked once
	pytest string
	gold   map[string]goldCheck // the corpus' goldcheck.json, when it has one
}

// NewRunner checks the interpreter and opens the corpus' bases.
func NewRunner(c *Corpus, opts Options) (*Runner, error) {
	opts = opts.withDefaults()
	py, pt, err := pythonVersions(opts.Python)
	if err != nil {
		return nil, err
	}
	bases, err := OpenBases(filepath.Join(c.Dir, "bases.git"))
	if err != nil {
		return nil, err
	}
	gold, err := loadGoldcheck(filepath.Join(c.Dir, "goldcheck.json"))
	if err != nil {
		return nil, err
	}
	return &Runner{corpus: c, bases: bases, opts: opts, python: py, pytest: pt, gold: gold}, nil
}

// session is one pytest session to run: a tree and the units it selects.
type session struct {
	row   string // "base", "gold" or a coder's name
	tree  *Tree
	units []unit
}

// unit is what a session selects and answers for as one: a label test, or a test
// patch's touched functions.
type unit struct {
	label bool
	index int // into layout.labels or layout.tests
	ids   []string
}

func (u unit) key() string {
	if u.label {
		return fmt.Sprintf("L%d", u.index)
	}
	return fmt.Sprintf("T%d", u.index)
}

// raw is a unit's outcome in a session, before it becomes a cell.
type raw struct {
	state  string // pass, fail, collect (a selected file did not import), missing, nosession
	reason string
}

// instanceRun is the state of one instance's matrix while it is made.
type instanceRun struct {
	r         *Runner
	inst      *Instance
	base      *Tree
	lay       *layout
	results   map[string]map[string]raw // row → unit key → outcome
	notes     []string
	nsessions int
}

// Instance makes one instance's matrix.
func (r *Runner) Instance(ctx context.Context, inst *Instance) (*Matrix, error) {
	start := time.Now()
	if err := r.corpus.LoadPatches(inst); err != nil {
		return nil, err
	}
	coders := inst.Coders
	if n := r.opts.MaxCoders; n > 0 && n < len(coders) {
		coders = keepCoders(coders, coders[:n])
	}
	if len(r.opts.Coders) > 0 {
		var named []Coder
		for _, cd := range coders {
			if slices.Contains(r.opts.Coders, cd.Name) {
				named = append(named, cd)
			}
		}
		coders = keepCoders(coders, named)
	}
	base, err := r.bases.Base(inst)
	if err != nil {
		return nil, err
	}
	// The coders' trees, each run once: a coder whose tree is an earlier coder's (an
	// exact duplicate, whether or not its duplicate_of says so) gets that coder's row.
	type coderTree struct {
		tree    *Tree
		err     error
		sha     string
		sameAs  string // the earlier coder with the same tree
		dupNote string
	}
	trees := map[string]*coderTree{}
	avoid := map[string]bool{}
	byHash := map[string]string{}
	for _, cd := range coders {
		ct := &coderTree{}
		trees[cd.Name] = ct
		name := "coders/" + inst.ID + "/" + cd.Name + ".diff"
		p, err := ParsePatch(name, cd.Diff)
		if err != nil {
			ct.err, ct.sha = err, sha256Hex(cd.Diff)
			continue
		}
		ct.sha = sha256Hex([]byte(p.Normalised()))
		changes, err := p.Apply(base, FuzzNone)
		if err != nil {
			ct.err = err
			continue
		}
		for f := range changes {
			avoid[f] = true
		}
		ct.tree = base.with(changes)
		if first, ok := byHash[ct.tree.Hash()]; ok {
			ct.sameAs = first
		} else {
			byHash[ct.tree.Hash()] = cd.Name
		}
	}
	for _, cd := range coders {
		if cd.DuplicateOf == "" {
			continue
		}
		if o := trees[cd.DuplicateOf]; o != nil && o.sha != trees[cd.Name].sha {
			trees[cd.Name].dupNote = fmt.Sprintf("coder %s is recorded as a duplicate of %s, but their normalised patches differ", cd.Name, cd.DuplicateOf)
		}
	}
	lay, err := planLayout(inst, base, avoid)
	if err != nil {
		return nil, fmt.Errorf("instance %s: %w", inst.ID, err)
	}
	run := &instanceRun{r: r, inst: inst, base: base, lay: lay, results: map[string]map[string]raw{}}

	// Phase 1: the controls, with a generous bound, which then sets the coders'.
	gold, err := ParsePatch(inst.ID+" gold_patch", []byte(inst.GoldPatch))
	if err != nil {
		return nil, err
	}
	goldChanges, err := gold.Apply(base, FuzzNone)
	if err != nil {
		return nil, fmt.Errorf("instance %s: the gold patch does not apply to the base: %w", inst.ID, err)
	}
	controls := append(run.sessions("base", base), run.sessions("gold", base.with(goldChanges))...)
	// A test that hangs on the base (the issue may be that hang) fails at 5 minutes.
	isolation, secs, err := run.execute(ctx, controls, 30*time.Minute, limits{cpu: 5 * time.Minute, wall: 10 * time.Minute})
	if err != nil {
		return nil, err
	}
	lim := r.opts.testLimits(time.Duration(secs*float64(time.Second)), len(controls[0].units))
	r.opts.Progress(fmt.Sprintf("%s: base and gold in %.1f s; %d coders, %d tests; a test on a coder's tree stops at %s of CPU or %s, a session at %s",
		inst.ID, secs, len(coders), len(inst.Tests), lim.cpu.Round(time.Second), lim.wall.Round(time.Second), lim.session.Round(time.Second)))

	// Phase 2: each distinct coder tree.
	var work []session
	for _, cd := range coders {
		ct := trees[cd.Name]
		if ct.tree == nil || ct.sameAs != "" {
			continue
		}
		work = append(work, run.sessions(cd.Name, ct.tree)...)
	}
	if len(work) > 0 {
		if _, _, err := run.execute(ctx, work, lim.session, lim); err != nil {
			return nil, err
		}
	}

	m := &Matrix{
		InstanceID: inst.ID, Version: inst.Version,
		Env:    Env{Python: r.python, Pytest: r.pytest, Isolation: isolation, Addopts: PytestAddopts},
		Rows:   map[string][]string{},
		Format: FormatVersion, EnvCells: []EnvCell{}, LabelEnv: []EnvCell{},
	}
	for k, t := range inst.Tests {
		tp := lay.tests[k]
		col := TestColumn{Name: t.Name, Source: testSource(t), Model: t.Model, Functions: t.TouchedTests,
			DuplicateOf: t.DuplicateOf, Runnable: tp.mode != modeNone}
		if col.Functions == nil {
			col.Functions = []string{}
		}
		if tp.mode == modeNone {
			col.Reason = tp.reason
		} else if tp.mode == modeDirect {
			col.Reason = "run in a session of its own: " + tp.reason
		}
		m.Tests = append(m.Tests, col)
	}
	m.Rows["base"] = run.row(m, "base")
	m.Rows["gold"] = run.row(m, "gold")
	m.LabelCheck = run.labelCheck(m)
	for _, cd := range coders {
		ct := trees[cd.Name]
		row := CoderRow{Name: cd.Name, Source: cd.Source, ResolvedOnlySource: cd.ResolvedOnlySource,
			DuplicateOf: cd.DuplicateOf, PatchSHA256: ct.sha, Applies: ct.err == nil, PublishedLabel: cd.PublishedLabel,
			LabelFailures: []string{}}
		if ct.dupNote != "" {
			run.notes = append(run.notes, ct.dupNote)
		}
		if ct.err != nil {
			row.ApplyError = ct.err.Error()
			for _, lt := range lay.labels {
				row.LabelFailures = append(row.LabelFailures, lt.name)
			}
			cells := make([]string, len(inst.Tests))
			for k := range cells {
				cells[k] = CellFail // a patch that does not apply fails every test
				if lay.tests[k].mode == modeNone {
					cells[k] = CellEnv
					m.EnvCells = append(m.EnvCells, EnvCell{Tree: cd.Name, Test: inst.Tests[k].Name, Reason: "not runnable: " + lay.tests[k].reason})
				}
			}
			m.Rows[cd.Name] = cells
			m.Coders = append(m.Coders, row)
			continue
		}
		from := cd.Name
		if ct.sameAs != "" {
			from = ct.sameAs
		}
		m.Rows[cd.Name] = run.row(m, from, cd.Name)
		row.LabelFailures = run.labelFailures(m, from, cd.Name)
		row.Resolved = len(row.LabelFailures) == 0
		m.Coders = append(m.Coders, row)
	}
	run.published(m)
	seen := map[string]bool{}
	for _, n := range run.notes {
		if !seen[n] {
			seen[n] = true
			m.Notes = append(m.Notes, n)
		}
	}
	m.Sessions = run.nsessions
	m.Env.Seconds = round1(time.Since(start).Seconds())
	return m, nil
}

// keepCoders keeps the coders of some and the originals their duplicates name, in
// the order of all.
func keepCoders(all, some []Coder) []Coder {
	keep := map[string]bool{}
	for _, cd := range some {
		keep[cd.Name] = true
		if cd.DuplicateOf != "" {
			keep[cd.DuplicateOf] = true
		}
	}
	var out []Coder
	for _, cd := range all {
		if keep[cd.Name] {
			out = append(out, cd)
		}
	}
	return out
}

// testSource is a test patch's family: the pipeline without its variant for ITL
// ("itl-gpt4o-full" → "itl-gpt4o"), the recorded source otherwise.
func testSource(t TestPatch) string {
	if strings.HasPrefix(t.Name, "itl-") {
		if parts := strings.SplitN(t.Name, "-", 3); len(parts) == 3 {
			return parts[0] + "-" + parts[1]
		}
	}
	return t.Source
}

// sessions lists the sessions of one tree: the shared one (label tests and the test
// patches laid beside the originals) and one per test patch applied directly.
func (run *instanceRun) sessions(row string, tree *Tree) []session {
	shared := session{row: row, tree: tree.with(run.lay.overlay)}
	for i, lt := range run.lay.labels {
		if len(lt.ids) > 0 {
			shared.units = append(shared.units, unit{label: true, index: i, ids: lt.ids})
		}
	}
	out := []session{}
	for k, tp := range run.lay.tests {
		switch tp.mode {
		case modeCopy:
			shared.units = append(shared.units, unit{index: k, ids: tp.ids})
		case modeDirect:
			t := shared.tree
			reset := map[string]*file{}
			for _, f := range tp.patch.Targets() {
				if testFileRE.MatchString(f) {
					reset[f] = run.base.files[f]
				}
			}
			changes, err := tp.patch.Apply(t.with(reset), tp.fuzz)
			if err != nil {
				run.record(row, unit{index: k}, raw{state: "nosession", reason: "the test patch does not apply on this tree: " + err.Error()})
				continue
			}
			for p, f := range changes {
				reset[p] = f
			}
			out = append(out, session{row: row, tree: t.with(reset), units: []unit{{index: k, ids: tp.ids}}})
		}
	}
	return append([]session{shared}, out...)
}

func (run *instanceRun) record(row string, u unit, r raw) {
	run.r.opts.Logger.Debug("swebench: unit", "instance", run.inst.ID, "row", row, "unit", run.unitName(u), "state", r.state, "reason", r.reason)
	if run.results[row] == nil {
		run.results[row] = map[string]raw{}
	}
	run.results[row][u.key()] = r
}

// execute runs sessions with a judge whose sessions are bounded by bound, splitting a
// session that gave no report (it timed out, went over a limit, or pytest could not
// write its report) in two until each unit has an answer. It returns the judge's
// isolation and the longest session's seconds.
func (run *instanceRun) execute(ctx context.Context, pending []session, bound time.Duration, lim limits) (string, float64, error) {
	o := run.r.opts
	judge, err := ci.NewLocal(ci.LocalOptions{
		Contract: Contract(o.Python, bound, lim.cpu, lim.wall),
		Parallel: o.Parallel, Sandbox: o.Sandbox, WorkDir: o.WorkDir, Logger: o.Logger,
		Limits: sandbox.Limits{CPU: bound + 30*time.Second},
	})
	if err != nil {
		return "", 0, fmt.Errorf("judge: %w", err)
	}
	defer judge.Close()
	isolation := "none"
	if judge.Isolation() == "bwrap" {
		isolation = "bubblewrap"
	}
	longest := 0.0
	for len(pending) > 0 {
		var jobs []ci.SuiteJob
		var runnable []session
		for _, s := range pending {
			if len(s.units) == 0 {
				continue
			}
			// The session runs the units' files; the plugin keeps their ids.
			var ids []string
			files := map[string]bool{}
			for _, u := range s.units {
				ids = append(ids, u.ids...)
				for _, id := range u.ids {
					f, _, _ := strings.Cut(id, "::")
					files[f] = true
				}
			}
			sel := newFile([]byte(strings.Join(ids, "\n")+"\n"), false)
			tree := s.tree.with(map[string]*file{selectFile: sel})
			jobs = append(jobs, ci.SuiteJob{Coder: s.row, Tree: tree, Only: sortedSet(files)})
			runnable = append(runnable, s)
		}
		if len(jobs) == 0 {
			break
		}
		results, err := judge.RunSuite(ctx, 1, jobs)
		if err != nil {
			return "", 0, fmt.Errorf("instance %s: %w", run.inst.ID, err)
		}
		run.nsessions += len(jobs)
		pending = nil
		for i, res := range results {
			longest = max(longest, res.Seconds)
			pending = append(pending, run.absorb(runnable[i], res)...)
		}
	}
	return isolation, longest, nil
}

// absorb records a session's result and returns the sessions still to run.
func (run *instanceRun) absorb(s session, res ci.SuiteResult) []session {
	if res.Outcome == ci.Pass {
		idx := reportIndex(res)
		for _, u := range s.units {
			r := evalUnit(res, idx, u.ids)
			if r.state == "fail" && strings.Contains(r.reason, "DixitTestTimeout") {
				run.notes = append(run.notes, fmt.Sprintf("%s: %s failed at the per-test time limit: %s", s.row, run.unitName(u), r.reason))
			}
			run.record(s.row, u, r)
		}
		return nil
	}
	why := fmt.Sprintf("the session ended %s", res.Outcome)
	if line := sessionWhy(res.Output); line != "" {
		why += ": " + line
	}
	if res.Outcome == ci.PrepareFailed {
		for _, u := range s.units {
			run.record(s.row, u, raw{state: "nosession", reason: why})
		}
		return nil
	}
	// A coder's tree that does not import while the controls ran: the code's failure.
	if s.row != "base" && s.row != "gold" && strings.Contains(res.Output, "while loading conftest") && run.controlsRan() {
		for _, u := range s.units {
			run.record(s.row, u, raw{state: "fail", reason: "the tree does not import: " + why})
		}
		run.notes = append(run.notes, fmt.Sprintf("%s: pytest could not load the tree's conftest (the code does not import); every test fails", s.row))
		return nil
	}
	if len(s.units) > 1 {
		h := len(s.units) / 2
		return []session{
			{row: s.row, tree: s.tree, units: s.units[:h]},
			{row: s.row, tree: s.tree, units: s.units[h:]},
		}
	}
	run.record(s.row, s.units[0], raw{state: "nosession", reason: why})
	return nil
}

// controlsRan reports whether the base's and the gold patch's sessions reported.
func (run *instanceRun) controlsRan() bool {
	for _, row := range []string{"base", "gold"} {
		for _, r := range run.results[row] {
			if r.state == "nosession" {
				return false
			}
		}
		if len(run.results[row]) == 0 {
			return false
		}
	}
	return true
}

// reportIndex maps each reported node id without its parameters to the reported ids.
func reportIndex(res ci.SuiteResult) map[string][]string {
	idx := map[string][]string{}
	for id := range res.Tests {
		b := id
		if i := strings.IndexByte(id, '['); i >= 0 {
			b = id[:i]
		}
		idx[b] = append(idx[b], id)
	}
	return idx
}

// evalUnit reads a unit's outcome from a session's report: it passes when every node id
// it selects was reported, and every report of it passed or failed as its xfail mark
// expects; a definite failure of one id fails it.
func evalUnit(res ci.SuiteResult, idx map[string][]string, ids []string) raw {
	var collect, missing string
	for _, id := range ids {
		got := []string{}
		if strings.Contains(id, "[") {
			if _, ok := res.Tests[id]; ok {
				got = append(got, id)
			}
		} else {
			got = idx[id]
		}
		if len(got) == 0 {
			file, _, _ := strings.Cut(id, "::")
			if o, ok := res.Tests[file]; ok && o != ci.Pass {
				if collect == "" {
					collect = "collection error of " + file
					if m := res.Messages[file]; m != "" {
						collect += ": " + m
					}
				}
			} else if missing == "" {
				missing = id + " is not in pytest's report"
			}
			continue
		}
		slices.Sort(got)
		for _, g := range got {
			switch o := res.Tests[g]; o {
			case ci.Pass, ci.XFailed:
			default:
				why := g + " " + string(o)
				if m := res.Messages[g]; m != "" {
					why += ": " + m
				}
				return raw{state: "fail", reason: why}
			}
		}
	}
	switch {
	case collect != "":
		return raw{state: "collect", reason: collect}
	case missing != "":
		return raw{state: "missing", reason: missing}
	}
	return raw{state: "pass"}
}

// sessionWhy picks what a failed session's output says about why: pytest's line about
// a conftest it could not load, else the judge's own [dixit] note, else the last line.
func sessionWhy(out string) string {
	lines := strings.Split(out, "\n")
	pick := ""
	for _, line := range lines {
		if line = strings.TrimSpace(line); strings.Contains(line, "while loading conftest") {
			pick = line
			break
		}
	}
	for i := len(lines) - 1; i >= 0 && pick == ""; i-- {
		if line := strings.TrimSpace(lines[i]); strings.HasPrefix(line, "[dixit]") {
			pick = line
		}
	}
	for i := len(lines) - 1; i >= 0 && pick == ""; i-- {
		pick = strings.TrimSpace(lines[i])
	}
	if len(pick) > 300 {
		pick = pick[:300] + "…"
	}
	return pick
}

func round1(x float64) float64 { return float64(int64(x*10+0.5)) / 10 }
