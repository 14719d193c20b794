package workspace

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/dixit-bot/dixit/internal/gitstate"
)

type listArgs struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive"`
}

// list shows the entries under a directory (or the one file named), with paths from
// the workspace root, sorted by name within each directory, names git reserves left out.
func (w *Workspace) list(raw string) (string, error) {
	var a listArgs
	if err := decode(toolList, raw, &a, "path", "recursive"); err != nil {
		return "", err
	}
	rel, err := cleanPath(a.Path, true)
	if err != nil {
		return "", err
	}
	fi, err := w.root.Stat(rel) // a link to a directory inside the workspace lists it
	if err != nil {
		return "", fsError(rel, err)
	}
	if !fi.IsDir() {
		return w.line(rel, fs.FileInfoToDirEntry(fi)), nil
	}
	var lines []string
	full := false
	add := func(p string, d fs.DirEntry) error {
		if len(lines) == w.opts.MaxFiles {
			full = true
			return fs.SkipAll // ends the walk without an error
		}
		lines = append(lines, w.line(p, d))
		return nil
	}
	fsys := w.root.FS()
	if a.Recursive {
		err = fs.WalkDir(fsys, rel, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case p == rel:
				return nil
			case gitstate.ReservedName(d.Name()):
				return skip(d)
			}
			return add(p, d)
		})
	} else {
		var entries []fs.DirEntry
		if entries, err = fs.ReadDir(fsys, rel); err == nil { // sorted by name
			for _, d := range entries {
				if gitstate.ReservedName(d.Name()) {
					continue
				}
				if add(path.Join(rel, d.Name()), d); full {
					break
				}
			}
		}
	}
	if err != nil {
		return "", fsError(rel, err)
	}
	if len(lines) == 0 {
		return fmt.Sprintf("(%s is an empty directory)", rel), nil
	}
	out := strings.Join(lines, "\n")
	if full {
		out += fmt.Sprintf("\n[listing stopped at %d entries; list a subdirectory to see the rest]", w.opts.MaxFiles)
	}
	return out, nil
}

// skip leaves out a reserved entry, and all below it when it is a directory.
func skip(d fs.DirEntry) error {
	if d.IsDir() {
		return fs.SkipDir
	}
	return nil
}

// line describes one entry: "dir/", "file (12 bytes)", "link -> target".
func (w *Workspace) line(p string, d fs.DirEntry) string {
	switch t := d.Type(); {
	case t.IsDir():
		return p + "/"
	case t&fs.ModeSymlink != 0:
		if target, err := w.root.Readlink(p); err == nil {
			return p + " -> " + target
		}
		return p + " (symbolic link)"
	case t.IsRegular():
		if fi, err := d.Info(); err == nil {
			return fmt.Sprintf("%s (%d bytes)", p, fi.Size())
		}
		return p
	}
	return p + " (special file)"
}
