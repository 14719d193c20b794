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

	"github.com/bmatcuk/doublestar/v4"
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

// placement is where a test goes in a tree: what contract commands see of it.
type placement struct {
	id  string
	rel string // slash-separated, relative to the tree's root
}

// place says where a test goes in a tree, or why it cannot go there: the id and the
// place must be safe in a file name and a shell command, inside the tree, and a place a
// tester named must be one the contract allows.
func place(c Contract, t Test) (placement, error) {
	if !validID(t.ID) {
		return placement{}, fmt.Errorf("test id %q: want letters, digits, '.', '_' and '-', not first '.' or '-'", t.ID)
	}
	if t.Path == "" {
		p := strings.ReplaceAll(c.Path, "{id}", t.ID)
		if !filepath.IsLocal(p) || strings.Contains(p, `\`) || path.Clean(p) != p {
			return placement{}, fmt.Errorf("test path %q is not a clean path inside the tree", p)
		}
		return placement{id: t.ID, rel: p}, nil
	}
	if err := CheckTestPath(c, t.Path); err != nil {
		return placement{}, err
	}
	return placement{id: t.ID, rel: t.Path}, nil
}

// CheckTestPath says why a tester may not put its test at rel, or nil: each part of the
// path is a plain name (letters, digits, '.', '_', '-', not first '.' or '-'), the path
// matches one of the contract's Paths, and it is a file the judge removes from a coder's
// tree, so that placing the test never overwrites the coder's code.
func CheckTestPath(c Contract, rel string) error {
	for _, part := range strings.Split(rel, "/") {
		if !validID(part) {
			return fmt.Errorf("test path %q: each part must be letters, digits, '.', '_' and '-', not first '.' or '-'", rel)
		}
	}
	allowed := false
	for _, pat := range c.Paths {
		if ok, _ := doublestar.Match(pat, rel); ok {
			allowed = true
			break
		}
	}
	switch {
	case len(c.Paths) == 0:
		return fmt.Errorf("test path %q: this repository's contract lets testers name no place (test.paths is empty): tests go to %s", rel, c.Path)
	case !allowed:
		return fmt.Errorf("test path %q is not one of the places tests may go: %s", rel, strings.Join(c.Paths, ", "))
	case !excluded(rel, c.Exclude):
		return fmt.Errorf("test path %q is not among the files the judge removes from a coder's tree (test.exclude), so a test there could overwrite code", rel)
	}
	return nil
}

// expand substitutes the test's id and place and the report's path into a contract
// command.
func (p placement) expand(cmd string) string {
	return strings.NewReplacer("{id}", p.id, "{path}", p.rel, "{dir}", path.Dir(p.rel),
		"{name}", strings.TrimSuffix(path.Base(p.rel), path.Ext(p.rel)),
		reportPlaceholder, reportVar).Replace(cmd)
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

// Places says where each test of a suite goes when the suite is kept in the repository
// (the escalation's pull request, the patch bot vet offers): the place its tester named,
// unless an earlier test of the suite took it, else the default place with its id.
func Places(c Contract, tests []Test) []string {
	out := make([]string, len(tests))
	taken := map[string]bool{}
	for i, t := range tests {
		p, err := place(c, t)
		if err != nil || taken[p.rel] {
			p.rel = strings.ReplaceAll(c.Path, "{id}", t.ID)
		}
		taken[p.rel] = true
		out[i] = p.rel
	}
	return out
}
