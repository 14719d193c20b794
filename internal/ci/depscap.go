package ci

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// trimDeps keeps the dependency caches under the judge's cache limit: past it, the ones
// used least recently go, those in use by any judge (locked) excepted, until three
// quarters are left. just is the cache prepared a moment ago, which stays.
func (l *Local) trimDeps(just string) {
	type cache struct {
		key  string
		size int64
		used time.Time
	}
	entries, err := os.ReadDir(l.sb.DepsRoot())
	if err != nil {
		return
	}
	var caches []cache
	var total int64
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		c := cache{key: e.Name(), size: dirSize(filepath.Join(l.sb.DepsRoot(), e.Name()))}
		if fi, err := os.Stat(filepath.Join(l.sb.DepsRoot(), e.Name(), readyMark)); err == nil {
			c.used = fi.ModTime()
		}
		caches = append(caches, c)
		total += c.size
	}
	if total <= l.cacheLimit {
		return
	}
	slices.SortFunc(caches, func(a, b cache) int { return a.used.Compare(b.used) })
	for _, c := range caches {
		if total <= l.cacheLimit/4*3 {
			break
		}
		if c.key != just && l.removeUnused(c.key) {
			total -= c.size
			l.log.Info("ci: dependency cache trimmed", "key", c.key, "freed_bytes", c.size, "limit_bytes", l.cacheLimit)
		}
	}
}

// touch marks a prepared cache as used now: trimming goes by it.
func (l *Local) touch(key string) {
	now := time.Now()
	os.Chtimes(filepath.Join(l.sb.DepsRoot(), key, readyMark), now, now)
	l.log.Debug("ci: dependencies already prepared", "key", key)
}

// removeUnused removes a dependency cache that no judge holds.
func (l *Local) removeUnused(key string) bool {
	dir := filepath.Join(l.sb.DepsRoot(), key)
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return false
	}
	defer lock.Close()
	if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // in use
	}
	return removeAll(dir) == nil
}

// dirSize is the bytes of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
