package sandbox

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

// Result is what the runs of one invocation did.
type Result struct {
	Starts, Ends int  // runs begun and finished
	Exit         int  // status of the last finished run (128+n: signal n), else of the sandbox
	SandboxExit  int  // status of the sandbox process itself
	TimedOut     bool // a run outlived its timeout; everything was killed
	Flooded      bool // a run wrote more than the output limit; everything was killed
	OOMKilled    bool // the kernel killed a process for going over the memory cgroup's limit
	// Stopped: the reports said a run failed (Stopper), and the runs left were not
	// started: they could not have changed the verdict.
	Stopped bool
	CPU     time.Duration // CPU time of the last finished run's processes
	Output  []byte        // tail of the last run's output
	// ByRun holds the tails of the finished runs by number (as the output's separators
	// counted them), for a verdict about a run other than the last.
	ByRun map[int][]byte
}

// Passed reports whether every requested run, and no other, started and finished with
// status 0. The reports come from inside the sandbox, where a test can forge extra ones.
func (r Result) Passed(runs int) bool {
	return !r.TimedOut && !r.Flooded && r.Starts == runs && r.Ends == runs && r.Exit == 0 && r.SandboxExit == 0
}

// Reports takes the structured reports of an invocation's runs as they arrive (package
// ci's evidence). From the output (FromOutput): each run's output, then EndRun at the
// wrapper's separator. Else from the wrapper's report pipe: StartBlock, the report's
// base64 lines, BlockUnread when the wrapper could not read the report, EndBlock.
type Reports interface {
	FromOutput() bool
	Output(p []byte)
	EndRun()
	StartBlock(run int)
	BlockLine(line string)
	BlockUnread()
	EndBlock()
}

// Stopper is a Reports that can tell, once a run has ended, that its report showed it
// failed: the invocation then ends there, as the wrapper's own stop at a non-zero exit
// would, for runs whose exit status cannot say it (a runner that must report failures
// of the judge's own checks exits non-zero every time). known is false while the run's
// report has not been judged yet (its pipe is read apart from the wrapper's).
type Stopper interface {
	Failed(run int) (failed, known bool)
}

// killGrace is how long a killed sandbox gets to tear itself down before its whole
// process group is killed too.
const killGrace = 2 * time.Second

// Execute runs one invocation to its end. The error is the judge's own failure (the
// sandbox did not start, the context ended); everything the command does is a Result.
func (s *Sandbox) Execute(ctx context.Context, inv Invocation) (Result, error) {
	return s.Judged(ctx, inv, nil)
}

// Judged is Execute that also hands each run's report, from the output or from the
// wrapper's report pipe, to reports (when not nil) as it arrives.
func (s *Sandbox) Judged(ctx context.Context, inv Invocation, reports Reports) (Result, error) {
	marker, err := newMarker()
	if err != nil {
		return Result{}, err
	}
	ooms := s.memory.ooms(inv.Lane)
	r, err := s.start(inv, marker)
	if err != nil {
		return Result{}, err
	}
	defer r.close()
	r.read(s, inv, reports)
	stopper, _ := reports.(Stopper)
	res := r.wait(ctx, inv, stopper)
	s.kill(r.cmd, int(r.nsInit.Load()), inv.Lane, r.waited)
	s.drain(r)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return r.result(res, s.memory.ooms(inv.Lane) > ooms)
}

// running is an invocation's process and what reads it.
type running struct {
	cmd   *exec.Cmd
	pipes [3][2]*os.File // output, reports (fd 3), bwrap info (fd 4)
	out   *runOutput
	prog  *progress
	flood chan struct{} // closed when the output goes over its limit
	// closed when the output, the reports and the process have ended
	pumped, reported, waited chan struct{}
	nsInit                   atomic.Int64 // bwrap's pid 1: the whole sandbox dies with it
}

// start starts an invocation's process with its pipes.
func (s *Sandbox) start(inv Invocation, marker string) (*running, error) {
	r := &running{cmd: s.command(inv, marker)}
	for i := range r.pipes {
		var err error
		if r.pipes[i][0], r.pipes[i][1], err = os.Pipe(); err != nil {
			r.close()
			return nil, fmt.Errorf("pipe: %w", err)
		}
	}
	r.cmd.Stdout, r.cmd.Stderr = r.pipes[0][1], r.pipes[0][1]
	r.cmd.ExtraFiles = []*os.File{r.pipes[1][1], r.pipes[2][1]}
	err := r.cmd.Start()
	for i := range r.pipes {
		r.pipes[i][1].Close()
	}
	if err != nil {
		r.close()
		return nil, fmt.Errorf("start sandbox: %w", err)
	}
	r.flood = make(chan struct{})
	r.out = newRunOutput(marker, s.limits.Output, cmp.Or(s.keep, MaxOutput), func() { close(r.flood) })
	r.out.budget = s.limits.Output * int64(max(inv.Runs, 1))
	r.out.runs = inv.Runs
	r.prog = newProgress()
	return r, nil
}

// close closes every end of the pipes this process holds.
func (r *running) close() {
	for i := range r.pipes {
		for _, f := range r.pipes[i] {
			if f != nil {
				f.Close()
			}
		}
	}
}

// read starts the readers of the output, the wrapper's reports and bwrap's info, and
// the wait for the process; reports take the runs' reports from the output or the pipe.
func (r *running) read(s *Sandbox, inv Invocation, reports Reports) {
	if reports != nil && reports.FromOutput() {
		r.out.report = reports
	} else {
		r.prog.report = reports
	}
	r.pumped, r.reported, r.waited = make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(r.pumped)
		r.out.pump(r.pipes[0][0])
	}()
	go func() {
		defer close(r.reported)
		r.prog.read(r.pipes[1][0])
	}()
	go func() {
		var info struct {
			ChildPid int64 `json:"child-pid"`
		}
		if json.NewDecoder(r.pipes[2][0]).Decode(&info) == nil {
			r.nsInit.Store(info.ChildPid)
		}
	}()
	go func() {
		r.cmd.Wait()
		close(r.waited)
	}()
}

// wait waits for the process to end, a run to outlive its timeout, the output to go
// over its limit or the context to end, and says which of the limits ended it.
func (r *running) wait(ctx context.Context, inv Invocation, stopper Stopper) Result {
	var res Result
	first := max(inv.FirstRun, inv.Timeout)
	timer := time.NewTimer(first)
	defer timer.Stop()
	// The reports that restart the timer come from inside the sandbox, and a test can
	// forge them (the wrapper runs as its uid): the whole invocation gets at most its runs'
	// timeouts plus one for the wrapper's own work, whatever it reports.
	deadline := time.NewTimer(time.Duration(max(inv.Runs, 1)+1)*inv.Timeout + first - inv.Timeout)
	defer deadline.Stop()
	seen, judged := 0, 0 // reports seen; runs whose report was found to pass
	for {
		select {
		case <-r.waited:
			return res
		case <-r.prog.notify: // each report starts a new timeout: a run began or ended
			p := r.prog.snapshot()
			if p.starts+p.ends != seen {
				seen = p.starts + p.ends
				if p.ends == 0 {
					timer.Reset(first)
				} else {
					timer.Reset(inv.Timeout)
				}
			}
			// After the last run the process ends by itself, with its own status.
			for stopper != nil && judged < p.ends && p.ends < inv.Runs {
				failed, known := stopper.Failed(judged + 1)
				if !known {
					break // its report is still on its way: ask again at the next report
				}
				if failed {
					res.Stopped = true
					return res
				}
				judged++
			}
		case <-timer.C:
			res.TimedOut = true
			return res
		case <-deadline.C:
			res.TimedOut = true
			return res
		case <-r.flood:
			res.Flooded = true
			return res
		case <-ctx.Done():
			return res
		}
	}
}

// drain waits for the readers once the process is dead. With bubblewrap every writer
// died with the sandbox's pid namespace, so the readers reach the end of what was written
// however late a busy machine schedules them (a deadline would fail reads of data still
// in the pipe: a passing run then looked like a sandbox that never started). In the
// fallback mode a process may have escaped holding a pipe, so the readers are cut off
// after a grace period.
func (s *Sandbox) drain(r *running) {
	grace := killGrace
	if s.bwrap != "" {
		grace = 10 * killGrace // only a safety net
	}
	drained := make(chan struct{})
	go func() { <-r.pumped; <-r.reported; close(drained) }()
	select {
	case <-drained:
	case <-time.After(grace):
		r.pipes[0][0].SetReadDeadline(time.Now())
		r.pipes[1][0].SetReadDeadline(time.Now())
		<-drained
	}
}

// result completes res with what the wrapper reported and the process's status; the
// error is a sandbox that never started its wrapper.
func (r *running) result(res Result, oomKilled bool) (Result, error) {
	p := r.prog.snapshot()
	res.Starts, res.Ends, res.CPU = p.starts, p.ends, p.cpu
	res.OOMKilled = oomKilled
	res.SandboxExit = exitStatus(r.cmd.ProcessState)
	res.Exit = res.SandboxExit
	if p.ends > 0 {
		res.Exit = p.status
	}
	res.Output, res.ByRun = r.out.last, r.out.byRun
	if !res.Stopped && (res.TimedOut || res.Flooded || p.ends < p.starts) {
		res.Output = r.out.cur.Bytes() // killed in the middle of a run
	}
	if !p.started && !res.TimedOut && !res.Flooded {
		return Result{}, fmt.Errorf("sandbox failed to start (exit %d): %s",
			res.SandboxExit, Clip(r.out.cur.Bytes(), "", 2048))
	}
	return res, nil
}

// kill ends whatever is left of an Invocation and waits for it. With bubblewrap,
// killing the pid namespace's init kills every process inside, and bwrap exits once
// they are gone; otherwise the session's process group (and, as root, every process of
// the lane's uid) is killed.
func (s *Sandbox) kill(cmd *exec.Cmd, nsInit int, sl Lane, waited <-chan struct{}) {
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
func (s *Sandbox) killUID(sl Lane) {
	if sl.UID < 1000 || sl.UID == os.Getuid() {
		return
	}
	cmd := exec.Command(s.setpriv, fmt.Sprintf("--reuid=%d", sl.UID), fmt.Sprintf("--regid=%d", sl.GID),
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
