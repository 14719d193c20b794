package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/session"
)

// measured is one timed run.
type measured struct {
	wall      time.Duration // first piece of agent work to the protocol's stop
	path      orchestrate.PathTimes
	signature string // outcome and vetted tests: what every run must agree on
}

// comparison is a population measured with every agent of a phase at once and with
// parallel_agents 1.
type comparison struct {
	name                 string
	parallel, sequential measured
}

func (c comparison) print(w io.Writer) {
	p := c.parallel
	fmt.Fprintf(w, "%-34s %8.2fs %8.2fs %6.2f %10.2fs %7.2fx  %s\n", c.name, p.wall.Seconds(), p.path.Critical.Seconds(),
		ratio(p.wall, p.path.Critical), c.sequential.wall.Seconds(), ratio(c.sequential.wall, p.wall), p.signature)
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return a.Seconds() / b.Seconds()
}

// runFunc runs opts with parallel_agents set to width (0: every agent of a phase).
type runFunc func(ctx context.Context, opts session.Options, width int) (*session.Outcome, error)

// trial is what compare measures: its name in the table, the directory its runs keep
// their state in, and whether they share verdicts.
type trial struct {
	name, dir string
	shared    bool
}

// compare runs opts three times in t.dir: a reference run (warming Go's build cache and,
// when shared, filling the verdict cache the timed runs share), then parallel_agents 1,
// then every agent at once. Without shared verdicts each run pays its own judge work.
func compare(ctx context.Context, t trial, opts session.Options, run runFunc) (comparison, error) {
	name, dir := t.name, t.dir
	if t.shared {
		opts.ResultCache = filepath.Join(dir, "cache")
	}
	modes := []struct {
		id    string
		width int
	}{{"reference", 0}, {"sequential", 1}, {"parallel", 0}}
	var got []measured
	for _, m := range modes {
		o := opts
		o.StateDir, o.RunID = filepath.Join(dir, m.id), m.id
		r, err := timed(ctx, o, func(ctx context.Context, o session.Options) (*session.Outcome, error) { return run(ctx, o, m.width) })
		if err != nil {
			return comparison{}, fmt.Errorf("%s, %s run: %w", name, m.id, err)
		}
		got = append(got, r)
	}
	for _, r := range got[1:] {
		if r.signature != got[0].signature {
			return comparison{}, fmt.Errorf("%s: the runs disagree:\n  %s\n  %s", name, got[0].signature, r.signature)
		}
	}
	return comparison{name: name, sequential: got[1], parallel: got[2]}, nil
}

// timed runs once and reads its journal.
func timed(ctx context.Context, opts session.Options, run func(context.Context, session.Options) (*session.Outcome, error)) (measured, error) {
	host := &clockHost{}
	opts.Host = host
	out, err := run(ctx, opts)
	if err != nil {
		return measured{}, err
	}
	j, err := host.ws.Journal("refs/dixit/" + opts.RunID + "/journal")
	if err != nil {
		return measured{}, err
	}
	entries, err := j.Entries()
	if err != nil {
		return measured{}, err
	}
	path, err := orchestrate.CriticalPath(entries)
	if err != nil {
		return measured{}, err
	}
	return measured{wall: host.wall(), path: path, signature: signature(out)}, nil
}

// signature is what the runs of a comparison must agree on before their times are
// compared: the outcome, the rounds, the vetted tests with the coders that failed each
// when it was vetted, and the coders that pass the whole suite at the end.
func signature(out *session.Outcome) string {
	res := out.Result
	var vetted []string
	for _, v := range res.Vetted {
		vetted = append(vetted, fmt.Sprintf("%d:%s", v.Number, v.ID))
		if len(v.FailedBy) > 0 {
			vetted[len(vetted)-1] += "(failed by " + strings.Join(v.FailedBy, ",") + ")"
		}
	}
	return fmt.Sprintf("%s after %d rounds, vetted %s, passing %v", res.Outcome, res.Rounds, strings.Join(vetted, " "),
		report.Consensus(out.Summary))
}

// clockHost hosts a run like a quiet terminal, keeps its workshop (to read the journal)
// and clocks the protocol: from the first agent work that begins to the stop.
type clockHost struct {
	session.Terminal
	ws *gitstate.Workshop

	mu           sync.Mutex
	start, ended time.Time
}

func (h *clockHost) Attach(_ context.Context, ws *gitstate.Workshop) error {
	h.ws = ws
	return nil
}

func (h *clockHost) Reporters(context.Context) []orchestrate.Reporter {
	return []orchestrate.Reporter{h}
}

func (h *clockHost) Event(_ context.Context, ev orchestrate.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ev.Kind == orchestrate.EvEscalate {
		h.ended = time.Now()
	}
}

func (h *clockHost) Begin(context.Context, orchestrate.Work) func() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.start.IsZero() {
		h.start = time.Now()
	}
	return func() {}
}

func (h *clockHost) wall() time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ended.Sub(h.start)
}

// makeRepo writes the live run's repository: a stub to implement and a dixit.yml with c's
// population, committed.
func makeRepo(dir string, c config) error {
	files := map[string]string{
		"go.mod":            "module example.com/calc\n\ngo 1.22\n",
		"calc.go":           "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int { panic(\"todo\") }\n",
		".github/dixit.yml": dixitYML(c),
	}
	return commit(dir, files)
}

// dixitYML is the live run's settings: c's population on the fake model.
func dixitYML(c config) string {
	var yml strings.Builder
	fmt.Fprintf(&yml, "coders: %d\ntesters: %d\nreruns: 1\nmax_rounds: %d\ntest: {preset: go, timeout: 20s}\n", c.coders, c.testers, c.rounds)
	yml.WriteString("agents:\n  model: fake-model\n  max_steps: 12\n  coders:\n")
	for k := 1; k <= c.coders; k++ {
		fmt.Fprintf(&yml, "    - {name: c%d, persona: \"You are coder number %d.\"}\n", k, k)
	}
	yml.WriteString("  testers:\n")
	for j := 1; j <= c.testers; j++ {
		fmt.Fprintf(&yml, "    - {name: t%d, direction: \"You check case number %d.\"}\n", j, j)
	}
	return yml.String()
}

// commit writes files in a new repository at dir and commits them.
func commit(dir string, files map[string]string) error {
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		return fmt.Errorf("init %s: %w", dir, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return fmt.Errorf("worktree %s: %w", dir, err)
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		if _, err := wt.Add(name); err != nil {
			return fmt.Errorf("add %s: %w", name, err)
		}
	}
	sig := &object.Signature{Name: "bench", Email: "bench@example.com", When: time.Unix(1, 0)}
	if _, err := wt.Commit("stub", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		return fmt.Errorf("commit %s: %w", dir, err)
	}
	return nil
}

// demoRun runs a copy of the population whose dixit.yml asks for parallel_agents width.
// Its base, and so every tree the judge sees, is the population's.
func demoRun(population string) runFunc {
	return func(ctx context.Context, opts session.Options, width int) (*session.Outcome, error) {
		dir := filepath.Join(opts.StateDir, "population")
		if err := os.CopyFS(dir, os.DirFS(population)); err != nil {
			return nil, fmt.Errorf("copy the population: %w", err)
		}
		yml, err := os.OpenFile(filepath.Join(dir, "dixit.yml"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		if _, err := fmt.Fprintf(yml, "\nparallel_agents: %d\n", width); err != nil {
			yml.Close()
			return nil, err
		}
		if err := yml.Close(); err != nil {
			return nil, err
		}
		opts.Population = dir
		return session.Run(ctx, opts)
	}
}

// liveRun runs with a dixit.yml beside the repository (session.Options.Config) that asks
// for parallel_agents width: the repository, and so every tree the judge sees, is the same.
func liveRun(c config, dir string) runFunc {
	return func(ctx context.Context, opts session.Options, width int) (*session.Outcome, error) {
		opts.Config = filepath.Join(dir, fmt.Sprintf("dixit-%s.yml", opts.RunID))
		if err := os.WriteFile(opts.Config, []byte(dixitYML(c)+fmt.Sprintf("parallel_agents: %d\n", width)), 0o644); err != nil {
			return nil, err
		}
		return session.RunLive(ctx, opts)
	}
}
