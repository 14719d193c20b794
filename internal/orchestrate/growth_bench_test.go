package orchestrate_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
)

// BenchmarkGrowth runs the Dixit protocol with fake agents and a fake judge, journalled in
// a real git workshop on disk, over a grid of population sizes and rounds. It reports what
// grows with them: the time the orchestrator spends classifying, its own time outside the
// fakes, the journal's entries and bytes, and the time a restart takes to replay it.
//
//	go test ./internal/orchestrate -run '^$' -bench Growth -benchtime 3x
func BenchmarkGrowth(b *testing.B) {
	for _, coders := range []int{3, 5, 7, 9} {
		for _, testers := range []int{2, 4, 8} {
			for _, rounds := range []int{5, 10, 20} {
				name := fmt.Sprintf("coders=%d/testers=%d/rounds=%d", coders, testers, rounds)
				b.Run(name, func(b *testing.B) { benchGrowth(b, coders, testers, rounds) })
			}
		}
	}
}

func benchGrowth(b *testing.B, coders, testers, rounds int) {
	var total growth
	n := 0
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		g, err := playGrowth(dir, coders, testers, rounds)
		if err != nil {
			b.Fatal(err)
		}
		total.add(g)
		n++
	}
	per := func(d time.Duration, by int) float64 { return float64(d.Microseconds()) / 1000 / float64(n*by) }
	b.ReportMetric(per(total.classify, rounds), "classify-ms/round")
	b.ReportMetric(float64(total.classify.Microseconds())/float64(total.classifications), "µs/classify")
	b.ReportMetric(per(total.orchestrator, rounds), "orch-ms/round")
	b.ReportMetric(float64(total.appendTime.Microseconds())/float64(total.entries), "µs/append")
	b.ReportMetric(float64(total.entries)/float64(n), "entries")
	b.ReportMetric(float64(total.journalBytes)/1024/float64(n), "journal-KiB")
	b.ReportMetric(float64(total.diskBytes)/1024/float64(n), "disk-KiB")
	b.ReportMetric(per(total.resume, 1), "resume-ms")
}

// TestGrowthScenario keeps the benchmark honest: its population really plays every round,
// vets one test per tester per round, exercises all three classes, and a restart replays
// the whole journal without paying for any effect again.
func TestGrowthScenario(t *testing.T) {
	g, err := playGrowth(t.TempDir(), 3, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	if g.res.Outcome != orchestrate.BudgetExhausted || g.res.Rounds != 4 {
		t.Fatalf("outcome %s after %d rounds, want %s after 4: %s", g.res.Outcome, g.res.Rounds, orchestrate.BudgetExhausted, g.res.Reason)
	}
	if len(g.res.Vetted) != 2*4 {
		t.Errorf("%d tests vetted, want one per tester per round (8)", len(g.res.Vetted))
	}
	classes := map[orchestrate.Class]int{}
	for _, ev := range g.res.Events {
		if ev.Kind == orchestrate.EvClassify {
			classes[ev.Class]++
		}
	}
	if classes[orchestrate.TooWeak] == 0 || classes[orchestrate.TooHard] == 0 || classes[orchestrate.Ideal] != 8 {
		t.Errorf("classes %v: want every class, and 8 IDEAL", classes)
	}
	if g.classifications != 4*2*2 {
		t.Errorf("%d classifications timed, want 2 per tester per round (16)", g.classifications)
	}
	if g.resumed.Live != 0 || g.resumed.Replayed != g.entries || len(g.resumed.Vetted) != len(g.res.Vetted) {
		t.Errorf("resume: %d live, %d of %d replayed, %d vetted: want nothing live and the same suite",
			g.resumed.Live, g.resumed.Replayed, g.entries, len(g.resumed.Vetted))
	}
}

// growth is what one run measured.
type growth struct {
	res, resumed    *orchestrate.Result
	classify        time.Duration // from a proposal's event to its classification's event
	classifications int
	orchestrator    time.Duration // Execute's wall time minus the time inside fakes
	appendTime      time.Duration
	entries         int
	journalBytes    int
	diskBytes       int64
	resume          time.Duration // New and Execute over the finished journal
}

func (g *growth) add(o growth) {
	g.classify += o.classify
	g.classifications += o.classifications
	g.orchestrator += o.orchestrator
	g.appendTime += o.appendTime
	g.entries += o.entries
	g.journalBytes += o.journalBytes
	g.diskBytes += o.diskBytes
	g.resume += o.resume
}

// playGrowth plays one run to max_rounds in a workshop under dir, then replays it as a
// restarted process would.
func playGrowth(dir string, coders, testers, rounds int) (growth, error) {
	var g growth
	ws, err := gitstate.Open(filepath.Join(dir, "workshop"))
	if err != nil {
		return g, fmt.Errorf("open workshop: %w", err)
	}
	cfg := config.Defaults()
	cfg.Coders, cfg.Testers, cfg.MaxRounds = coders, testers, rounds
	cfg.ParallelAgents = 1 // its fakes share a clock and checkpoints: it measures the orchestrator alone
	const ref = "refs/dixit/bench/journal"
	cps := checkpoints{}
	var clock fakeClock

	j, err := ws.Journal(ref)
	if err != nil {
		return g, fmt.Errorf("open journal: %w", err)
	}
	journal := &countingJournal{Journal: j}
	rep := &classifyTimer{}
	deps := growthDeps(coders, testers, cps, &clock, journal, rep)
	run, err := orchestrate.New(cfg, deps)
	if err != nil {
		return g, fmt.Errorf("new run: %w", err)
	}
	start := time.Now()
	g.res, err = run.Execute(context.Background())
	if err != nil {
		return g, fmt.Errorf("run %d coders, %d testers, %d rounds: %w", coders, testers, rounds, err)
	}
	g.orchestrator = time.Since(start) - clock.spent
	g.classify, g.classifications = rep.total, rep.count
	g.appendTime, g.entries, g.journalBytes = journal.spent, journal.entries, journal.bytes
	if g.diskBytes, err = dirSize(ws.Path()); err != nil {
		return g, err
	}

	// A restarted process: a fresh workshop handle and fresh agents, the same disk.
	start = time.Now()
	ws2, err := gitstate.Open(ws.Path())
	if err != nil {
		return g, fmt.Errorf("reopen workshop: %w", err)
	}
	j2, err := ws2.Journal(ref)
	if err != nil {
		return g, fmt.Errorf("reopen journal: %w", err)
	}
	run2, err := orchestrate.New(cfg, growthDeps(coders, testers, cps, &fakeClock{}, j2, nil))
	if err != nil {
		return g, fmt.Errorf("resume run: %w", err)
	}
	if g.resumed, err = run2.Execute(context.Background()); err != nil {
		return g, fmt.Errorf("resume run: %w", err)
	}
	g.resume = time.Since(start)
	return g, nil
}

// growthDeps builds the population. Tester draws cycle weak, ideal, hard, ideal: each
// round a tester's first test misses (TOO_WEAK or TOO_HARD) and its second, after the
// feedback, is IDEAL. An IDEAL test fails one coder (the lagger) until its next solve, so
// the next round that coder fails the suite once and fixes it.
func growthDeps(coders, testers int, cps checkpoints, clock *fakeClock, journal orchestrate.Journal, rep orchestrate.Reporter) orchestrate.Deps {
	deps := orchestrate.Deps{Store: orchestratetest.Store{}, Journal: journal, Reporter: rep}
	for i := range coders {
		deps.Coders = append(deps.Coders, &growthCoder{growthAgent: growthAgent{name: fmt.Sprintf("c%d", i+1), cps: cps, clock: clock}})
	}
	for i := range testers {
		deps.Testers = append(deps.Testers, &growthTester{growthAgent: growthAgent{name: fmt.Sprintf("t%d", i+1), cps: cps, clock: clock}, index: i, coders: coders})
	}
	failsUntil := map[string]int{} // IDEAL test → the lagger's version when first judged
	// A short `go test` failure; the judge keeps up to ci.MaxOutput (8 KiB) of it.
	output := strings.Repeat("--- FAIL: TestSpec (0.00s)\n    spec_test.go:12: got 41, want 42\n", 16)
	deps.Judge = &timedJudge{clock: clock, Judge: orchestratetest.Judge{
		Calls:  &orchestratetest.Calls{},
		Output: func(string, string) string { return output },
		Passes: func(test, tree string) bool {
			f := strings.Fields(test) // kind, id[, lagger]
			switch f[0] {
			case "weak":
				return true
			case "hard":
				return false
			}
			coder, version, _ := strings.Cut(tree, "@")
			if coder != f[2] {
				return true
			}
			v, _ := strconv.Atoi(version) // trees are always "name@k"
			until, ok := failsUntil[f[1]]
			if !ok {
				failsUntil[f[1]], until = v, v
			}
			return v > until
		},
	}}
	return deps
}

// fakeClock adds up the time spent inside fakes, so it can be taken out of the
// orchestrator's figure.
type fakeClock struct{ spent time.Duration }

func (c *fakeClock) since(t time.Time) { c.spent += time.Since(t) }

// checkpoints stands in for the workshop's checkpoint commits: the journal records a
// 40-hex id, as it does for real agents, not the agent's whole state.
type checkpoints map[string][]byte

type growthState struct {
	History []string `json:"history"`
	Version int      `json:"version"`
}

type growthAgent struct {
	name  string
	state growthState
	cps   checkpoints
	clock *fakeClock
}

func (a *growthAgent) Name() string { return a.name }

func (a *growthAgent) Tell(_ context.Context, m string) error {
	defer a.clock.since(time.Now())
	a.state.History = append(a.state.History, m)
	return nil
}

func (a *growthAgent) Save(context.Context) (orchestrate.Checkpoint, error) {
	defer a.clock.since(time.Now())
	data, err := json.Marshal(a.state)
	if err != nil {
		return "", fmt.Errorf("save %s: %w", a.name, err)
	}
	sum := sha1.Sum(append([]byte(a.name+"\x00"), data...))
	id := hex.EncodeToString(sum[:])
	a.cps[id] = data
	return orchestrate.Checkpoint(id), nil
}

func (a *growthAgent) Restore(_ context.Context, cp orchestrate.Checkpoint) error {
	defer a.clock.since(time.Now())
	data, ok := a.cps[string(cp)]
	if !ok {
		return fmt.Errorf("restore %s: no checkpoint %s", a.name, cp)
	}
	var s growthState
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("restore %s: %w", a.name, err)
	}
	a.state = s
	return nil
}

type growthCoder struct{ growthAgent }

func (c *growthCoder) Solve(_ context.Context, turn orchestrate.Turn) (string, error) {
	defer c.clock.since(time.Now())
	c.state.Version++
	c.state.History = append(c.state.History, turn.Message, fmt.Sprintf("version %d", c.state.Version))
	return fmt.Sprintf("%s@%d", c.name, c.state.Version), nil
}

func (c *growthCoder) Workspace(context.Context) (string, error) {
	return fmt.Sprintf("%s@%d", c.name, c.state.Version), nil
}

type growthTester struct {
	growthAgent
	index, coders int
}

func (t *growthTester) Propose(_ context.Context, turn orchestrate.Turn) (orchestrate.Proposal, error) {
	defer t.clock.since(time.Now())
	id := fmt.Sprintf("%s-%d", t.name, turn.Draw)
	var test string
	switch turn.Draw % 4 {
	case 1:
		test = "weak " + id
	case 3:
		test = "hard " + id
	default:
		test = fmt.Sprintf("ideal %s c%d", id, (t.index+turn.Draw)%t.coders+1)
	}
	t.state.History = append(t.state.History, turn.Message, test)
	return orchestrate.Proposal{Content: []byte(test)}, nil
}

type timedJudge struct {
	orchestratetest.Judge
	clock *fakeClock
}

func (j *timedJudge) Run(ctx context.Context, reruns int, jobs []ci.Job) ([]ci.Verdict, error) {
	defer j.clock.since(time.Now())
	return j.Judge.Run(ctx, reruns, jobs)
}

// countingJournal measures what the real journal is asked to keep, and how long it takes.
type countingJournal struct {
	orchestrate.Journal
	spent          time.Duration
	entries, bytes int
}

func (j *countingJournal) Append(record []byte) error {
	start := time.Now()
	defer func() { j.spent += time.Since(start) }()
	if err := j.Journal.Append(record); err != nil {
		return err
	}
	j.entries++
	j.bytes += len(record)
	return nil
}

// classifyTimer times each classification from its proposal's event to its own: the
// judge effect, its journal entry and the Dixit rule.
type classifyTimer struct {
	proposed time.Time
	total    time.Duration
	count    int
}

func (c *classifyTimer) Event(_ context.Context, ev orchestrate.Event) {
	switch {
	case ev.Kind == orchestrate.EvPropose && ev.Test != "":
		c.proposed = time.Now()
	case ev.Kind == orchestrate.EvClassify && ev.Detail == "":
		c.total += time.Since(c.proposed)
		c.count++
	}
}

// dirSize is the apparent size of the files under dir.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("size of %s: %w", dir, err)
	}
	return n, nil
}
