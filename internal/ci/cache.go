package ci

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// Cached answers jobs it has seen from a verdict cache and passes the others to an inner
// judge in one batch. The key covers the tree, the test's content, the contract and the
// rerun count; verdicts are kept in memory and, when dir is set, as JSON files there.
type Cached struct {
	inner       Judge
	fingerprint string
	dir         string
	log         *slog.Logger

	mu    sync.Mutex
	mem   map[string]Verdict
	stats Stats
}

var _ Judge = (*Cached)(nil)

// NewCached wraps inner, whose jobs all follow contract. dir may be empty (memory only).
func NewCached(inner Judge, contract Contract, dir string, logger *slog.Logger) (*Cached, error) {
	// Probe never changes a verdict: leaving it out keeps the keys of existing caches.
	contract.Probe = ""
	fp, err := json.Marshal(contract) // map keys are sorted, so this is stable
	if err != nil {
		return nil, fmt.Errorf("contract fingerprint: %w", err)
	}
	if dir != "" {
		if err := os.MkdirAll(filepath.Join(dir, ".locks"), 0o755); err != nil {
			return nil, fmt.Errorf("verdict cache dir: %w", err)
		}
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Cached{inner: inner, fingerprint: string(fp), dir: dir, log: logger, mem: map[string]Verdict{}}, nil
}

// Stats counts this wrapper's work: executions and runs are those it asked of the inner
// judge.
func (c *Cached) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Run answers from the cache where it can; duplicate jobs in one call execute once.
func (c *Cached) Run(ctx context.Context, reruns int, jobs []Job) ([]Verdict, error) {
	start := time.Now()
	if reruns < 1 {
		reruns = 1
	}
	b, err := c.plan(reruns, jobs)
	if err != nil {
		return nil, err
	}
	runs, executed := 0, 0
	if len(b.misses) > 0 {
		if runs, executed, err = c.execute(ctx, reruns, b); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	c.stats.Executions += executed
	c.stats.Runs += runs
	c.stats.CacheHits += b.hits + len(b.misses) - executed
	c.stats.Seconds += time.Since(start).Seconds()
	c.mu.Unlock()
	return b.out, nil
}

// cacheBatch is a call's jobs as the cache sees them: the verdicts it had, and the jobs
// the inner judge must run.
type cacheBatch struct {
	out    []Verdict
	from   []int    // per job, its index into misses, or -1 when answered
	misses []Job    // each distinct job the cache does not know
	keys   []string // the key of each miss
	hits   int      // jobs answered without executing: from the cache, or a duplicate
}

// plan answers what the cache knows and lists the rest, each distinct job once.
func (c *Cached) plan(reruns int, jobs []Job) (cacheBatch, error) {
	b := cacheBatch{out: make([]Verdict, len(jobs)), from: make([]int, len(jobs))}
	first := map[string]int{}
	for i, j := range jobs {
		if j.Tree == nil {
			return b, fmt.Errorf("job %d (%s): no tree", i, j.Coder)
		}
		k := c.key(j, reruns)
		if v, ok := c.lookup(k); ok {
			v.Cached = true
			b.out[i], b.from[i] = v, -1
			b.hits++
			continue
		}
		if m, ok := first[k]; ok {
			b.from[i] = m
			b.hits++
			continue
		}
		first[k], b.from[i] = len(b.misses), len(b.misses)
		b.misses = append(b.misses, j)
		b.keys = append(b.keys, k)
	}
	return b, nil
}

// execute has the inner judge run the misses, keeps their verdicts and puts them in
// place; it returns the runs they took and how many it executed. Judges that share the
// cache's directory (servers, runs in one process) run each job once: a miss whose lock
// another holds is being judged there, so it is waited for and read from the cache, and
// run here only when that judge kept no verdict (it failed, or the prepare did).
func (c *Cached) execute(ctx context.Context, reruns int, b cacheBatch) (int, int, error) {
	got := make([]Verdict, len(b.misses))
	locks := make([]*os.File, len(b.misses))
	defer func() {
		for _, l := range locks {
			if l != nil {
				l.Close()
			}
		}
	}()
	var mine, theirs []int
	for m, k := range b.keys {
		l, held := c.claim(k)
		locks[m] = l
		if held {
			mine = append(mine, m)
		} else {
			theirs = append(theirs, m)
		}
	}
	runs, err := c.runSome(ctx, reruns, b, mine, got)
	if err != nil {
		return 0, 0, err
	}
	for _, m := range mine {
		locks[m].Close() // their verdicts are kept: the waiting judges may read them
		locks[m] = nil
	}
	var left []int
	for _, m := range theirs {
		l, err := waitLock(ctx, c.lockPath(b.keys[m]))
		if err != nil {
			return 0, 0, err
		}
		locks[m] = l
		if v, ok := c.lookup(b.keys[m]); ok {
			v.Cached = true
			got[m] = v
			continue
		}
		left = append(left, m)
	}
	more, err := c.runSome(ctx, reruns, b, left, got)
	if err != nil {
		return 0, 0, err
	}
	executed := len(mine) + len(left)
	seen := make([]bool, len(b.misses))
	for i := range b.out {
		if m := b.from[i]; m >= 0 {
			b.out[i] = got[m]
			b.out[i].Cached = b.out[i].Cached || seen[m] // a duplicate within the call did not execute
			seen[m] = true
		}
	}
	return runs + more, executed, nil
}

// runSome has the inner judge run the misses at indexes which, keeps their verdicts and
// puts them in got; it returns the runs they took.
func (c *Cached) runSome(ctx context.Context, reruns int, b cacheBatch, which []int, got []Verdict) (int, error) {
	if len(which) == 0 {
		return 0, nil
	}
	jobs := make([]Job, len(which))
	for i, m := range which {
		jobs[i] = b.misses[m]
	}
	vs, err := c.inner.Run(ctx, reruns, jobs)
	if err != nil {
		return 0, err
	}
	if len(vs) != len(jobs) {
		return 0, fmt.Errorf("inner judge returned %d verdicts for %d jobs", len(vs), len(jobs))
	}
	runs := 0
	for i, v := range vs {
		m := which[i]
		runs += v.Runs
		got[m] = v
		if v.Outcome == PrepareFailed {
			continue // the environment's, not the test's: it must not outlive its fix
		}
		c.store(b.keys[m], v)
	}
	return runs, nil
}

// lockPath is where a job's lock lives: beside the verdicts, never among them.
func (c *Cached) lockPath(key string) string { return filepath.Join(c.dir, ".locks", key) }

// claim takes the lock of a job's key without waiting, and says whether this judge is to
// run it: yes when it holds the lock, and when there is no directory or no lock to take
// (a cache that cannot lock only costs a duplicate execution).
func (c *Cached) claim(key string) (*os.File, bool) {
	if c.dir == "" {
		return nil, true
	}
	f, err := sandbox.TryLock(c.lockPath(key))
	if err != nil {
		c.log.Warn("ci: verdict cache lock failed", "key", key, "err", err)
		return nil, true
	}
	return f, f != nil
}

// waitLock takes a job's lock once the judge holding it lets go.
func waitLock(ctx context.Context, path string) (*os.File, error) {
	f, err := sandbox.WaitLock(ctx, path, 100*time.Millisecond)
	if err != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("verdict cache lock: %w", err)
	}
	return f, err
}

func (c *Cached) key(j Job, reruns int) string {
	content := sha256.Sum256(j.Test.Content)
	h := sha256.New()
	parts := []string{"dixit-verdict-v1", j.Tree.Hash(), hex.EncodeToString(content[:]),
		c.fingerprint, strconv.Itoa(reruns)}
	if j.Test.Path != "" {
		// The place decides the package the test builds in; the id alone does not
		// change a verdict, so tests at the default place keep their keys.
		parts = append(parts, "at "+j.Test.Path)
	}
	if len(j.Test.Select) > 0 {
		parts = append(parts, "select "+strings.Join(j.Test.Select, " "))
	}
	for _, part := range parts {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cached) lookup(key string) (Verdict, bool) {
	c.mu.Lock()
	v, ok := c.mem[key]
	c.mu.Unlock()
	if ok || c.dir == "" {
		return v, ok
	}
	data, err := os.ReadFile(filepath.Join(c.dir, key+".json"))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			c.log.Warn("ci: verdict cache read failed", "key", key, "err", err)
		}
		return Verdict{}, false
	}
	if err := json.Unmarshal(data, &v); err != nil || v.Outcome == "" {
		c.log.Warn("ci: verdict cache entry unreadable, ignoring it", "key", key, "err", err)
		return Verdict{}, false
	}
	c.mu.Lock()
	c.mem[key] = v
	c.mu.Unlock()
	return v, true
}

// store keeps a verdict; a disk failure only costs a future re-execution, so it is
// logged rather than failing the call.
func (c *Cached) store(key string, v Verdict) {
	v.Cached = false
	c.mu.Lock()
	c.mem[key] = v
	c.mu.Unlock()
	if c.dir == "" {
		return
	}
	if err := writeAtomic(filepath.Join(c.dir, key+".json"), v); err != nil {
		c.log.Warn("ci: verdict cache write failed", "key", key, "err", err)
	}
}

// writeAtomic writes JSON through a temporary file and a rename, so readers never see
// half a verdict.
func writeAtomic(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
