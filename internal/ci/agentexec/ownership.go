package agentexec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// owner is who owned a path before it was lent to a lane.
type owner struct {
	uid, gid int
	setID    bool // a regular file that was setuid or setgid already
	lent     bool // chowned to the lane; false for files left alone
}

// lend gives a directory tree to a lane's uid so the agent's command can write it, and
// records the previous owners. Chowning keeps the modes as they are, unlike making the
// tree group-writable. Files with other hard links are left alone: chowning the inode
// would lend whatever else it is linked as. Symlinks are never followed.
func lend(dir string, uid, gid int) (map[string]owner, error) {
	owners := map[string]owner{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := lstat(p)
		if err != nil {
			return err
		}
		o := owner{uid: int(st.Uid), gid: int(st.Gid), setID: d.Type().IsRegular() && st.Mode&(syscall.S_ISUID|syscall.S_ISGID) != 0}
		if !d.IsDir() && st.Nlink > 1 {
			owners[p] = o
			return nil
		}
		if err := os.Lchown(p, uid, gid); err != nil {
			return err
		}
		o.lent = true
		owners[p] = o
		return nil
	})
	if err != nil {
		return owners, errors.Join(err, restore(owners))
	}
	return owners, nil
}

// restore gives the paths lent so far back to their owners (lend's own failure path).
func restore(owners map[string]owner) error {
	var errs []error
	for p, o := range owners {
		if o.lent {
			errs = append(errs, os.Lchown(p, o.uid, o.gid))
		}
	}
	return errors.Join(errs...)
}

// giveBack ends a loan after the command is dead: paths that existed return to their
// owners, new ones go to the calling process, and no file gains a setuid or setgid bit
// the agent could have planted for someone else to run. It goes on past errors.
func giveBack(dir string, owners map[string]owner) error {
	me := owner{uid: os.Getuid(), gid: os.Getgid()}
	var errs []error
	walkErr := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		o, known := owners[p]
		if !known {
			o = me
		}
		if err := os.Lchown(p, o.uid, o.gid); err != nil {
			errs = append(errs, err)
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		st, err := lstat(p)
		if err == nil && st.Mode&(syscall.S_ISUID|syscall.S_ISGID) != 0 && !o.setID {
			err = os.Chmod(p, fs.FileMode(st.Mode&0o777))
		}
		if err != nil {
			errs = append(errs, err)
		}
		return nil
	})
	errs = append(errs, walkErr)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("restore owners: %w", err)
	}
	return nil
}

// lstat returns the raw stat of a path without following a final symlink.
func lstat(p string) (*syscall.Stat_t, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(p, &st); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: p, Err: err}
	}
	return &st, nil
}
