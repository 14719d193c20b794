package vet

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/mutation"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// MutantOptions say how the patch's mutants are judged (mutation.Options), so that a
// caller of vet needs nothing more to ask for them.
type MutantOptions = mutation.Options

// ScoreMutants measures how strong the vetted suite is on this patch (issue 23 item 5):
// the share of the patch's mutants that the vetted tests kill, kept in v.Mutants for the
// report's sentence. A patch passing every vetted test says more when the suite kills
// most of its mutants. Nothing is measured when nothing was vetted.
func ScoreMutants(ctx context.Context, opts mutation.Options, patch ci.Tree, res *orchestrate.Result, v *Verdict) error {
	if len(res.Vetted) == 0 {
		return nil
	}
	files, err := treeFiles(patch)
	if err != nil {
		return fmt.Errorf("mutants of the patch: %w", err)
	}
	tests := make([]ci.Test, len(res.Vetted))
	for i, t := range res.Vetted {
		tests[i] = t.Test()
	}
	score, err := mutation.Patch(ctx, opts, files, tests)
	if err != nil {
		return fmt.Errorf("mutants of the patch: %w", err)
	}
	v.Mutants = &score
	return nil
}

// treeFiles lists a tree's files: a snapshot's directly, any other tree by writing it out.
func treeFiles(t ci.Tree) ([]gitstate.File, error) {
	if s, ok := t.(interface{ Files() []gitstate.File }); ok {
		return s.Files(), nil
	}
	dir, err := os.MkdirTemp("", "dixit-vet-mutants-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := t.WriteTo(dir); err != nil {
		return nil, err
	}
	var out []gitstate.File
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		out = append(out, gitstate.File{Path: filepath.ToSlash(rel), Content: data, Executable: info.Mode()&0o111 != 0})
		return nil
	})
	return out, err
}
