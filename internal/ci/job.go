package ci

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/deps"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// execute builds a prepared job once, then runs it up to reruns times in one sandbox,
// stopping at the first run that exits non-zero. A run that exits 0 passes only when
// its runner's report proves it (unless the contract names no report).
func (l *Local) execute(ctx context.Context, j deps.JobDir, lane sandbox.Lane, reruns int, p contract.Placement) (Verdict, error) {
	c := l.contract
	// Read before the build, which may run code of the coder's.
	ev, err := l.evidence(j.Dir, p.Rel)
	if err != nil {
		return Verdict{}, err
	}
	if v, built, err := l.build(ctx, j, lane, p); err != nil || !built {
		return v, err
	}
	inv := j.Invocation(lane, false)
	inv.Script, inv.Runs, inv.Timeout = p.Expand(c.Run), reruns, c.Timeout
	var reports sandbox.Reports
	if ev != nil {
		reports = ev
	}
	res, err := l.sb.Judged(ctx, inv, reports)
	if err != nil {
		return Verdict{}, fmt.Errorf("runs: %w", err)
	}
	runs := min(res.Starts, reruns) // a test can forge extra start reports
	v := Verdict{Outcome: Pass, Runs: runs}
	switch {
	case !res.Passed(reruns):
		o, note := l.sb.Outcome(res, c.Timeout, false)
		v.Outcome = o
		v.Output = sandbox.Clip(res.Output, fmt.Sprintf("run %d of %d: %s", runs, reruns, note), MaxOutput)
	case ev == nil:
		v.Output = sandbox.Clip(nil, exitOnlyNote, MaxOutput)
	default:
		if run, problem := ev.firstProblem(reruns); problem != "" {
			v.Outcome = Fail
			v.Output = sandbox.Clip(res.Output, fmt.Sprintf("run %d of %d: exit status 0 but %s", run, reruns, problem), MaxOutput)
		}
	}
	return v, nil
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
func (l *Local) evidence(dir, rel string) (*evidence, error) {
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
	return newEvidence(c, expect(c, rel, content)), nil
}

// fileTooLarge reports whether build output says a step hit the file size limit.
func fileTooLarge(output []byte) bool {
	return bytes.Contains(output, []byte("file too large")) || bytes.Contains(output, []byte("file size limit exceeded"))
}
