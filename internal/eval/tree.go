package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/dixit-bot/dixit/internal/ci"
)

// dirTree is a directory on disk as the judge sees it: the reference solution. Its hash,
// which the verdict cache keys on, is a digest of its paths and content.
type dirTree struct {
	dir  string
	hash string
}

var _ ci.Tree = dirTree{}

func newDirTree(dir string) (dirTree, error) {
	h := sha256.New()
	if err := digest(h, dir); err != nil {
		return dirTree{}, fmt.Errorf("reference tree: %w", err)
	}
	// The prefix keeps these apart from git tree hashes in the shared verdict cache.
	return dirTree{dir: dir, hash: "dir-" + hex.EncodeToString(h.Sum(nil))}, nil
}

func (t dirTree) Hash() string { return t.hash }

func (t dirTree) WriteTo(dir string) error { return copyTree(t.dir, dir) }
