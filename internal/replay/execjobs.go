package replay

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
)

// maxListed caps the disagreements the report lists; ByClass counts them all.
const maxListed = 1000

// environmentOutput marks a run the runner itself could not do: no pytest for the judge's
// python3, options it refused, its own crash.
var environmentOutput = regexp.MustCompile(`No module named '?pytest|error: unrecognized arguments|ERROR: usage|INTERNALERROR`)

// runBatches executes every program against all the problem's asserts: one job per
// program, and when a run stops early (a crash, the job's time limit), a new job for the
// asserts it did not reach, as the data set's runner re-forked after a crash.
func (e execution) runBatches(ctx context.Context, pi int, p *Problem, progs []program) ([][]cell, error) {
	rep := e.rep
	results := make([][]cell, len(progs))
	next := make([]int, len(progs)) // the first assert not yet known
	for g := range progs {
		results[g] = make([]cell, len(p.Tests))
	}
	for round := 0; ; round++ {
		var jobs []ci.Job
		var owners []int
		for g, prog := range progs {
			if next[g] < len(p.Tests) {
				jobs = append(jobs, ci.Job{Coder: p.Coders[prog.coders[0]].ID, Tree: memTree{prog.code},
					Test: ci.Test{ID: fmt.Sprintf("h%d_g%d_r%d", pi, g, round), Content: harness(assertsOf(p.Tests[next[g]:]))}})
				owners = append(owners, g)
			}
		}
		if len(jobs) == 0 {
			return results, nil
		}
		verdicts, err := e.opts.Judge.Run(ctx, 1, jobs)
		rep.Jobs += len(jobs)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			envFailure(rep, p.TaskID, err.Error())
			return results, nil // what is left stays unknown: the environment's, not a result
		}
		for j, v := range verdicts {
			g := owners[j]
			n := len(p.Tests) - next[g]
			cells := verdictCells(v, n)
			known := 0
			for known < n && cells[known] != cellUnknown {
				known++
			}
			copy(results[g][next[g]:], cells[:known])
			if slices.Contains(cells[:known], cellEnvironment) {
				envFailure(rep, fmt.Sprintf("%s %s", p.TaskID, p.Coders[progs[g].coders[0]].ID),
					"needs a module this python3 lacks (dixit-environment)")
			}
			next[g] += known
			if known > 0 || next[g] == len(p.Tests) {
				continue
			}
			// No assert reported: the runner could not run at all (environment: the rest of
			// this program's cells are not results), the first assert took the process past
			// the job's limit, or its output could not be read (that cell alone is lost).
			where := fmt.Sprintf("%s %s", p.TaskID, p.Coders[progs[g].coders[0]].ID)
			switch {
			case environmentOutput.MatchString(v.Output) || v.Outcome == ci.BuildFailed:
				envFailure(rep, where, v.Output)
				next[g] = len(p.Tests)
			case v.Outcome == ci.Timeout:
				results[g][next[g]] = cellTimeout
				next[g]++
			default:
				envFailure(rep, fmt.Sprintf("%s, test %s: no readable result", where, p.Tests[next[g]].ID), v.Output)
				next[g]++
			}
		}
	}
}

func assertsOf(tests []Test) []string {
	out := make([]string, len(tests))
	for i, t := range tests {
		out[i] = t.Code
	}
	return out
}

// verdictCells reads a job's per-assert results: all pass when the judge passed it, else
// the runner's progress characters.
func verdictCells(v ci.Verdict, n int) []cell {
	if v.Passed() {
		out := make([]cell, n)
		for i := range out {
			out[i] = cellPass
		}
		return out
	}
	return parseProgress(v.Output, n)
}

// pending is a cell whose first execution disagrees with the matrix.
type pending struct {
	prog, coder, test int
	first             cell
}

// confirm runs each disagreeing (program, assert) again as a job of its own, with the
// configured reruns, and classifies the disagreement by what it shows.
func (e execution) confirm(ctx context.Context, pi int, p *Problem, progs []program, ds []pending) error {
	opts, rep := e.opts, e.rep
	type key struct{ prog, test int }
	var jobs []ci.Job
	index := map[key]int{}
	for _, d := range ds {
		k := key{d.prog, d.test}
		if _, ok := index[k]; ok || rep.confirmed+len(jobs) >= opts.MaxConfirm {
			continue
		}
		index[k] = len(jobs)
		jobs = append(jobs, ci.Job{Coder: p.Coders[d.coder].ID, Tree: memTree{progs[d.prog].code},
			Test: ci.Test{ID: fmt.Sprintf("h%d_g%d_t%d", pi, d.prog, d.test), Content: harness([]string{p.Tests[d.test].Code})}})
	}
	var verdicts []ci.Verdict
	var judgeErr error
	if len(jobs) > 0 {
		verdicts, judgeErr = opts.Judge.Run(ctx, opts.Reruns, jobs)
		rep.Jobs += len(jobs)
		rep.confirmed += len(jobs)
		if judgeErr != nil && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	for _, d := range ds {
		dis := Disagreement{TaskID: p.TaskID, Coder: p.Coders[d.coder].ID, Test: p.Tests[d.test].ID,
			Assert: p.Tests[d.test].Code, Recorded: p.Pass[d.coder][d.test], First: d.first.String()}
		j, ok := index[key{d.prog, d.test}]
		switch {
		case !ok:
			dis.Class = ClassUnconfirmed
		case judgeErr != nil:
			dis.Class, dis.Confirm = ClassUnconfirmed, "the judge failed: "+judgeErr.Error()
		default:
			var again cell
			dis.Confirm, again, dis.Class = classify(verdicts[j], d.first, opts.Reruns)
			if n := p.Coders[d.coder].Timeouts; dis.Class == ClassStable && again == cellPass && !dis.Recorded && n > 0 {
				// The data set counts a coder's timed-out asserts, not which: a cell it
				// recorded failing that passes in time here is most likely one of them.
				dis.Class, dis.Confirm = ClassTimeout, fmt.Sprintf("%s (when recorded, this coder timed out on %d asserts)", dis.Confirm, n)
			}
			if again != cellUnknown && (again == cellPass) == dis.Recorded {
				rep.AgreeAfter++
			}
		}
		rep.ByClass[dis.Class]++
		if len(rep.Disagreements) < maxListed {
			rep.Disagreements = append(rep.Disagreements, dis)
		}
	}
	return nil
}

// classify reads a confirming job's verdict: what it says, the cell's result in it (unknown
// when it has none), and the class of the disagreement.
func classify(v ci.Verdict, first cell, reruns int) (string, cell, string) {
	switch {
	case v.Passed():
		if first == cellPass {
			return fmt.Sprintf("pass in all %d runs", reruns), cellPass, ClassStable
		}
		return fmt.Sprintf("pass in all %d runs", reruns), cellPass, changed(first)
	case v.Outcome == ci.Timeout:
		return "the job timed out", cellTimeout, ClassTimeout
	case v.Outcome != ci.Fail:
		return string(v.Outcome), cellUnknown, ClassEnvironment
	}
	// A timed-out assert is skipped and pytest exits 0, so the judge runs it again: only
	// a failure after passing runs is flaky.
	got := parseProgress(v.Output, 1)[0]
	switch {
	case got == cellUnknown:
		return "no result: " + lastLine(v.Output), cellUnknown, ClassEnvironment
	case got == cellEnvironment:
		return "needs a module this python3 lacks", cellUnknown, ClassEnvironment
	case got == cellTimeout:
		return "timeout", got, ClassTimeout
	case v.Runs > 1:
		return fmt.Sprintf("passed %d runs, then failed run %d of %d", v.Runs-1, v.Runs, reruns), cellFail, ClassFlaky
	case first == cellTimeout:
		return got.String(), got, ClassTimeout
	case got != first:
		return got.String(), got, ClassFlaky
	}
	return got.String(), got, ClassStable
}

// changed is the class when the confirming run passed but the first did not.
func changed(first cell) string {
	if first == cellTimeout {
		return ClassTimeout
	}
	return ClassFlaky
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}
