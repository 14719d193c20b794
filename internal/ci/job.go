package ci

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// execute builds a prepared job once, then runs it up to reruns times in one sandbox,
// stopping at the first run that exits non-zero. A run that exits 0 passes only when
// its runner's report proves it (unless the contract names no report).
func (l *Local) execute(ctx context.Context, j jobDir, sl slot, reruns int, p placement) (Verdict, error) {
	c := l.contract
	// Read before the build, which may run code of the coder's.
	ev, err := l.evidence(j.dir, p.rel)
	if err != nil {
		return Verdict{}, err
	}
	if c.Build != "" {
		inv := j.invocation(sl, true)
		inv.script, inv.runs, inv.timeout = p.expand(c.Build), 1, c.BuildTimeout
		res, err := l.sb.execute(ctx, inv)
		if err != nil {
			return Verdict{}, fmt.Errorf("build: %w", err)
		}
		if !res.passed(1) {
			o, note := l.outcome(res, c.BuildTimeout, true)
			if o != OverLimit && fileTooLarge(res.output) {
				// A compiler or linker hit RLIMIT_FSIZE (Go's runtime ignores SIGXFSZ, so it
				// sees EFBIG): the toolchain reports it, the build's exit status does not.
				o, note = OverLimit, fmt.Sprintf("a build step wrote a file larger than %d bytes", l.sb.limits.BuildFile)
			}
			if o != OverLimit {
				o = BuildFailed
			}
			return Verdict{Outcome: o, Output: clip(res.output, "build: "+note, MaxOutput)}, nil
		}
	}
	inv := j.invocation(sl, false)
	inv.script, inv.runs, inv.timeout = p.expand(c.Run), reruns, c.Timeout
	res, err := l.sb.judged(ctx, inv, ev)
	if err != nil {
		return Verdict{}, fmt.Errorf("runs: %w", err)
	}
	runs := min(res.starts, reruns) // a test can forge extra start reports
	v := Verdict{Outcome: Pass, Runs: runs}
	switch {
	case !res.passed(reruns):
		o, note := l.outcome(res, c.Timeout, false)
		v.Outcome = o
		v.Output = clip(res.output, fmt.Sprintf("run %d of %d: %s", runs, reruns, note), MaxOutput)
	case ev == nil:
		v.Output = clip(nil, exitOnlyNote, MaxOutput)
	default:
		if run, problem := ev.firstProblem(reruns); problem != "" {
			v.Outcome = Fail
			v.Output = clip(res.output, fmt.Sprintf("run %d of %d: exit status 0 but %s", run, reruns, problem), MaxOutput)
		}
	}
	return v, nil
}

// evidence is what the runs of a prepared job must report, or nil when the contract
// names no report. The tests' names come from the placed test file, as the judge wrote
// it, before anything has run in the job's directory.
func (l *Local) evidence(dir, rel string) (*evidence, error) {
	c := l.contract
	if !c.proven() {
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

// outcome classifies a build or runs that did not pass, and explains why.
func (l *Local) outcome(res result, timeout time.Duration, build bool) (Outcome, string) {
	switch {
	case res.timedOut:
		return Timeout, fmt.Sprintf("timed out after %s", timeout)
	case res.flooded:
		return OverLimit, fmt.Sprintf("output exceeded %d bytes", l.sb.limits.Output)
	case res.oomKilled && res.exit != 0:
		return OverLimit, fmt.Sprintf("killed for using more than %s of resident memory (test.memory in dixit.yml raises it)", FormatBytes(l.sb.memory.bytes))
	}
	if note := limitNote(res.exit, res.cpu, l.sb.phaseLimits(build)); note != "" {
		return OverLimit, note
	}
	if res.exit == 0 { // every finished run passed, yet not all ran: the sandbox broke off
		return Fail, fmt.Sprintf("the sandbox stopped after %d runs (exit %d)", res.ends, res.sandboxExit)
	}
	return Fail, fmt.Sprintf("exit status %d", res.exit)
}

// fileTooLarge reports whether build output says a step hit the file size limit.
func fileTooLarge(output []byte) bool {
	return bytes.Contains(output, []byte("file too large")) || bytes.Contains(output, []byte("file size limit exceeded"))
}
