// Package treeperm undoes what code we ran may have done to the modes of a directory
// tree it could write: a `chmod 000` or `chmod 555` must not stop us from reading the
// tree or removing it. Root ignores modes; everyone else needs this.
package treeperm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RemoveAll removes dir and everything below it, even after the code that wrote it
// made parts of it unreadable or read-only. A missing dir is not an error.
func RemoveAll(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	// Unlinking needs write and search permission on the parent: give them back on
	// every directory (never through a symbolic link), then try again.
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil // go on past what cannot be fixed; the second RemoveAll reports it
	})
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return nil
}

// Restore gives the owner read, write and search permission on every directory under
// dir and read permission on every regular file, keeping the other bits, so that the
// tree can be read whole. It never follows symbolic links and goes on past what it
// cannot change (a file of another owner); the error names those.
func Restore(dir string) error {
	var errs []error
	walkErr := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			// A directory still unreadable after its mode was restored: skip what it holds.
			errs = append(errs, err)
			return nil
		}
		var need fs.FileMode
		switch {
		case d.IsDir():
			need = 0o700
		case d.Type().IsRegular():
			need = 0o400
		default:
			return nil
		}
		info, err := d.Info()
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if mode := info.Mode(); mode.Perm()&need != need {
			if err := os.Chmod(p, mode|need); err != nil { // the other bits as they were
				errs = append(errs, err)
			}
		}
		return nil
	})
	errs = append(errs, walkErr)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("restore permissions under %s: %w", dir, err)
	}
	return nil
}
