package differential_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/gitstate"
)

// answers builds one coder's answers from input/output pairs.
func answers(kv ...string) []differential.Answer {
	var out []differential.Answer
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, differential.Answer{Input: kv[i], Output: kv[i+1]})
	}
	return out
}

func TestCompare(t *testing.T) {
	r := differential.Compare([]string{"a", "b", "c", "dead", "a"}, map[string][]differential.Answer{
		"a":        answers("1", "1", "2", "4", "3", "9", "4", "16"),
		"b":        answers("1", "1", "2", "4", "3", "9", "5", "25", "1", "100"), // a repeated input keeps the first
		"c":        answers("1", "1", "2", "5", "3", "9", "4", "16"),
		"unlisted": answers("7", "49"),
	}, map[string]string{"dead": "build failed: exit status 1", "unlisted": "ignored"})

	assert.Equal(t, []string{"a", "b", "c", "dead"}, r.Coders)
	assert.Equal(t, 5, r.Inputs)
	assert.Equal(t, map[string]int{"a": 4, "b": 4, "c": 4, "dead": 0}, r.Answered)
	assert.Equal(t, []differential.Disagreement{
		{Input: "2", Outputs: map[string]string{"a": "4", "b": "4", "c": "5"}},
		{Input: "4", Outputs: map[string]string{"a": "16", "b": "", "c": "16"}},
		{Input: "5", Outputs: map[string]string{"a": "", "b": "25", "c": ""}},
	}, r.Disagreements, "first-seen order; a coder that answered nothing is left out")
	assert.Equal(t, map[string]string{"dead": "build failed: exit status 1"}, r.Notes)

	// Inputs 1 and 3: both others agree with everyone (2 inputs x 2 others = 4).
	assert.Equal(t, 4+1+1, r.Agreement("a"), "input 2 with b, input 4 with c")
	assert.Equal(t, 4+1, r.Agreement("b"), "input 2 with a")
	assert.Equal(t, 4+1, r.Agreement("c"), "input 4 with a")
	assert.Zero(t, r.Agreement("dead"))
	assert.Zero(t, r.Agreement("nobody"))
}

func TestCompareEdgeCases(t *testing.T) {
	t.Run("all agree", func(t *testing.T) {
		same := answers(`"x"`, "true")
		r := differential.Compare([]string{"a", "b", "c"}, map[string][]differential.Answer{"a": same, "b": same, "c": same}, nil)
		assert.Empty(t, r.Disagreements)
		assert.NotNil(t, r.Disagreements, "encodes as [] rather than null")
		assert.Nil(t, r.Notes)
		assert.Equal(t, 2, r.Agreement("a"))
	})
	t.Run("no answers anywhere", func(t *testing.T) {
		r := differential.Compare([]string{"a", "b"}, nil, nil)
		assert.Zero(t, r.Inputs)
		assert.Equal(t, map[string]string{"a": "no answers", "b": "no answers"}, r.Notes)
	})
	t.Run("a lone answering coder disagrees with nobody", func(t *testing.T) {
		r := differential.Compare([]string{"a", "b"}, map[string][]differential.Answer{"a": answers("1", "1")}, nil)
		assert.Empty(t, r.Disagreements)
		assert.Zero(t, r.Agreement("a"))
	})
}

// fakeObserver prints a fixed output per coder, finishing in reverse order of the
// calls, and fails for the coders in fail.
type fakeObserver struct {
	out  map[string]ci.Observation
	fail map[string]bool
	mu   sync.Mutex
	jobs []ci.Job
}

func (f *fakeObserver) Observe(ctx context.Context, job ci.Job) (ci.Observation, error) {
	f.mu.Lock()
	f.jobs = append(f.jobs, job)
	n := len(f.jobs)
	f.mu.Unlock()
	time.Sleep(time.Duration(10-n) * time.Millisecond) // later calls finish first
	if f.fail[job.Coder] {
		return ci.Observation{}, errors.New("sandbox broke")
	}
	return f.out[job.Coder], ctx.Err()
}

// emptyTree stands in for a coder's tree where the observer is fake.
type emptyTree struct{}

func (emptyTree) Hash() string         { return "empty" }
func (emptyTree) WriteTo(string) error { return nil }

func impls(coders ...string) []differential.Implementation {
	var out []differential.Implementation
	for _, c := range coders {
		out = append(out, differential.Implementation{Coder: c, Tree: emptyTree{}})
	}
	return out
}

func TestRunWithFakeObserver(t *testing.T) {
	line := func(in, out int) string { return fmt.Sprintf("dixit-probe {\"input\":%d,\"output\":%d}\n", in, out) }
	obs := &fakeObserver{out: map[string]ci.Observation{
		"a": {Output: []byte(line(1, 1) + line(2, 2))},
		"b": {Output: []byte(line(1, 1) + line(2, 3) + "dixit-probe oops\n")},
		"c": {Output: []byte(line(1, 1)), Exit: 2, Note: "exit status 2"},
		"d": {Exit: -1, Note: "build failed: exit status 1\nundefined: x"},
	}}
	probe := ci.Test{ID: "probe", Content: []byte("probe")}
	r, err := differential.Run(context.Background(), obs, impls("a", "b", "c", "d"), probe)
	require.NoError(t, err)
	assert.Len(t, obs.jobs, 4)
	for _, j := range obs.jobs {
		assert.Equal(t, probe, j.Test)
	}
	assert.Equal(t, []string{"a", "b", "c", "d"}, r.Coders)
	assert.Equal(t, []differential.Disagreement{
		{Input: "2", Outputs: map[string]string{"a": "2", "b": "3", "c": ""}},
	}, r.Disagreements)
	assert.Equal(t, map[string]string{
		"b": "line 3: not a JSON object: invalid character 'o' looking for beginning of value",
		"c": "exit status 2 (after 1 answer)",
		"d": "build failed: exit status 1\nundefined: x",
	}, r.Notes)

	again, err := differential.Run(context.Background(), &fakeObserver{out: obs.out}, impls("a", "b", "c", "d"), probe)
	require.NoError(t, err)
	assert.Equal(t, r, again, "deterministic whatever order the probes finish in")
}

func TestRunFailures(t *testing.T) {
	probe := ci.Test{ID: "probe"}
	_, err := differential.Run(context.Background(), &fakeObserver{fail: map[string]bool{"b": true}}, impls("a", "b", "c"), probe)
	assert.ErrorContains(t, err, "probe probe on b: sandbox broke")

	_, err = differential.Run(context.Background(), &fakeObserver{}, impls("a", "b", "a"), probe)
	assert.ErrorContains(t, err, `coder "a" listed twice`)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = differential.Run(ctx, &fakeObserver{}, impls("a", "b"), probe)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestRunFindsPlantedDisagreement runs a probe with the real judge on three semver
// implementations that agree on every ordinary input and differ on build metadata
// ("1.0.0+build" against "1.0.0"), plus one that does not compile.
func TestRunFindsPlantedDisagreement(t *testing.T) {
	contract, _ := languages.Preset("go")
	contract.Timeout = 30 * time.Second
	cache := os.Getenv("DIXIT_CI_TEST_CACHE") // the ci tests' warm Go build cache
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "dixit-ci-test-cache")
	}
	judge, err := ci.NewLocal(ci.LocalOptions{Contract: contract, WorkDir: t.TempDir(), CacheDir: cache,
		Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(func() { judge.Close() })
	t.Logf("isolation: %s", judge.Isolation())

	var impls []differential.Implementation
	for _, c := range []string{"a", "b", "c", "broken"} {
		tree, err := gitstate.ReadDir(filepath.Join("testdata", "semver", c))
		require.NoError(t, err)
		impls = append(impls, differential.Implementation{Coder: c, Tree: tree})
	}
	content, err := os.ReadFile(filepath.Join("testdata", "semver", "dixit_probe_test.go"))
	require.NoError(t, err)

	r, err := differential.Run(context.Background(), judge, impls, ci.Test{ID: "probe", Content: content})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "broken"}, r.Coders)
	assert.Equal(t, 10, r.Inputs)
	assert.Equal(t, map[string]int{"a": 10, "b": 10, "c": 10, "broken": 0}, r.Answered)
	assert.Equal(t, []differential.Disagreement{
		{Input: `["1.0.0+build","1.0.0"]`, Outputs: map[string]string{"a": "0", "b": "0", "c": "1"}},
	}, r.Disagreements)
	require.Contains(t, r.Notes, "broken")
	assert.True(t, strings.HasPrefix(r.Notes["broken"], "build failed: "), r.Notes["broken"])
	assert.Contains(t, r.Notes["broken"], "undefined: compareParts")
	assert.Len(t, r.Notes, 1, "the others ran cleanly: %v", r.Notes)
	assert.Equal(t, 9*2+1, r.Agreement("a"))
	assert.Equal(t, 9*2, r.Agreement("c"))
	assert.Zero(t, judge.Stats().Executions, "a probe is not a verdict")
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
