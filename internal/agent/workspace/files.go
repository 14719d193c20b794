package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"syscall"
	"unicode/utf8"
)

type pathArgs struct {
	Path string `json:"path"`
}

// read returns a text file's content, its first MaxRead bytes when longer.
func (w *Workspace) read(raw string) (string, error) {
	var a pathArgs
	if err := decode(toolRead, raw, &a, "path"); err != nil {
		return "", err
	}
	rel, err := cleanPath(a.Path, false)
	if err != nil {
		return "", err
	}
	data, size, err := w.readFile(rel)
	if err != nil {
		return "", err
	}
	if size == 0 {
		return fmt.Sprintf("(%s is empty)", rel), nil
	}
	cut := int64(len(data)) < size
	if binary(data, cut) {
		return fmt.Sprintf("%s is a binary file (%d bytes); its content is not shown", rel, size), nil
	}
	if !cut {
		return string(data), nil
	}
	for len(data) > 0 && !utf8.Valid(data) { // drop a character split by the cut
		data = data[:len(data)-1]
	}
	return fmt.Sprintf("%s\n[cut: showing the first %d of %d bytes of %s]", data, len(data), size, rel), nil
}

// readFile reads a regular file's first MaxRead bytes; size is its whole size.
func (w *Workspace) readFile(rel string) (data []byte, size int64, err error) {
	// O_NONBLOCK: opening a FIFO a command left behind must not hang the call.
	f, err := w.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, fsError(rel, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, fsError(rel, err)
	}
	if fi.IsDir() {
		return nil, 0, toolErrorf("%s is a directory; use list_files to see what it holds", rel)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, toolErrorf("%s is not a regular file", rel)
	}
	data, err = io.ReadAll(io.LimitReader(f, w.opts.MaxRead))
	if err != nil {
		return nil, 0, fsError(rel, err)
	}
	return data, max(fi.Size(), int64(len(data))), nil
}

// binary reports whether data looks like anything but text: a NUL byte, or invalid
// UTF-8 other than a character split by the cut at the end.
func binary(data []byte, cut bool) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	if cut {
		for i := 0; i < utf8.UTFMax-1 && len(data) > 0 && !utf8.Valid(data); i++ {
			data = data[:len(data)-1]
		}
	}
	return !utf8.Valid(data)
}

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

// write replaces or creates a regular file. New files get mode 0644; a replaced file
// keeps its mode, so a script stays executable.
func (w *Workspace) write(raw string) (string, error) {
	var a writeArgs
	if err := decode(toolWrite, raw, &a, "path", "content"); err != nil {
		return "", err
	}
	rel, err := cleanPath(a.Path, false)
	if err != nil {
		return "", err
	}
	if why := Protected(rel); why != "" {
		return "", toolErrorf("%s cannot be written: %s", rel, why)
	}
	if a.Content == nil {
		return "", toolErrorf("content is required (use \"\" for an empty file)")
	}
	if n := int64(len(*a.Content)); n > w.opts.MaxWrite {
		return "", toolErrorf("content is %d bytes; write_file accepts at most %d bytes per file", n, w.opts.MaxWrite)
	}
	fi, err := w.root.Lstat(rel)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return "", toolErrorf("%s is a symbolic link; write_file does not write through links (delete it first)", rel)
	case err == nil && fi.IsDir():
		return "", toolErrorf("%s is a directory; it cannot be replaced by a file", rel)
	case err == nil && !fi.Mode().IsRegular():
		return "", toolErrorf("%s is not a regular file", rel)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", fsError(rel, err)
	}
	created := err != nil
	if dir := path.Dir(rel); dir != "." {
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return "", fsError(dir, err)
		}
	}
	// O_NOFOLLOW: nothing may have turned the file into a link since Lstat.
	f, err := w.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return "", fsError(rel, err)
	}
	_, err = io.WriteString(f, *a.Content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && created {
		err = w.root.Chmod(rel, 0o644) // whatever the process umask
	}
	if err != nil {
		return "", fsError(rel, err)
	}
	verb := "replaced"
	if created {
		verb = "created"
	}
	return fmt.Sprintf("%s %s (%d bytes)", verb, rel, len(*a.Content)), nil
}

// delete removes a file, a symbolic link (not its target) or an empty directory.
func (w *Workspace) delete(raw string) (string, error) {
	var a pathArgs
	if err := decode(toolDelete, raw, &a, "path"); err != nil {
		return "", err
	}
	rel, err := cleanPath(a.Path, false)
	if err != nil {
		return "", err
	}
	if why := Protected(rel); why != "" {
		return "", toolErrorf("%s cannot be deleted: %s", rel, why)
	}
	fi, err := w.root.Lstat(rel)
	if err != nil {
		return "", fsError(rel, err)
	}
	if err := w.root.Remove(rel); err != nil {
		if fi.IsDir() && (errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST)) {
			return "", toolErrorf("%s is a directory that is not empty; delete what it holds first", rel)
		}
		return "", fsError(rel, err)
	}
	if fi.IsDir() {
		return fmt.Sprintf("deleted the empty directory %s", rel), nil
	}
	return fmt.Sprintf("deleted %s", rel), nil
}
