package gitstate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/diff"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/dixit-bot/dixit/internal/tamperscan"
)

// FileStat is how one file differs between two trees.
type FileStat struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`   // lines
	Deleted int    `json:"deleted"` // lines
}

// DiffStat compares two trees (or commits' trees) line by line, as `git diff --numstat`
// would: one entry per changed file, sorted by path. An empty from compares against
// an empty tree.
func (w *Workshop) DiffStat(from, to string) ([]FileStat, error) {
	patch, err := w.patch(from, to)
	if err != nil {
		return nil, err
	}
	var out []FileStat
	for _, s := range patch.Stats() {
		out = append(out, FileStat{Path: s.Name, Added: s.Addition, Deleted: s.Deletion})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// AddedLines is the change from one tree (or commit) to another as the tamper scan
// reads it: every file created or changed, sorted by path, with the lines added, numbered
// as in the new file. A binary file comes with its path alone; a deleted one not at all.
func (w *Workshop) AddedLines(from, to string) (tamperscan.Change, error) {
	patch, err := w.patch(from, to)
	if err != nil {
		return nil, err
	}
	var out tamperscan.Change
	for _, fp := range patch.FilePatches() {
		_, after := fp.Files()
		if after == nil {
			continue
		}
		f := tamperscan.File{Path: after.Path()}
		n := 1
		for _, chunk := range fp.Chunks() {
			lines := strings.SplitAfter(chunk.Content(), "\n")
			if lines[len(lines)-1] == "" {
				lines = lines[:len(lines)-1]
			}
			switch chunk.Type() {
			case diff.Equal:
				n += len(lines)
			case diff.Add:
				for _, l := range lines {
					f.Added = append(f.Added, tamperscan.Line{Number: n, Text: strings.TrimRight(l, "\r\n")})
					n++
				}
			}
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// patch is the line-by-line difference between two trees (or commits' trees).
func (w *Workshop) patch(from, to string) (*object.Patch, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	a, err := w.treeOf(from)
	if err != nil {
		return nil, err
	}
	b, err := w.treeOf(to)
	if err != nil {
		return nil, err
	}
	changes, err := object.DiffTree(a, b)
	if err != nil {
		return nil, fmt.Errorf("compare %s and %s: %w", from, to, err)
	}
	patch, err := changes.Patch()
	if err != nil {
		return nil, fmt.Errorf("compare %s and %s: %w", from, to, err)
	}
	return patch, nil
}

// treeOf reads a tree given its hash or a commit's; "" is the empty tree.
func (w *Workshop) treeOf(hash string) (*object.Tree, error) {
	if hash == "" {
		return &object.Tree{}, nil
	}
	h := plumbing.NewHash(hash)
	if tree, err := w.repo.TreeObject(h); err == nil {
		return tree, nil
	}
	c, err := w.repo.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", hash, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("read tree of %s: %w", hash, err)
	}
	return tree, nil
}
