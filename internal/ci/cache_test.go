package ci

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingJudge answers every job with a fixed verdict and counts what it was asked.
type countingJudge struct {
	calls, jobs int
	err         error
	outcome     Outcome // Fail when empty
}

func (c *countingJudge) Run(_ context.Context, reruns int, jobs []Job) ([]Verdict, error) {
	c.calls++
	c.jobs += len(jobs)
	if c.err != nil {
		return nil, c.err
	}
	out := make([]Verdict, len(jobs))
	for i := range jobs {
		out[i] = Verdict{Outcome: cmp.Or(c.outcome, Fail), Runs: 1, Output: "from " + jobs[i].Coder, Seconds: 0.5}
	}
	return out, nil
}

func cacheJobs(content string) []Job {
	return []Job{
		{Coder: "a", Tree: mapTree{"f": "a"}, Test: Test{ID: "1", Content: []byte(content)}},
		{Coder: "b", Tree: mapTree{"f": "b"}, Test: Test{ID: "1", Content: []byte(content)}},
	}
}

func TestCached(t *testing.T) {
	contract := shellContract()
	cases := []struct {
		name string
		// second runs after a first call of cacheJobs("t") with reruns 20; it returns the
		// verdicts and how many jobs the inner judge executed for them.
		second     func(t *testing.T, dir string, inner *countingJudge, c *Cached) ([]Verdict, int)
		wantCached []bool
	}{
		{name: "second call hits memory", wantCached: []bool{true, true},
			second: func(t *testing.T, _ string, inner *countingJudge, c *Cached) ([]Verdict, int) {
				return run(t, c, 20, cacheJobs("t")), inner.jobs - 2
			}},
		{name: "disk cache survives a new instance", wantCached: []bool{true, true},
			second: func(t *testing.T, dir string, _ *countingJudge, _ *Cached) ([]Verdict, int) {
				inner := &countingJudge{}
				c, err := NewCached(inner, contract, dir, quietLogger())
				require.NoError(t, err)
				return run(t, c, 20, cacheJobs("t")), inner.jobs
			}},
		{name: "other test content misses", wantCached: []bool{false, false},
			second: func(t *testing.T, _ string, inner *countingJudge, c *Cached) ([]Verdict, int) {
				return run(t, c, 20, cacheJobs("u")), inner.jobs - 2
			}},
		{name: "other rerun count misses", wantCached: []bool{false, false},
			second: func(t *testing.T, _ string, inner *countingJudge, c *Cached) ([]Verdict, int) {
				return run(t, c, 5, cacheJobs("t")), inner.jobs - 2
			}},
		{name: "other contract misses", wantCached: []bool{false, false},
			second: func(t *testing.T, dir string, _ *countingJudge, _ *Cached) ([]Verdict, int) {
				inner := &countingJudge{}
				other := shellContract()
				other.Timeout = time.Minute
				c, err := NewCached(inner, other, dir, quietLogger())
				require.NoError(t, err)
				return run(t, c, 20, cacheJobs("t")), inner.jobs
			}},
		{name: "corrupt entry is a miss", wantCached: []bool{false, false},
			second: func(t *testing.T, dir string, _ *countingJudge, _ *Cached) ([]Verdict, int) {
				files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
				require.Len(t, files, 2)
				for _, f := range files {
					require.NoError(t, os.WriteFile(f, []byte("{not json"), 0o644))
				}
				inner := &countingJudge{}
				c, err := NewCached(inner, contract, dir, quietLogger())
				require.NoError(t, err)
				return run(t, c, 20, cacheJobs("t")), inner.jobs
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			inner := &countingJudge{}
			c, err := NewCached(inner, contract, dir, quietLogger())
			require.NoError(t, err)
			first := run(t, c, 20, cacheJobs("t"))
			assert.False(t, first[0].Cached || first[1].Cached)
			vs, executed := tc.second(t, dir, inner, c)
			wantExecuted := 0
			for i, v := range vs {
				assert.Equal(t, tc.wantCached[i], v.Cached)
				assert.Equal(t, first[i].Outcome, v.Outcome)
				assert.Equal(t, first[i].Output, v.Output, "verdicts stay with their jobs")
				if !tc.wantCached[i] {
					wantExecuted++
				}
			}
			assert.Equal(t, wantExecuted, executed)
		})
	}
}

func run(t *testing.T, j Judge, reruns int, jobs []Job) []Verdict {
	t.Helper()
	vs, err := j.Run(context.Background(), reruns, jobs)
	require.NoError(t, err)
	require.Len(t, vs, len(jobs))
	return vs
}

func TestCachedDuplicatesAndStats(t *testing.T) {
	inner := &countingJudge{}
	c, err := NewCached(inner, shellContract(), "", nil)
	require.NoError(t, err)
	jobs := append(cacheJobs("t"), cacheJobs("t")...) // each job twice in one call
	vs := run(t, c, 3, jobs)
	assert.Equal(t, 2, inner.jobs, "duplicates execute once")
	assert.Equal(t, []bool{false, false, true, true}, []bool{vs[0].Cached, vs[1].Cached, vs[2].Cached, vs[3].Cached})
	run(t, c, 3, cacheJobs("t"))
	s := c.Stats()
	assert.Equal(t, 2, s.Executions)
	assert.Equal(t, 2, s.Runs)
	assert.Equal(t, 4, s.CacheHits)
	assert.Positive(t, s.Seconds)
}

func TestCachedInnerErrorCachesNothing(t *testing.T) {
	inner := &countingJudge{err: errors.New("sandbox broke")}
	dir := t.TempDir()
	c, err := NewCached(inner, shellContract(), dir, nil)
	require.NoError(t, err)
	vs, err := c.Run(context.Background(), 1, cacheJobs("t"))
	require.ErrorContains(t, err, "sandbox broke")
	assert.Nil(t, vs)
	kept, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	assert.Empty(t, kept, "no verdict kept")
	inner.err = nil
	vs = run(t, c, 1, cacheJobs("t"))
	assert.False(t, vs[0].Cached)
	assert.Equal(t, 2, inner.calls, "the second call executed again")
}

// TestCachedOverLocal checks the composition the orchestrator uses.
func TestCachedOverLocal(t *testing.T) {
	l := newShellJudge(t, nil)
	c, err := NewCached(l, shellContract(), t.TempDir(), nil)
	require.NoError(t, err)
	jobs := []Job{shellJob("p", "exit 0\n"), shellJob("f", "echo no; exit 1\n")}
	first := run(t, c, 3, jobs)
	second := run(t, c, 3, jobs)
	assert.Equal(t, []Outcome{Pass, Fail}, []Outcome{first[0].Outcome, first[1].Outcome})
	assert.Equal(t, []Outcome{Pass, Fail}, []Outcome{second[0].Outcome, second[1].Outcome})
	assert.True(t, second[0].Cached && second[1].Cached)
	assert.Equal(t, 2, l.Stats().Executions, "the local judge ran each job once")
	assert.Equal(t, 4, l.Stats().Runs)
}

func TestAFailedPrepareIsNeverCached(t *testing.T) {
	dir := t.TempDir()
	inner := &countingJudge{outcome: PrepareFailed}
	c, err := NewCached(inner, shellContract(), dir, quietLogger())
	require.NoError(t, err)
	for range 2 {
		vs := run(t, c, 20, cacheJobs("t"))
		assert.Equal(t, PrepareFailed, vs[0].Outcome)
		assert.False(t, vs[0].Cached)
	}
	assert.Equal(t, 4, inner.jobs, "once the environment is fixed, the jobs run")
	kept, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	assert.Empty(t, kept, "nothing on disk either")
}

// slowJudge judges every job after a pause, counting them: long enough for another
// judge to ask for the same jobs meanwhile.
type slowJudge struct {
	mu   sync.Mutex
	jobs int
}

func (s *slowJudge) Run(_ context.Context, reruns int, jobs []Job) ([]Verdict, error) {
	s.mu.Lock()
	s.jobs += len(jobs)
	s.mu.Unlock()
	time.Sleep(300 * time.Millisecond)
	out := make([]Verdict, len(jobs))
	for i := range jobs {
		out[i] = Verdict{Outcome: Pass, Runs: reruns, Seconds: 0.3}
	}
	return out, nil
}

// TestJudgesSharingACacheRunEachJobOnce: two judges (two servers, or two runs of one
// process) asked for the same jobs at once execute each once; the second waits for the
// first's verdicts and reports them as cached.
func TestJudgesSharingACacheRunEachJobOnce(t *testing.T) {
	dir := t.TempDir()
	inner := &slowJudge{}
	var judges [2]*Cached
	for i := range judges {
		c, err := NewCached(inner, shellContract(), dir, quietLogger())
		require.NoError(t, err)
		judges[i] = c
	}
	var got [2][]Verdict
	var wg sync.WaitGroup
	for i, c := range judges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vs, err := c.Run(context.Background(), 3, cacheJobs("shared"))
			assert.NoError(t, err)
			got[i] = vs
		}()
	}
	wg.Wait()
	assert.Equal(t, 2, inner.jobs, "each of the two jobs ran once")
	for i := range got {
		require.Len(t, got[i], 2)
		for _, v := range got[i] {
			assert.Equal(t, Pass, v.Outcome)
		}
	}
	cached := 0
	for _, c := range judges {
		cached += c.Stats().CacheHits
		assert.Equal(t, 2, c.Stats().Executions+c.Stats().CacheHits)
	}
	assert.Equal(t, 2, cached, "the judge that waited read both verdicts from the cache")
}
