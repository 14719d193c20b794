package ci

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// validID reports whether a test id is safe in a file name and a shell command.
func validID(id string) bool {
	if id == "" || len(id) > 100 || id[0] == '.' || id[0] == '-' {
		return false
	}
	for _, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == '.' || r == '_' || r == '-'
		if !ok {
			return false
		}
	}
	return true
}

// testPath is where a test goes in a tree (slash-separated), or an error when the id or
// the resulting path would escape the tree or the shell command it is substituted into.
func testPath(c Contract, id string) (string, error) {
	if !validID(id) {
		return "", fmt.Errorf("test id %q: want letters, digits, '.', '_' and '-', not first '.' or '-'", id)
	}
	p := strings.ReplaceAll(c.Path, "{id}", id)
	if !filepath.IsLocal(p) || strings.Contains(p, `\`) || path.Clean(p) != p {
		return "", fmt.Errorf("test path %q is not a clean path inside the tree", p)
	}
	return p, nil
}

// expand substitutes the test id and the report's path into a contract command.
func expand(cmd, id string) string {
	return strings.NewReplacer("{id}", id, reportPlaceholder, reportVar).Replace(cmd)
}

// excluded reports whether a slash path relative to the tree matches a pattern; a
// pattern without "/" matches the base name at any depth.
func excluded(rel string, patterns []string) bool {
	for _, pat := range patterns {
		name := rel
		if !strings.Contains(pat, "/") {
			name = path.Base(rel)
		}
		if ok, _ := path.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// exclude deletes the files and directories of a tree that match the patterns.
func exclude(root string, patterns []string) error {
	if len(patterns) == 0 {
		return nil
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if !excluded(filepath.ToSlash(rel), patterns) {
			return nil
		}
		if d.IsDir() {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			return filepath.SkipDir
		}
		return os.Remove(p)
	})
}

// placeTest writes the test at rel inside the tree. The coder's tree may hold files or
// symlinks where the test's directories go: they are replaced, and os.Root keeps every
// step inside the tree whatever the tree holds.
func placeTest(src, rel string, content []byte) error {
	root, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer root.Close()
	parts := strings.Split(rel, "/")
	cur := ""
	for _, part := range parts[:len(parts)-1] {
		cur = path.Join(cur, part)
		fi, err := root.Lstat(cur)
		if err == nil && fi.IsDir() {
			continue
		}
		if err == nil {
			if err := root.Remove(cur); err != nil {
				return err
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := root.Mkdir(cur, 0o755); err != nil {
			return err
		}
	}
	if _, err := root.Lstat(rel); err == nil {
		if err := root.RemoveAll(rel); err != nil {
			return err
		}
	}
	return root.WriteFile(rel, content, 0o644)
}

// chownTree gives a directory tree to a lane's uid, never following symlinks.
func chownTree(dir string, uid, gid int) error {
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
