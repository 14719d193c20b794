package deps

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/dixit-bot/dixit/internal/treeperm"
)

// trim keeps the dependency caches under the judge's cache limit: past it, the ones
// used least recently go, those in use by any judge (locked) excepted, until three
// quarters are left. just is the cache prepared a moment ago, which stays.
func (c *Cache) trim(just string) {
	type cache struct {
		key  string
		size int64
		used time.Time
	}
	entries, err := os.ReadDir(c.cfg.Sandbox.DepsRoot())
	if err != nil {
		return
	}
	var caches []cache
	var total int64
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		one := cache{key: e.Name(), size: dirSize(filepath.Join(c.cfg.Sandbox.DepsRoot(), e.Name()))}
		if fi, err := os.Stat(filepath.Join(c.cfg.Sandbox.DepsRoot(), e.Name(), readyMark)); err == nil {
			one.used = fi.ModTime()
		}
		caches = append(caches, one)
		total += one.size
	}
	if total <= c.cfg.Limit {
		return
	}
	slices.SortFunc(caches, func(a, b cache) int { return a.used.Compare(b.used) })
	for _, one := range caches {
		if total <= c.cfg.Limit/4*3 {
			break
		}
		if one.key != just && c.removeUnused(one.key) {
			total -= one.size
			c.cfg.Logger.Info("ci: dependency cache trimmed", "key", one.key, "freed_bytes", one.size, "limit_bytes", c.cfg.Limit)
		}
	}
}

// touch marks a prepared cache as used now: trimming goes by it.
func (c *Cache) touch(key string) {
	now := time.Now()
	os.Chtimes(filepath.Join(c.cfg.Sandbox.DepsRoot(), key, readyMark), now, now)
	c.cfg.Logger.Debug("ci: dependencies already prepared", "key", key)
}

// removeUnused removes a dependency cache that no judge holds.
func (c *Cache) removeUnused(key string) bool {
	dir := filepath.Join(c.cfg.Sandbox.DepsRoot(), key)
	lock, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return false
	}
	defer lock.Close()
	if syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // in use
	}
	return treeperm.RemoveAll(dir) == nil
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
