package ci

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/deps"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// ObserveOutput caps Observation.Output: the first bytes of a probe's output are kept,
// since a probe's answers come in order and the earliest are the ones worth having.
const ObserveOutput = 1 << 20

// Observation is what one run of a probe printed. It is evidence for a human, never a
// verdict.
type Observation struct {
	Output  []byte  // stdout and stderr of the run, at most ObserveOutput bytes from the start
	Exit    int     // the run's exit status (128+n: killed by signal n); -1 when it never ran
	Note    string  // "" or why the output may be incomplete: build failed, timed out, ...
	Seconds float64 // wall time, build included
}

// Observe runs job.Test once as a probe: the tree is laid out and built as for a test,
// in the same sandbox, lanes and limits, then the contract's Probe command (Run when it
// is empty) runs once. Whatever the probe does is an Observation; the error is the
// judge's own failure (the sandbox did not start, the context ended). Observations are
// not verdicts: they are not cached and do not count in Stats, which describe the
// protocol's work.
func (l *Local) Observe(ctx context.Context, job Job) (Observation, error) {
	start := time.Now()
	if job.Tree == nil {
		return Observation{}, fmt.Errorf("observe %s: no tree", job.Coder)
	}
	p, err := contract.Place(l.contract, job.Test.ID, job.Test.Path)
	if err != nil {
		return Observation{}, fmt.Errorf("observe %s: %w", job.Coder, err)
	}
	lane, release, err := l.sb.Borrow(ctx)
	if err != nil {
		return Observation{}, err
	}
	defer release()

	dir, err := os.MkdirTemp(l.sb.WorkDir(), "observe-")
	if err != nil {
		return Observation{}, fmt.Errorf("observe %s: job dir: %w", job.Coder, err)
	}
	defer func() {
		if err := sandbox.RemoveJobDir(dir); err != nil {
			l.log.Warn("ci: cannot remove job directory", "dir", dir, "err", err)
		}
	}()
	if err := l.layOut(dir, job, p.Rel, lane); err != nil {
		return Observation{}, fmt.Errorf("observe %s: %w", job.Coder, err)
	}
	j, failure, err := l.deps.ForJob(ctx, dir, lane)
	if err != nil {
		return Observation{}, fmt.Errorf("observe %s: %w", job.Coder, err)
	}
	if failure != "" {
		return Observation{Exit: -1, Note: "prepare failed: " + failure}, nil
	}
	o, err := l.observe(ctx, j, lane, p)
	if err != nil {
		return Observation{}, fmt.Errorf("observe %s (probe %s): %w", job.Coder, job.Test.ID, err)
	}
	o.Seconds = time.Since(start).Seconds()
	l.log.Debug("ci: observation", "coder", job.Coder, "probe", job.Test.ID, "exit", o.Exit,
		"bytes", len(o.Output), "note", o.Note, "seconds", o.Seconds)
	return o, nil
}

// observe builds a prepared job and runs its probe once. The probe's output goes to a
// file in the tree rather than through the judge's pipe, which keeps only a tail: the
// file keeps the head, and the file size limit bounds it.
func (l *Local) observe(ctx context.Context, j deps.JobDir, lane sandbox.Lane, p contract.Placement) (Observation, error) {
	c := l.contract
	if c.Build != "" {
		inv := j.Invocation(lane, true)
		inv.Script, inv.Runs, inv.Timeout = p.Expand(c.Build), 1, c.BuildTimeout
		res, err := l.sb.Execute(ctx, inv)
		if err != nil {
			return Observation{}, fmt.Errorf("build: %w", err)
		}
		if !res.Passed(1) {
			_, note := l.sb.Outcome(res, c.BuildTimeout, true)
			return Observation{Exit: -1, Note: "build failed: " + note + "\n" + sandbox.Clip(res.Output, "", MaxOutput)}, nil
		}
	}
	name, err := outputName()
	if err != nil {
		return Observation{}, err
	}
	script := "exec >" + name + " 2>&1\n" + p.Expand(cmp.Or(c.Probe, c.Run))
	inv := j.Invocation(lane, false)
	inv.Script, inv.Runs, inv.Timeout = script, 1, c.Timeout
	res, err := l.sb.Execute(ctx, inv)
	if err != nil {
		return Observation{}, fmt.Errorf("probe run: %w", err)
	}
	o := Observation{Exit: res.Exit}
	var notes []string
	if !res.Passed(1) {
		_, note := l.sb.Outcome(res, c.Timeout, false)
		notes = append(notes, note)
	}
	out, cut, err := readHead(j.Dir, name, ObserveOutput)
	switch {
	case err != nil:
		notes = append(notes, fmt.Sprintf("output unreadable: %v", err))
	case cut:
		notes = append(notes, fmt.Sprintf("output cut at %d bytes", ObserveOutput))
	}
	o.Output, o.Note = out, strings.Join(notes, "; ")
	return o, nil
}

// outputName is an unpredictable file name for a probe's output, so it cannot collide
// with a file of the coder's tree.
func outputName() (string, error) {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("output name: %w", err)
	}
	return ".dixit-observe-" + hex.EncodeToString(b) + ".out", nil
}

// readHead reads at most max bytes of src/name under a job directory and says whether
// the file held more. The sandboxed code may have replaced the file, so this fails
// closed: os.Root keeps every step inside the job directory, the file must be a regular
// file that is not a symbolic link (a FIFO would block, a device could be anything), and
// the file opened must be the one checked, so a swap in between is caught.
func readHead(dir, name string, max int) ([]byte, bool, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, false, err
	}
	defer root.Close()
	rel := "src/" + name
	before, err := root.Lstat(rel)
	if err != nil {
		return nil, false, err
	}
	if !before.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file (%s)", name, before.Mode().Type())
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !after.Mode().IsRegular() || !os.SameFile(before, after) {
		return nil, false, fmt.Errorf("%s was replaced while it was opened", name)
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, false, err
	}
	if len(data) > max {
		return data[:max], true, nil
	}
	return data, false, nil
}
