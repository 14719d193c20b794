package ci

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"
)

// result is what the runs of one invocation did.
type result struct {
	starts, ends int           // runs begun and finished
	exit         int           // status of the last finished run (128+n: signal n), else of the sandbox
	sandboxExit  int           // status of the sandbox process itself
	timedOut     bool          // a run outlived its timeout; everything was killed
	flooded      bool          // a run wrote more than the output limit; everything was killed
	oomKilled    bool          // the kernel killed a process for going over the memory cgroup's limit
	cpu          time.Duration // CPU time of the last finished run's processes
	output       []byte        // tail of the last run's output
}

// passed reports whether every requested run, and no other, started and finished with
// status 0. The reports come from inside the sandbox, where a test can forge extra ones.
func (r result) passed(runs int) bool {
	return !r.timedOut && !r.flooded && r.starts == runs && r.ends == runs && r.exit == 0 && r.sandboxExit == 0
}

// killGrace is how long a killed sandbox gets to tear itself down before its whole
// process group is killed too.
const killGrace = 2 * time.Second

// execute runs one invocation to its end. The error is the judge's own failure (the
// sandbox did not start, the context ended); everything the command does is a result.
func (s *sandbox) execute(ctx context.Context, inv invocation) (result, error) {
	return s.judged(ctx, inv, nil)
}

// judged is execute that also hands each run's report, from the output or from the
// wrapper's report pipe, to ev (when not nil) as it arrives.
func (s *sandbox) judged(ctx context.Context, inv invocation, ev *evidence) (result, error) {
	marker, err := newMarker()
	if err != nil {
		return result{}, err
	}
	ooms := s.memory.ooms(inv.slot)
	cmd := s.command(inv, marker)
	var pipes [3][2]*os.File // output, reports (fd 3), bwrap info (fd 4)
	for i := range pipes {
		if pipes[i][0], pipes[i][1], err = os.Pipe(); err != nil {
			return result{}, fmt.Errorf("pipe: %w", err)
		}
		defer pipes[i][0].Close()
		defer pipes[i][1].Close()
	}
	cmd.Stdout, cmd.Stderr = pipes[0][1], pipes[0][1]
	cmd.ExtraFiles = []*os.File{pipes[1][1], pipes[2][1]}
	err = cmd.Start()
	for i := range pipes {
		pipes[i][1].Close()
	}
	if err != nil {
		return result{}, fmt.Errorf("start sandbox: %w", err)
	}

	flood := make(chan struct{})
	out := newRunOutput(marker, s.limits.Output, cmp.Or(s.keep, MaxOutput), func() { close(flood) })
	out.budget = s.limits.Output * int64(max(inv.runs, 1))
	prog := newProgress()
	if ev != nil && ev.fromOutput {
		out.report = ev
	} else {
		prog.report = ev
	}
	pumped := make(chan struct{})
	go func() {
		defer close(pumped)
		out.pump(pipes[0][0])
	}()
	reported := make(chan struct{})
	go func() {
		defer close(reported)
		prog.read(pipes[1][0])
	}()
	var nsInit atomic.Int64 // bwrap's pid 1: the whole sandbox dies with it
	go func() {
		var info struct {
			ChildPid int64 `json:"child-pid"`
		}
		if json.NewDecoder(pipes[2][0]).Decode(&info) == nil {
			nsInit.Store(info.ChildPid)
		}
	}()
	waited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(waited)
	}()

	var res result
	timer := time.NewTimer(inv.timeout)
	defer timer.Stop()
	// The reports that restart the timer come from inside the sandbox, and a test can
	// forge them (the wrapper runs as its uid): the whole invocation gets at most its runs'
	// timeouts plus one for the wrapper's own work, whatever it reports.
	deadline := time.NewTimer(time.Duration(max(inv.runs, 1)+1) * inv.timeout)
	defer deadline.Stop()
	seen := 0
wait:
	for {
		select {
		case <-waited:
			break wait
		case <-prog.notify: // each report starts a new timeout: a run began or ended
			if p := prog.snapshot(); p.starts+p.ends != seen {
				seen = p.starts + p.ends
				timer.Reset(inv.timeout)
			}
		case <-timer.C:
			res.timedOut = true
			break wait
		case <-deadline.C:
			res.timedOut = true
			break wait
		case <-flood:
			res.flooded = true
			break wait
		case <-ctx.Done():
			break wait
		}
	}
	s.kill(cmd, int(nsInit.Load()), inv.slot, waited)

	// With bubblewrap every writer died with the sandbox's pid namespace, so the readers
	// reach the end of what was written however late a busy machine schedules them (a
	// deadline would fail reads of data still in the pipe: a passing run then looked
	// like a sandbox that never started). In the fallback mode a process may have
	// escaped holding a pipe, so the readers are cut off after a grace period.
	grace := killGrace
	if s.bwrap != "" {
		grace = 10 * killGrace // only a safety net
	}
	drained := make(chan struct{})
	go func() { <-pumped; <-reported; close(drained) }()
	select {
	case <-drained:
	case <-time.After(grace):
		pipes[0][0].SetReadDeadline(time.Now())
		pipes[1][0].SetReadDeadline(time.Now())
		<-drained
	}
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	p := prog.snapshot()
	res.starts, res.ends, res.cpu = p.starts, p.ends, p.cpu
	res.oomKilled = s.memory.ooms(inv.slot) > ooms
	res.sandboxExit = exitStatus(cmd.ProcessState)
	res.exit = res.sandboxExit
	if p.ends > 0 {
		res.exit = p.status
	}
	res.output = out.last
	if res.timedOut || res.flooded || p.ends < p.starts {
		res.output = out.cur.Bytes() // killed in the middle of a run
	}
	if !p.started && !res.timedOut && !res.flooded {
		return result{}, fmt.Errorf("sandbox failed to start (exit %d): %s",
			res.sandboxExit, clip(out.cur.Bytes(), "", 2048))
	}
	return res, nil
}

// kill ends whatever is left of an invocation and waits for it. With bubblewrap,
// killing the pid namespace's init kills every process inside, and bwrap exits once
// they are gone; otherwise the session's process group (and, as root, every process of
// the lane's uid) is killed.
func (s *sandbox) kill(cmd *exec.Cmd, nsInit int, sl slot, waited <-chan struct{}) {
	select {
	case <-waited:
		if s.bwrap != "" {
			return // pid 1 exited, so the kernel already killed the rest
		}
	default:
		if s.bwrap != "" && nsInit > 0 {
			syscall.Kill(nsInit, syscall.SIGKILL)
			select {
			case <-waited:
				return
			case <-time.After(killGrace):
			}
		}
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if s.bwrap == "" && s.root {
		s.killUID(sl)
	}
	<-waited
}

// killUID kills every process of a lane's uid: kill(-1) sent as that uid reaches exactly
// them. It refuses low uids and its own, where kill(-1) would hit unrelated processes.
func (s *sandbox) killUID(sl slot) {
	if sl.uid < 1000 || sl.uid == os.Getuid() {
		return
	}
	cmd := exec.Command(s.setpriv, fmt.Sprintf("--reuid=%d", sl.uid), fmt.Sprintf("--regid=%d", sl.gid),
		"--clear-groups", "/bin/sh", "-c", "kill -9 -1")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Run() // setpriv exits before running sh if it cannot become the uid
}

// exitStatus maps a process state to a shell-style status.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
