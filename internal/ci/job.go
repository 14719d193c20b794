package ci

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/deps"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
	"github.com/dixit-bot/dixit/internal/ci/tripwire"
)

// execute builds a prepared job once, then runs it up to reruns times in one sandbox,
// stopping at the first run that exits non-zero. A run that exits 0 passes only when
// its runner's report proves it (unless the contract names no report).
func (l *Local) execute(ctx context.Context, j deps.JobDir, lane sandbox.Lane, reruns int, plan jobPlan) (Verdict, error) {
	c, p := l.contract, plan.Placement
	// Read before the build, which may run code of the coder's.
	ev, err := l.evidence(j.Dir, plan)
	if err != nil {
		return Verdict{}, err
	}
	if v, built, err := l.build(ctx, j, lane, p); err != nil || !built {
		return v, err
	}
	inv := j.Invocation(lane, false)
	inv.Script, inv.Runs, inv.Timeout = p.Expand(plan.command(c.Run)), reruns, c.Timeout
	inv.Armed = plan.exitMap()
	if plan.twins() {
		inv.FirstRun = 2 * c.Timeout
	}
	var reports sandbox.Reports
	if ev != nil {
		reports = ev
	}
	res, err := l.sb.Judged(ctx, inv, reports)
	if err != nil {
		return Verdict{}, fmt.Errorf("runs: %w", err)
	}
	res.Output = tripwire.Scrub(res.Output, plan.wires)
	runs := min(res.Starts, reruns) // a test can forge extra start reports
	v := Verdict{Outcome: Pass, Runs: runs}
	switch {
	case plan.armed() && res.Exit == tamperedExit && res.Ends > 0 && !res.TimedOut && !res.Flooded:
		v.Outcome, v.Output = exitedZero(res.Output, ev, plan, runs, reruns)
	case res.Stopped || !res.Passed(reruns):
		v = l.failedRuns(res, ev, plan, reruns)
	case ev == nil:
		v.Output = sandbox.Clip(nil, exitOnlyNote, MaxOutput)
	default:
		if run, problem := ev.firstProblem(reruns); problem != "" {
			status := "exit status 0 but "
			if plan.armed() {
				status = "" // the runner exits non-zero on every run: a wire fails
			}
			v.Outcome, v.Output = reportVerdict(res.Output, status, run, reruns, problem)
		} else if len(plan.selected) > 0 {
			// Say which tests passed: a diff's proposal is those tests, not its file.
			v.Output = sandbox.Clip(nil, "ran only the tests the proposal's diff adds or changes, each reported passed in every run: "+
				strings.Join(plan.selected, ", "), MaxOutput)
		}
	}
	return v, nil
}

// exitedZero is the verdict of an armed run whose runner exited 0, which it cannot
// honestly do with a wire that must fail: tampered, in the words of the report's own
// evidence of it when there is some.
func exitedZero(output []byte, ev *evidence, plan jobPlan, runs, reruns int) (Outcome, string) {
	if run, problem := ev.firstProblem(reruns); strings.HasPrefix(problem, tamperedPrefix) {
		return reportVerdict(output, "", run, reruns, problem)
	}
	return Tampered, sandbox.Clip(output, fmt.Sprintf("run %d of %d: tampered: the test process exited 0 though a check of the judge's own in it must fail: "+
		"something in the process ended it early or rewrote its result", runs, reruns), MaxOutput)
}

// failedRuns is the verdict of runs that did not all pass: stopped when a run's report
// showed it failed, or ended by a non-zero exit status or a limit. A limit says why it
// failed; otherwise the report, when there is one, says what failed, whichever of the
// report and the exit status the judge happened to see first.
func (l *Local) failedRuns(res sandbox.Result, ev *evidence, plan jobPlan, reruns int) Verdict {
	runs := min(res.Starts, reruns)
	o, note := l.sb.Outcome(res, l.contract.Timeout, false)
	if ev != nil && res.Ends > 0 && (o == Fail || res.Stopped && res.Exit == 0) {
		if run, problem := ev.firstProblem(reruns); problem != "" {
			output := res.Output
			if out, ok := res.ByRun[run]; ok { // the runs after it may have gone on meanwhile
				output = tripwire.Scrub(out, plan.wires)
			}
			status := "" // an armed runner exits non-zero on every run: a wire fails
			switch {
			case res.Exit != 0 && !res.Stopped:
				status = fmt.Sprintf("exit status %d: ", res.Exit)
			case res.Exit == 0 && !plan.armed():
				status = "exit status 0 but "
			}
			outcome, text := reportVerdict(output, status, run, reruns, problem)
			return Verdict{Outcome: outcome, Runs: run, Output: text}
		}
	}
	return Verdict{Outcome: o, Runs: runs, Output: sandbox.Clip(res.Output, fmt.Sprintf("run %d of %d: %s", runs, reruns, note), MaxOutput)}
}

// reportVerdict is the verdict of a run whose report proves no pass: Tampered when the
// judge's own checks say the report is not the runner's account, else Fail, its note
// after status (what the exit status said, or "").
func reportVerdict(output []byte, status string, run, reruns int, problem string) (Outcome, string) {
	if why, ok := strings.CutPrefix(problem, tamperedPrefix); ok {
		return Tampered, sandbox.Clip(output, fmt.Sprintf("run %d of %d: tampered: %s", run, reruns, why), MaxOutput)
	}
	return Fail, sandbox.Clip(output, fmt.Sprintf("run %d of %d: %s%s", run, reruns, status, problem), MaxOutput)
}

// build runs the contract's build command, when it has one, and says whether the job
// built; when it did not, the verdict says why.
func (l *Local) build(ctx context.Context, j deps.JobDir, lane sandbox.Lane, p contract.Placement) (Verdict, bool, error) {
	c := l.contract
	if c.Build == "" {
		return Verdict{}, true, nil
	}
	inv := j.Invocation(lane, true)
	inv.Script, inv.Runs, inv.Timeout = p.Expand(c.Build), 1, c.BuildTimeout
	res, err := l.sb.Execute(ctx, inv)
	if err != nil {
		return Verdict{}, false, fmt.Errorf("build: %w", err)
	}
	if res.Passed(1) {
		return Verdict{}, true, nil
	}
	o, note := l.sb.Outcome(res, c.BuildTimeout, true)
	if o != OverLimit && fileTooLarge(res.Output) {
		// A compiler or linker hit RLIMIT_FSIZE (Go's runtime ignores SIGXFSZ, so it
		// sees EFBIG): the toolchain reports it, the build's exit status does not.
		o, note = OverLimit, fmt.Sprintf("a build step wrote a file larger than %d bytes", l.sb.Limits().BuildFile)
	}
	if o != OverLimit {
		o = BuildFailed
	}
	return Verdict{Outcome: o, Output: sandbox.Clip(res.Output, "build: "+note, MaxOutput)}, false, nil
}

// evidence is what the runs of a prepared job must report, or nil when the contract
// names no report. The tests' names come from the placed test file, as the judge wrote
// it, before anything has run in the job's directory.
func (l *Local) evidence(dir string, plan jobPlan) (*evidence, error) {
	rel, wires := plan.Rel, plan.wires
	c := l.contract
	if !c.Proven() {
		return nil, nil
	}
	root, err := os.OpenRoot(filepath.Join(dir, "src"))
	if err != nil {
		return nil, fmt.Errorf("read the placed test: %w", err)
	}
	defer root.Close()
	content, err := root.ReadFile(rel)
	if err != nil {
		return nil, fmt.Errorf("read the placed test: %w", err)
	}
	e := expect(c, rel, content)
	e.wires = wires
	if len(plan.selected) > 0 { // only those run: the file's other tests are not expected
		e.names, e.selected = nil, selectedTests(plan.selected)
	}
	if len(wires) > 0 { // the placed file holds the wires: they are not the proposal's tests
		names := e.names[:0:0]
		for _, n := range e.names {
			if !slices.ContainsFunc(wires, func(w tripwire.Wire) bool { return w.Name == n }) {
				names = append(names, n)
			}
		}
		e.names = names
	}
	return newEvidence(c, e), nil
}

// fileTooLarge reports whether build output says a step hit the file size limit.
func fileTooLarge(output []byte) bool {
	return bytes.Contains(output, []byte("file too large")) || bytes.Contains(output, []byte("file size limit exceeded"))
}
