package session

import (
	"context"
	"fmt"
	"sync"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/statusline"
)

// The status line: what runs now, while a judge call or an agent's turn takes seconds or
// minutes and no progress line comes.

var (
	_ ci.Judge              = watchedJudge{}
	_ differential.Observer = (*watchedObserver)(nil)
	_ orchestrate.Watcher   = fanOut(nil)
)

// startStatus takes the host's status line, or makes one on its progress writer and
// sends the progress lines through it, so that it makes way for them.
func (s *session) startStatus(ctx context.Context) {
	s.out, s.status = s.opts.Host.Display(ctx)
	if s.status == nil && s.out != nil {
		s.status = statusline.New(s.out)
		s.out = s.status
		s.ownStatus = true
	}
}

// stopStatus clears the status line before the caller prints its summary; a shared one
// only loses what this run put there.
func (s *session) stopStatus() {
	if s.ownStatus {
		s.status.Close()
		return
	}
	s.status.Set(statusline.Stage, "")
	s.status.Set(statusline.Work, "")
}

// stage says on the status line where the run is, once the protocol is over.
func (s *session) stage(text string) { s.status.Set(statusline.Stage, text) }

// watched shows the judge's calls on the status line, if there is one.
func (s *session) watched(j ci.Judge) ci.Judge {
	if s.status == nil {
		return j
	}
	// The local judge writes a job's tree as the job starts; the Actions judge writes each
	// tree once for a whole batch, so counting there would say nothing true.
	return watchedJudge{inner: j, status: s.status, count: s.inner == ci.Judge(s.local)}
}

// watchedJudge says on the status line what a call to the judge runs, and with count how
// many of its jobs have begun.
type watchedJudge struct {
	inner  ci.Judge
	status *statusline.Display
	count  bool
}

func (w watchedJudge) Run(ctx context.Context, reruns int, jobs []ci.Job) ([]ci.Verdict, error) {
	w.status.Set(statusline.Work, report.Judging(jobs, 0))
	defer w.status.Set(statusline.Work, "")
	if !w.count {
		return w.inner.Run(ctx, reruns, jobs)
	}
	var mu sync.Mutex
	started := 0
	begun := func() {
		mu.Lock()
		defer mu.Unlock()
		started++
		w.status.Set(statusline.Work, report.Judging(jobs, started))
	}
	counted := make([]ci.Job, len(jobs))
	for i, job := range jobs {
		if job.Tree != nil { // the judge refuses a job without a tree; let it
			job.Tree = startTree{Tree: job.Tree, begun: begun}
		}
		counted[i] = job
	}
	return w.inner.Run(ctx, reruns, counted)
}

// startTree tells when the judge lays it out: the job it belongs to has begun. Its hash is
// the tree's, so the verdict cache sees the same job.
type startTree struct {
	ci.Tree
	begun func()
}

func (t startTree) WriteTo(dir string) error {
	t.begun()
	return t.Tree.WriteTo(dir)
}

// probing shows the probe's runs on the status line while differential testing runs on
// impls implementations; call done when it is over.
func (s *session) probing(o differential.Observer, impls int) (_ differential.Observer, done func()) {
	if s.status == nil {
		return o, func() {}
	}
	s.status.Set(statusline.Work, fmt.Sprintf("differential probe on %d implementations", impls))
	return &watchedObserver{inner: o, status: s.status, of: impls}, func() { s.status.Set(statusline.Work, "") }
}

// watchedObserver counts the probe's finished runs on the status line.
type watchedObserver struct {
	inner  differential.Observer
	status *statusline.Display
	of     int

	mu   sync.Mutex
	done int
}

func (w *watchedObserver) Observe(ctx context.Context, job ci.Job) (ci.Observation, error) {
	o, err := w.inner.Observe(ctx, job)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done++
	w.status.Set(statusline.Work, fmt.Sprintf("differential probe on %d implementations (%d/%d)", w.of, w.done, w.of))
	return o, err
}

// Begin tells every reporter that watches for live work.
func (f fanOut) Begin(ctx context.Context, w orchestrate.Work) func() {
	var ends []func()
	for _, r := range f {
		if watcher, ok := r.(orchestrate.Watcher); ok {
			ends = append(ends, watcher.Begin(ctx, w))
		}
	}
	return func() {
		for _, end := range ends {
			end()
		}
	}
}
