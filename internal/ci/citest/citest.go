// Package citest holds the fixtures the judge's packages share in their tests: trees
// made from maps, a quiet logger, and the host's side of a sandbox test (a directory any
// user can traverse, a stand-in bwrap, the umask). It imports nothing of Dixit's, so the
// tests of every package of the judge can use it, package ci's own among them.
package citest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
)

// MapTree is a tree (ci.Tree) made from a map of slash paths to contents.
type MapTree map[string]string

// Hash identifies the tree's content: equal maps, equal hashes.
func (m MapTree) Hash() string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%s\x00", n, m[n])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// WriteTo writes the tree's files under dir.
func (m MapTree) WriteTo(dir string) error {
	for name, content := range m {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// With returns a copy of the tree with some files replaced or added: path, content,
// path, content...
func (m MapTree) With(kv ...string) MapTree {
	out := MapTree{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// QuietLogger is a logger that writes nothing.
func QuietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
