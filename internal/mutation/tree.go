package mutation

import (
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/ci"
)

var _ ci.Tree = tree{}

func (t tree) Hash() string { return t.hash }

// WriteTo writes the mutated files under dir.
func (t tree) WriteTo(dir string) error {
	for _, f := range t.files {
		target := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if f.Executable {
			mode = 0o755
		}
		if err := os.WriteFile(target, f.Content, mode); err != nil {
			return err
		}
	}
	return nil
}
