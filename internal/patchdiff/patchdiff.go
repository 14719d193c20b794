// Package patchdiff applies a unified diff (git diff, git format-patch, a pull request's
// .diff) to a tree of files held in memory. A diff is hostile input: one that does not
// apply exactly, or names a path outside the tree, is an error, and nothing is written.
package patchdiff

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/dixit-bot/dixit/internal/gitstate"
)

// Caps on what a diff may ask for. A pull request's diff is rarely over a megabyte;
// binary content is capped at the judge's largest file (classify's maxTreeFile).
const (
	MaxDiffBytes   = 10 << 20
	maxBinaryBytes = 32 << 20
	maxTreeBytes   = 256 << 20 // as the judge caps a tree
)

// ErrNoDiff is returned for an input that holds no file change: empty, or not a diff.
var ErrNoDiff = errors.New("no diff")

// Apply applies the diff read from r to files and returns the patched tree, sorted by
// path; files is not modified. It takes new, deleted, renamed, copied and modified files,
// mode changes, and binary changes made with `git diff --binary`. Hunks must match
// exactly (no fuzz, no offset), as `git apply` requires by default. Paths are relative,
// slash-separated and may not leave the tree or enter a .git directory. A diff without
// `diff --git` headers (plain `diff -u`) has one leading path component stripped, as
// `git apply` does. Errors name the file and, for a hunk that does not apply, the hunk.
func Apply(files []gitstate.File, r io.Reader) ([]gitstate.File, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxDiffBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the diff: %w", err)
	}
	if len(data) > MaxDiffBytes {
		return nil, fmt.Errorf("the diff is larger than %d bytes", MaxDiffBytes)
	}
	changes, _, err := gitdiff.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parse the diff: %w", err)
	}
	if len(changes) == 0 {
		return nil, ErrNoDiff
	}
	tree := make(map[string]gitstate.File, len(files))
	for _, f := range files {
		if _, dup := tree[f.Path]; dup {
			return nil, fmt.Errorf("the tree holds %s twice", f.Path)
		}
		tree[f.Path] = f
	}
	// Only git's headers carry the a/ b/ prefixes the parser strips itself.
	strip := !bytes.HasPrefix(data, []byte("diff --git ")) && !bytes.Contains(data, []byte("\ndiff --git "))
	var total int64
	for _, f := range files {
		total += int64(len(f.Content))
	}
	for _, c := range changes {
		before := len(tree[c.NewName].Content)
		if err := applyFile(tree, c, strip); err != nil {
			return nil, err
		}
		// Copies and binary literals can grow the tree far past the diff's own size:
		// keep a running total and stop at the judge's cap on a tree.
		if total += int64(len(tree[c.NewName].Content) - before); total > maxTreeBytes {
			return nil, fmt.Errorf("the patched tree is larger than %d bytes", maxTreeBytes)
		}
	}
	out := make([]gitstate.File, 0, len(tree))
	for _, f := range tree {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	if err := checkNesting(out); err != nil {
		return nil, err
	}
	return out, nil
}

// applyFile applies one file's change to tree.
func applyFile(tree map[string]gitstate.File, c *gitdiff.File, strip bool) error {
	// Names are checked as written and as used: "/etc/x" is refused, not read as "etc/x".
	for _, p := range []string{c.OldName, c.NewName} {
		if p != "" && !validPath(p) {
			return fmt.Errorf("%q: not a path inside the tree", p)
		}
	}
	oldName, newName := c.OldName, c.NewName
	if strip {
		oldName, newName = stripComponent(oldName), stripComponent(newName)
	}
	name := newName
	if c.IsDelete {
		name = oldName
	}
	if !c.IsNew && !validPath(oldName) {
		return fmt.Errorf("%q: not a path inside the tree", c.OldName)
	}
	if !c.IsDelete && !validPath(newName) {
		return fmt.Errorf("%q: not a path inside the tree", c.NewName)
	}
	var src gitstate.File
	if c.IsNew {
		if _, ok := tree[newName]; ok {
			return fmt.Errorf("%s: the diff creates it, but it exists", newName)
		}
	} else {
		var ok bool
		if src, ok = tree[oldName]; !ok {
			return fmt.Errorf("%s: the diff changes it, but it does not exist", oldName)
		}
	}
	if !c.IsDelete && newName != oldName && !c.IsNew {
		if _, ok := tree[newName]; ok {
			return fmt.Errorf("%s: the diff renames or copies %s onto it, but it exists", newName, oldName)
		}
	}
	content, err := applyContent(name, src.Content, c)
	if err != nil {
		return err
	}
	if c.IsDelete {
		if len(content) > 0 {
			return fmt.Errorf("%s: the diff deletes it, but its content differs", name)
		}
		delete(tree, oldName)
		return nil
	}
	exec := src.Executable
	if c.NewMode != 0 {
		// Git records 100644 and 100755 for files; 120000 (a link) and 160000 (a
		// submodule) could point outside the tree, so they are refused.
		if c.NewMode&0o170000 != 0o100000 {
			return fmt.Errorf("%s: mode %o (symbolic links and submodules are refused)", name, uint32(c.NewMode))
		}
		exec = c.NewMode&0o111 != 0
	}
	if !c.IsNew && !c.IsCopy && newName != oldName {
		delete(tree, oldName)
	}
	tree[newName] = gitstate.File{Path: newName, Content: content, Executable: exec}
	return nil
}

// applyContent applies the hunks (or binary patch) of c to src.
func applyContent(name string, src []byte, c *gitdiff.File) ([]byte, error) {
	var dst bytes.Buffer
	switch {
	case c.BinaryFragment != nil:
		// A literal binary patch replaces whatever is there: like `git apply`, check that
		// the file is the one the diff was made against, by its blob hash.
		if !c.IsNew && !matchesOID(src, c.OldOIDPrefix) {
			return nil, fmt.Errorf("%s: the binary patch was made against another version of it (index %s)", name, c.OldOIDPrefix)
		}
		a := gitdiff.NewBinaryApplier(&dst, bytes.NewReader(src), gitdiff.WithMaxBinaryFragmentBytes(maxBinaryBytes))
		if err := a.ApplyFragment(c.BinaryFragment); err != nil {
			return nil, fmt.Errorf("%s: the binary patch does not apply: %w", name, err)
		}
		if err := a.Close(); err != nil {
			return nil, fmt.Errorf("%s: the binary patch does not apply: %w", name, err)
		}
	case c.IsBinary:
		if c.IsDelete { // a deletion needs no content: the file exists, it goes
			return nil, nil
		}
		return nil, fmt.Errorf("%s: a binary change without its content (\"Binary files differ\"); make the diff with `git diff --binary`", name)
	case len(c.TextFragments) > 0:
		// Hunks are applied in the diff's order, so "hunk N" is the Nth in the diff.
		a := gitdiff.NewTextApplier(&dst, bytes.NewReader(src))
		for i, frag := range c.TextFragments {
			if err := a.ApplyFragment(frag); err != nil {
				line := ""
				var ae *gitdiff.ApplyError
				if errors.As(err, &ae) && ae.Line > 0 {
					line = fmt.Sprintf(" at line %d", ae.Line)
				}
				return nil, fmt.Errorf("%s: hunk %d (%s) does not apply%s: %w", name, i+1, strings.TrimSpace(frag.Header()), line, err)
			}
		}
		if err := a.Close(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	default: // a rename, a copy or a mode change: the content stays
		return src, nil
	}
	return dst.Bytes(), nil
}

// validPath reports whether p is a clean relative path inside the tree, outside any .git
// directory. fs.ValidPath refuses "", "/x", "x/", "..", "." and empty elements.
func validPath(p string) bool {
	if !fs.ValidPath(p) || p == "." || strings.ContainsAny(p, "\\\x00") {
		return false
	}
	for _, elem := range strings.Split(p, "/") {
		if strings.EqualFold(elem, ".git") {
			return false
		}
	}
	return true
}

// stripComponent drops a path's first component ("a/x" → "x"), as `git apply -p1` does.
func stripComponent(p string) string {
	if _, rest, ok := strings.Cut(p, "/"); ok {
		return rest
	}
	return p
}

// checkNesting refuses a tree where a path is both a file and a directory ("x" and
// "x/y"), which no directory or git tree can hold. files is sorted by path.
func checkNesting(files []gitstate.File) error {
	paths := make(map[string]bool, len(files))
	for _, f := range files {
		paths[f.Path] = true
	}
	for _, f := range files {
		for dir := f.Path; ; {
			i := strings.LastIndexByte(dir, '/')
			if i < 0 {
				break
			}
			dir = dir[:i]
			if paths[dir] {
				return fmt.Errorf("%s is both a file and a directory in the patched tree", dir)
			}
		}
	}
	return nil
}

// matchesOID reports whether content's git blob hash starts with prefix. An empty prefix
// (no index line) or a SHA-256 one (longer than SHA-1's 40 digits) is not checked.
func matchesOID(content []byte, prefix string) bool {
	if prefix == "" || len(prefix) > 40 {
		return true
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return strings.HasPrefix(hex.EncodeToString(h.Sum(nil)), strings.ToLower(prefix))
}
