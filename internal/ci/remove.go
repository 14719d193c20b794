package ci

import "github.com/dixit-bot/dixit/internal/treeperm"

// removeAll deletes a job directory even after a test made parts of it read-only. The
// coders' working copies are reset with the same removal.
func removeAll(dir string) error { return treeperm.RemoveAll(dir) }
