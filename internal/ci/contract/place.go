package contract

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

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

// Placement is where a test goes in a tree: what contract commands see of it.
type Placement struct {
	ID  string
	Rel string // slash-separated, relative to the tree's root
}

// Place says where the test id goes in a tree, at the place its tester named (at, ""
// for none), or why it cannot go there: the id and the place must be safe in a file
// name and a shell command, inside the tree, and a place a tester named must be one the
// contract allows.
func Place(c Contract, id, at string) (Placement, error) {
	if !validID(id) {
		return Placement{}, fmt.Errorf("test id %q: want letters, digits, '.', '_' and '-', not first '.' or '-'", id)
	}
	if at == "" {
		p := strings.ReplaceAll(c.Path, "{id}", id)
		if !filepath.IsLocal(p) || strings.Contains(p, `\`) || path.Clean(p) != p {
			return Placement{}, fmt.Errorf("test path %q is not a clean path inside the tree", p)
		}
		return Placement{ID: id, Rel: p}, nil
	}
	if err := CheckTestPath(c, at); err != nil {
		return Placement{}, err
	}
	return Placement{ID: id, Rel: at}, nil
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

// Expand substitutes the test's id and place and the report's path into a contract
// command.
func (p Placement) Expand(cmd string) string {
	return strings.NewReplacer("{id}", p.ID, "{path}", p.Rel, "{dir}", path.Dir(p.Rel),
		"{name}", strings.TrimSuffix(path.Base(p.Rel), path.Ext(p.Rel)),
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

// RemoveExcluded deletes the files and directories of a tree that match the patterns.
func RemoveExcluded(root string, patterns []string) error {
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

// PlaceFile writes a file (a test, or a file that comes with the tests) at rel inside
// the tree at src. The coder's tree may hold files or symlinks where its directories
// go: they are replaced, and os.Root keeps every step inside the tree whatever the tree
// holds.
func PlaceFile(src, rel string, content []byte) error {
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

// PlaceDir makes an empty directory at rel inside src, never following what the tree
// holds on the way.
func PlaceDir(src, rel string) error {
	root, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer root.Close()
	return root.MkdirAll(rel, 0o755)
}

// LocalPath reports whether a slash path is clean, relative and stays in the tree.
func LocalPath(p string) bool {
	return p != "" && !strings.HasPrefix(p, "/") && !strings.Contains(p, `\`) &&
		path.Clean(p) == p && p != ".." && !strings.HasPrefix(p, "../")
}
