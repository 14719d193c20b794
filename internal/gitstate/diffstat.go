package gitstate

import (
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
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
	var out []FileStat
	for _, s := range patch.Stats() {
		out = append(out, FileStat{Path: s.Name, Added: s.Addition, Deleted: s.Deletion})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
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
