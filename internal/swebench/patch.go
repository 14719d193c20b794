package swebench

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// Patch is a parsed, checked unified diff.
type Patch struct {
	Name  string // where it came from, for errors
	Files []*gitdiff.File
}

// Fuzz is how a patch is applied: FuzzNone as git apply does (every context line
// matches, the hunk may move), Fuzz3 as GNU patch -p1 --fuzz=3 does (up to three lines
// of context at either end of a hunk may differ).
const (
	FuzzNone = 0
	Fuzz3    = 3
)

// ParsePatch reads a git-style or traditional unified diff and checks it: at least one
// file; each path clean and inside the tree; text only; regular files only.
func ParsePatch(name string, diff []byte) (*Patch, error) {
	files, _, err := gitdiff.Parse(bytes.NewReader(diff))
	if err != nil {
		return nil, fmt.Errorf("%s: not a unified diff: %w", name, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no file changes in the diff", name)
	}
	// Names in git headers lose their a/ and b/ when parsed; those of traditional
	// headers ("--- a/x", "+++ b/x" alone) keep them: strip one component, as patch -p1
	// and git apply do.
	gitHeaders := 0
	for _, line := range bytes.Split(diff, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("diff --git ")) {
			gitHeaders++
		}
	}
	switch gitHeaders {
	case len(files):
	case 0:
		for _, f := range files {
			for _, n := range []*string{&f.OldName, &f.NewName} {
				if *n == "" {
					continue
				}
				_, rest, ok := strings.Cut(*n, "/")
				if !ok {
					return nil, fmt.Errorf("%s: path %q has no leading directory to strip (-p1)", name, *n)
				}
				*n = rest
			}
		}
	default:
		return nil, fmt.Errorf("%s: %d files, %d of them with git headers: a diff mixing git and traditional headers is not supported", name, len(files), gitHeaders)
	}
	seen := map[string]bool{}
	for _, f := range files {
		for _, p := range []string{f.OldName, f.NewName} {
			if p == "" {
				continue
			}
			if !localPath(p) {
				return nil, fmt.Errorf("%s: path %q is not a clean relative path inside the tree", name, p)
			}
		}
		target := f.NewName
		if f.IsDelete {
			target = f.OldName
		}
		if target == "" {
			return nil, fmt.Errorf("%s: a file change names no file", name)
		}
		if seen[target] {
			return nil, fmt.Errorf("%s: %s is changed twice", name, target)
		}
		seen[target] = true
		if f.IsBinary {
			return nil, fmt.Errorf("%s: %s: binary patches are not supported", name, target)
		}
		if f.IsCopy {
			return nil, fmt.Errorf("%s: %s: copies are not supported", name, target)
		}
		for _, m := range []os.FileMode{f.OldMode, f.NewMode} {
			if m != 0 && m != 0o100644 && m != 0o100755 && m != 0o100664 {
				return nil, fmt.Errorf("%s: %s: mode %o (only regular files)", name, target, m)
			}
		}
		for _, frag := range f.TextFragments {
			if err := frag.Validate(); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", name, target, err)
			}
		}
	}
	return &Patch{Name: name, Files: files}, nil
}

// Targets lists the files the patch writes (new names; old names of deletions).
func (p *Patch) Targets() []string {
	var out []string
	for _, f := range p.Files {
		if f.IsDelete {
			out = append(out, f.OldName)
		} else {
			out = append(out, f.NewName)
		}
		if f.IsRename && f.OldName != f.NewName {
			out = append(out, f.OldName)
		}
	}
	sort.Strings(out)
	return out
}

// Apply applies the patch to t and returns the changed files (nil: removed), leaving
// t as it is. An error says which file and hunk did not apply.
func (p *Patch) Apply(t *Tree, fuzz int) (map[string]*file, error) {
	changes := map[string]*file{}
	get := func(name string) (*file, bool) {
		if f, ok := changes[name]; ok {
			return f, f != nil
		}
		f, ok := t.files[name]
		return f, ok
	}
	for _, f := range p.Files {
		switch {
		case f.IsNew:
			if _, ok := get(f.NewName); ok {
				return nil, fmt.Errorf("%s: %s already exists", p.Name, f.NewName)
			}
			out, err := applyText(nil, f.TextFragments, fuzz)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", p.Name, f.NewName, err)
			}
			changes[f.NewName] = newFile(out, f.NewMode&0o111 != 0)
		case f.IsDelete:
			old, ok := get(f.OldName)
			if !ok {
				return nil, fmt.Errorf("%s: %s does not exist", p.Name, f.OldName)
			}
			out, err := applyText(old.data, f.TextFragments, fuzz)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", p.Name, f.OldName, err)
			}
			if len(out) != 0 {
				return nil, fmt.Errorf("%s: %s: the deletion leaves %d bytes", p.Name, f.OldName, len(out))
			}
			changes[f.OldName] = nil
		default:
			old, ok := get(f.OldName)
			if !ok {
				return nil, fmt.Errorf("%s: %s does not exist", p.Name, f.OldName)
			}
			if f.IsRename && f.OldName != f.NewName {
				if _, ok := get(f.NewName); ok {
					return nil, fmt.Errorf("%s: rename to %s, which exists", p.Name, f.NewName)
				}
			}
			out, err := applyText(old.data, f.TextFragments, fuzz)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", p.Name, f.OldName, err)
			}
			exec := old.exec
			if f.NewMode != 0 {
				exec = f.NewMode&0o111 != 0
			}
			if f.IsRename && f.OldName != f.NewName {
				changes[f.OldName] = nil
			}
			changes[f.NewName] = newFile(out, exec)
		}
	}
	return changes, nil
}

// splitLines splits text into lines that keep their "\n" (the last may lack it).
func splitLines(data []byte) []string {
	var lines []string
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, string(data))
			break
		}
		lines = append(lines, string(data[:i+1]))
		data = data[i+1:]
	}
	return lines
}

// applyText applies the fragments of one file in order. Each hunk's old lines must be
// found whole (git apply) or with up to fuzz lines of its leading and trailing context
// ignored (GNU patch), nearest first to where the hunk says, allowing for the hunks
// applied before it. As in git apply, a hunk without trailing context must end at the
// end of the file, and one that starts at line 1 (or 0) must match at its start; once
// context is ignored (fuzz) neither holds.
func applyText(src []byte, frags []*gitdiff.TextFragment, fuzz int) ([]byte, error) {
	img := splitLines(src)
	offset := 0
	for n, frag := range frags {
		var pre, post []string
		for _, l := range frag.Lines {
			if l.Op != gitdiff.OpAdd {
				pre = append(pre, l.Line)
			}
			if l.Op != gitdiff.OpDelete {
				post = append(post, l.Line)
			}
		}
		lead, trail := int(frag.LeadingContext), int(frag.TrailingContext)
		want := int(frag.OldPosition) - 1 + offset
		if frag.OldPosition == 0 {
			want = 0
		}
		applied := false
		for f := 0; f <= fuzz && !applied; f++ {
			dl, dt := min(f, lead), min(f, trail)
			if f > 0 && dl == 0 && dt == 0 {
				break // nothing more to ignore
			}
			p := pre[dl : len(pre)-dt]
			q := post[dl : len(post)-dt]
			atStart := f == 0 && frag.OldPosition <= 1
			atEnd := f == 0 && trail == 0
			pos := findLines(img, p, want+dl, atStart, atEnd)
			if pos < 0 {
				continue
			}
			next := make([]string, 0, len(img)-len(p)+len(q))
			next = append(next, img[:pos]...)
			next = append(next, q...)
			next = append(next, img[pos+len(p):]...)
			img = next
			// The lines after this hunk moved by its drift and its growth.
			offset = pos - dl - max(int(frag.OldPosition)-1, 0) + len(q) - len(p)
			applied = true
		}
		if !applied {
			return nil, fmt.Errorf("hunk %d (@@ -%d,%d +%d,%d @@) does not apply", n+1,
				frag.OldPosition, frag.OldLines, frag.NewPosition, frag.NewLines)
		}
	}
	return []byte(strings.Join(img, "")), nil
}

// findLines finds lines in img at the position nearest to want (then alternately
// before and after it), or -1. atStart and atEnd pin the match to the file's ends.
func findLines(img, lines []string, want int, atStart, atEnd bool) int {
	last := len(img) - len(lines)
	if last < 0 {
		return -1
	}
	match := func(pos int) bool {
		if pos < 0 || pos > last {
			return false
		}
		for i, l := range lines {
			if img[pos+i] != l {
				return false
			}
		}
		return true
	}
	switch {
	case atStart && atEnd:
		if last == 0 && match(0) {
			return 0
		}
		return -1
	case atStart:
		if match(0) {
			return 0
		}
		return -1
	case atEnd:
		if match(last) {
			return last
		}
		return -1
	}
	want = min(max(want, 0), last)
	for d := 0; d <= last; d++ {
		if match(want - d) {
			return want - d
		}
		if d > 0 && match(want+d) {
			return want + d
		}
		if want-d < 0 && want+d > last {
			break
		}
	}
	return -1
}

// Normalised is the patch reduced to what it changes, for comparing patches: each
// file's names, then its removed and added lines in order, without context, hunk
// positions, index lines or whitespace at line ends.
func (p *Patch) Normalised() string {
	files := append([]*gitdiff.File(nil), p.Files...)
	sort.SliceStable(files, func(i, j int) bool { return fileKey(files[i]) < fileKey(files[j]) })
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "--- %s\n+++ %s\n", f.OldName, f.NewName)
		for _, frag := range f.TextFragments {
			for _, l := range frag.Lines {
				switch l.Op {
				case gitdiff.OpAdd:
					b.WriteString("+" + strings.TrimRight(l.Line, " \t\r\n\f\v") + "\n")
				case gitdiff.OpDelete:
					b.WriteString("-" + strings.TrimRight(l.Line, " \t\r\n\f\v") + "\n")
				}
			}
		}
	}
	return b.String()
}

func fileKey(f *gitdiff.File) string {
	if f.NewName != "" {
		return f.NewName
	}
	return f.OldName
}
