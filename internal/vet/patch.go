package vet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/patchdiff"
)

// ReadPatch reads the patch under review (bot vet --patch): a diff file applied to the run's base (the
// population's base/, else HEAD of repo), a directory with the whole patched tree, or a
// revision (branch, tag, commit) of the repository.
func ReadPatch(patch, population, repo string) (ci.Tree, error) {
	if patch == "" {
		return nil, errors.New("vet: give --patch FILE (a diff against the base), --patch DIR (the whole patched tree) or --patch REV (a branch or commit of --repo)")
	}
	info, statErr := os.Stat(patch)
	if statErr == nil {
		switch {
		case info.IsDir():
			return gitstate.ReadDir(patch)
		case info.Mode().IsRegular():
			return diffTree(patch, population, repo)
		}
		return nil, fmt.Errorf("vet: --patch %s is neither a regular file nor a directory", patch)
	}
	tree, err := gitstate.ReadRevision(repo, patch)
	if err != nil {
		return nil, fmt.Errorf("vet: --patch %s: no such file or directory, and %v", patch, err)
	}
	return tree, nil
}

// diffTree applies the diff in the file at path to the run's base revision.
func diffTree(path, population, repo string) (ci.Tree, error) {
	var base []gitstate.File
	var err error
	baseName := filepath.Join(population, "base")
	if population != "" {
		var tree *gitstate.Snapshot
		if tree, err = gitstate.ReadDir(baseName); err == nil {
			base = tree.Files()
		}
	} else {
		baseName = "HEAD of " + repo
		base, _, err = gitstate.ReadHead(repo)
	}
	if err != nil {
		return nil, fmt.Errorf("vet: the base to apply --patch %s to: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("vet: --patch: %w", err)
	}
	defer f.Close()
	files, err := patchdiff.Apply(base, f)
	if errors.Is(err, patchdiff.ErrNoDiff) {
		return nil, fmt.Errorf("vet: --patch %s holds no diff", path)
	}
	if err != nil {
		return nil, fmt.Errorf("vet: --patch %s does not apply to %s: %w", path, baseName, err)
	}
	tree, err := gitstate.SnapshotOf(files)
	if err != nil {
		return nil, fmt.Errorf("vet: --patch %s: the patched tree: %w", path, err)
	}
	return tree, nil
}
