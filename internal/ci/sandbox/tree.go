package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
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

// shareDir lets every lane (one gid, umask 002) use a cache directory tree.
func shareDir(dir string, gid int) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		mode := fi.Mode().Perm() | 0o060
		if d.IsDir() {
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
	})
}
