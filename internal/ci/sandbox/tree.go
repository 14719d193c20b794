package sandbox

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// ChownTree gives a directory tree to a lane's uid (or back), never following symlinks.
func ChownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// shareDir lets every lane (one gid, umask 002) use a cache directory tree. A cache
// grows to a hundred thousand files and every judge that opens it shares it, so the
// walk looks only at the files of directories changed since the last full share (the
// mtime of a sibling marker the lanes cannot write): a file added, removed or renamed
// changes its directory's mtime, and the lanes' own files need nothing. An unchanged
// directory without subdirectories is not even read.
func shareDir(dir string, gid int) error {
	mark, group := dir+".shared", []byte(strconv.Itoa(gid))
	var since time.Time // zero: every file is looked at
	if fi, err := os.Stat(mark); err == nil {
		if b, err := os.ReadFile(mark); err == nil && bytes.Equal(b, group) {
			since = fi.ModTime().Add(-time.Second) // the kernel's clock for mtimes is coarse
		}
	}
	// Written before the walk, so what changes during it is seen by the next one; named
	// apart, as two judges may open the cache at once.
	next, err := os.CreateTemp(filepath.Dir(mark), filepath.Base(mark)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(next.Name()) // when the walk fails
	if _, err := next.Write(group); err != nil {
		next.Close()
		return err
	}
	if err := next.Close(); err != nil {
		return err
	}
	changed := map[string]bool{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		if !d.IsDir() && !changed[filepath.Dir(p)] {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if err := share(p, fi, gid); err != nil || !d.IsDir() {
			return err
		}
		changed[p] = !fi.ModTime().Before(since)
		if !changed[p] && leaf(fi) {
			return filepath.SkipDir // nothing in it is new, and it holds no directory
		}
		return nil
	})
	if err != nil {
		return err
	}
	return os.Rename(next.Name(), mark)
}

// leaf tells a directory without subdirectories: its link count is 2 (itself and its
// entry in the parent) on the filesystems that count them; 1 means uncounted (btrfs).
func leaf(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 2
}

// share gives one file or directory to the lanes' group, group-writable, when it is not.
func share(p string, fi fs.FileInfo, gid int) error {
	mode := fi.Mode().Perm() | 0o060
	if fi.IsDir() {
		mode |= 0o070 | fs.ModeSetgid
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Gid) == gid &&
		fi.Mode()&(fs.ModePerm|fs.ModeSetgid) == mode {
		return nil
	}
	if err := os.Lchown(p, -1, gid); err != nil {
		return err
	}
	return os.Chmod(p, mode)
}
