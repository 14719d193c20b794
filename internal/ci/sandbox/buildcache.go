package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// trimEvery spaces the cache walks: one costs ~10 ms for a few thousand files, and
// between two of them at most Parallel builds can add to the cache. A cache of a hundred
// thousand files takes a second of CPU to walk, so the space also grows to walkShare
// times the last walk: walking never costs more than 1/walkShare of the judge's time.
const (
	trimEvery = 2 * time.Second
	walkShare = 50
)

// cacheTrim is when the build cache was last trimmed, shared by the variants of a
// sandbox: one cache walk at a time.
type cacheTrim struct {
	mu      sync.Mutex
	limit   int64         // bytes the build cache may hold (Config.CacheLimit)
	trimmed time.Time     // when the cache was last walked
	wait    time.Duration // from trimmed to the next walk: trimEvery or walkShare walks
}

// TrimCache keeps the toolchain cache under its limit, at most once per trimEvery. What
// a job's build put there is the job's; what stays is everyone's.
func (s *Sandbox) TrimCache() {
	if s.cacheDir == "" {
		return
	}
	s.trim.mu.Lock()
	defer s.trim.mu.Unlock()
	// The last walk is remembered beside the cache (where the lanes cannot write), so a
	// judge opened for every run does not walk it again on its first job.
	mark := s.cacheDir + ".trimmed"
	if s.trim.trimmed.IsZero() {
		if fi, err := os.Stat(mark); err == nil {
			b, _ := os.ReadFile(mark)
			took, _ := time.ParseDuration(string(b))
			s.trim.trimmed, s.trim.wait = fi.ModTime(), walkShare*took
		}
	}
	if time.Since(s.trim.trimmed) < max(trimEvery, s.trim.wait) {
		return
	}
	start := time.Now()
	freed, err := capDir(s.cacheDir, s.trim.limit)
	s.trim.trimmed = time.Now()
	took := s.trim.trimmed.Sub(start)
	s.trim.wait = walkShare * took
	if werr := os.WriteFile(mark, []byte(took.String()), 0o644); werr != nil {
		s.log.Warn("ci: cannot note when the build cache was trimmed", "file", mark, "err", werr)
	}
	if err != nil {
		s.log.Warn("ci: cannot trim the build cache", "dir", s.cacheDir, "err", err)
	}
	if freed > 0 {
		s.log.Info("ci: build cache trimmed", "dir", s.cacheDir, "freed_bytes", freed, "limit_bytes", s.trim.limit)
	}
}

// capDir removes the least recently modified files under dir until what is left holds at
// most three quarters of limit, when it holds more than limit; it returns the bytes freed.
// The Go toolchain refreshes an entry's modification time when it uses it (at most once
// an hour), and takes a missing entry for a miss, so removing files under a running build
// costs a rebuild, never a wrong one.
func capDir(dir string, limit int64) (int64, error) {
	type entry struct {
		path string
		size int64
		mod  time.Time
	}
	var files []entry
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed by a build meanwhile
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		files = append(files, entry{p, info.Size(), info.ModTime()})
		total += info.Size()
		return nil
	})
	if err != nil || total <= limit {
		return 0, err
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	var freed int64
	for _, f := range files {
		if total-freed <= limit/4*3 {
			break
		}
		if err := os.Remove(f.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			freed += f.size
		}
	}
	return freed, nil
}
