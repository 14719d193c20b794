// Package app is the GitHub App's domain layer: webhook handlers that start, stop and
// report on runs, and the manager that keeps at most one run per issue alive across
// restarts. It knows GitHub's events but not HTTP; the protocol itself runs elsewhere.
package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sync"
	"time"

	"github.com/dixit-bot/dixit/internal/logkey"
)

// Issue names an issue and the installation that can act on it. A pull request is an
// issue too (GitHub numbers them together); Kind says what its run does.
type Issue struct {
	Installation int64  `json:"installation"`
	Owner        string `json:"owner"`
	Repo         string `json:"repo"`
	Number       int    `json:"number"`
	// Kind is "" for a run built from an issue, KindVet for vetting a pull request.
	Kind string `json:"kind,omitempty"`
	// Fresh is the comment that asked for fresh work (`/dixit vet --fresh`); 0 for a
	// pull request's first vetting. Each value is a run of its own.
	Fresh int64 `json:"fresh,omitempty"`
}

// KindVet is the kind of a run that vets a pull request (docs/vet.md).
const KindVet = "vet"

func (i Issue) String() string { return fmt.Sprintf("%s/%s#%d", i.Owner, i.Repo, i.Number) }

// Run states.
const (
	Running   = "running"
	Stopped   = "stopped"   // by /dixit stop; /dixit resume goes on
	Cancelled = "cancelled" // the label was removed or the issue closed
	Finished  = "finished"
	Failed    = "failed"
)

// Record is what the manager keeps of a run, on disk.
type Record struct {
	Issue   Issue     `json:"issue"`
	State   string    `json:"state"`
	Detail  string    `json:"detail,omitempty"`
	Updated time.Time `json:"updated"`
}

// ErrElsewhere is returned by a Runner's Execute whose run another server drives (it
// holds the run's lease). The manager tries again every RetryElsewhere, so this server
// takes the run over if the other one goes away.
var ErrElsewhere = errors.New("the run is driven by another server")

// Manager keeps at most one run per issue, records each run's state under dir, and
// resumes running runs when the server starts.
type Manager struct {
	dir    string
	runner Runner
	log    *slog.Logger

	// RetryElsewhere is how long to wait before asking again for a run another server
	// drives (default one minute). Set it before the first Start.
	RetryElsewhere time.Duration
	// Transient tells failures worth another try (GitHub or the network failed) from
	// final ones; nil treats every failure as final. A transient failure is retried
	// after RetryTransient (default 30 s), doubling up to 10 minutes, at most
	// MaxTransient times per start (default 8); the run resumes from its journal, so a
	// retry pays only for what was not finished.
	Transient      func(error) bool
	RetryTransient time.Duration
	MaxTransient   int

	mu      sync.Mutex
	cancels map[string]*live
	wg      sync.WaitGroup
}

// live is a run going on; its identity tells a run from the one started after it was
// stopped, which may overlap it while it winds down.
type live struct {
	cancel context.CancelFunc
	again  bool // asked for again while it went (a new head to judge): run once more
}

// NewManager keeps its records under dir and carries the runs out with runner.
func NewManager(dir string, runner Runner, logger *slog.Logger) (*Manager, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("runs directory: %w", err)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Manager{dir: dir, runner: runner, log: logger, cancels: map[string]*live{}}, nil
}

var unsafe = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

func (m *Manager) path(i Issue) string {
	return filepath.Join(m.dir, fmt.Sprintf("%s__%s__%d.json", unsafe.ReplaceAllString(i.Owner, "_"), unsafe.ReplaceAllString(i.Repo, "_"), i.Number))
}

// Record returns the record of an issue's run, if there is one.
func (m *Manager) Record(i Issue) (Record, bool, error) {
	data, err := os.ReadFile(m.path(i))
	if errors.Is(err, os.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("read run of %s: %w", i, err)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return Record{}, false, fmt.Errorf("run record of %s is corrupt: %w", i, err)
	}
	return r, true, nil
}

func (m *Manager) save(r Record) error {
	r.Updated = time.Now().UTC()
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := m.path(r.Issue) + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("save run of %s: %w", r.Issue, err)
	}
	return os.Rename(tmp, m.path(r.Issue))
}

// Start begins a run for the issue unless one is already running; started reports which.
func (m *Manager) Start(i Issue) (started bool, err error) { return m.start(i, false) }

// Again is Start for work that arrived while the run goes and that it may have looked
// for already (a push to a vetted pull request): a live run is run once more when it
// ends, instead of the news being dropped.
func (m *Manager) Again(i Issue) (started bool, err error) { return m.start(i, true) }

func (m *Manager) start(i Issue, again bool) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l, live := m.cancels[i.String()]; live {
		l.again = l.again || again
		return false, nil
	}
	return true, m.launch(i)
}

// launch records the run as running and starts it. Callers hold m.mu.
func (m *Manager) launch(i Issue) error {
	if err := m.save(Record{Issue: i, State: Running}); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &live{cancel: cancel}
	m.cancels[i.String()] = l
	m.wg.Add(1)
	go m.run(ctx, i, l)
	return nil
}

// run executes the protocol and records how it ended; a panic is recorded, not fatal.
func (m *Manager) run(ctx context.Context, i Issue, l *live) {
	defer m.wg.Done()
	state, detail := Finished, ""
	func() {
		defer func() {
			if p := recover(); p != nil {
				state, detail = Failed, fmt.Sprintf("panic: %v\n%s", p, debug.Stack())
			}
		}()
		transient := 0
		for {
			err := m.runner.Execute(ctx, i)
			if err != nil && !errors.Is(err, ErrElsewhere) && ctx.Err() == nil && m.Transient != nil && m.Transient(err) &&
				transient < cmp.Or(m.MaxTransient, 8) {
				wait := min(cmp.Or(m.RetryTransient, 30*time.Second)<<transient, 10*time.Minute)
				transient++
				m.log.Warn("app: run failed on the way; trying again", "github_issue", i.String(), "err", err,
					"wait", wait, "attempt", transient)
				if err := m.save(Record{Issue: i, State: Running, Detail: fmt.Sprintf("retrying in %s: %v", wait, err)}); err != nil {
					m.log.Error("app: cannot record a run", "github_issue", i.String(), "err", err)
				}
				select {
				case <-ctx.Done():
				case <-time.After(wait):
					continue
				}
			}
			if errors.Is(err, ErrElsewhere) && ctx.Err() == nil {
				m.log.Info("app: another server drives this run; trying again later", "github_issue", i.String(), "err", err)
				if err := m.save(Record{Issue: i, State: Running, Detail: err.Error()}); err != nil {
					m.log.Error("app: cannot record a run", "github_issue", i.String(), "err", err)
				}
				select {
				case <-ctx.Done():
				case <-time.After(m.retryElsewhere()):
					continue
				}
			}
			if err != nil {
				state, detail = Failed, err.Error()
			}
			return
		}
	}()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cancels[i.String()] == l {
		delete(m.cancels, i.String())
	}
	if ctx.Err() != nil {
		return // Stop or Cancel recorded the state already
	}
	if l.again && state == Finished && m.cancels[i.String()] == nil {
		if err := m.launch(i); err == nil {
			return
		}
	}
	if err := m.save(Record{Issue: i, State: state, Detail: detail}); err != nil {
		m.log.Error("app: cannot record the end of a run", "github_issue", i.String(), "err", err)
	}
	if state == Failed {
		m.log.Error("app: run failed", "github_issue", i.String(), "err", detail)
	}
}

func (m *Manager) retryElsewhere() time.Duration {
	if m.RetryElsewhere > 0 {
		return m.RetryElsewhere
	}
	return time.Minute
}

// Stop ends a live run with the given final state (Stopped or Cancelled). It returns
// false when no run was live.
func (m *Manager) Stop(i Issue, state string) (bool, error) {
	m.mu.Lock()
	l, live := m.cancels[i.String()]
	if live {
		delete(m.cancels, i.String())
	}
	m.mu.Unlock()
	if live {
		l.cancel()
	}
	r, ok, err := m.Record(i)
	if err != nil || !ok || (!live && r.State != Running && r.State != Stopped) {
		return live, err
	}
	return live, m.save(Record{Issue: r.Issue, State: state}) // the record's: it knows the run's kind
}

// ResumeAll starts again every run recorded as running: the server stopped under it.
func (m *Manager) ResumeAll() (int, error) {
	entries, err := os.ReadDir(m.dir)
	if err != nil {
		return 0, fmt.Errorf("list runs: %w", err)
	}
	n := 0
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".json" {
			continue
		}
		var r Record
		data, err := os.ReadFile(filepath.Join(m.dir, e.Name()))
		if err != nil || json.Unmarshal(data, &r) != nil || r.State != Running {
			continue
		}
		if started, err := m.Start(r.Issue); err != nil {
			return n, err
		} else if started {
			n++
		}
	}
	return n, nil
}

// Shutdown cancels every live run (each resumes from its journal on the next start) and
// waits for them to return, or for ctx.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	for _, l := range m.cancels {
		l.cancel()
	}
	m.mu.Unlock()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// LogAttrs are the fixed log keys (package logkey) that say which issue or pull request
// a line is about.
func (i Issue) LogAttrs() []any {
	return []any{logkey.InstallationID, i.Installation, logkey.Repository, i.Owner + "/" + i.Repo, logkey.Issue, i.Number}
}
