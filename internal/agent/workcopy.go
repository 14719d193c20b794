package agent

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/gitstate"
)

// maxWorkspaceFile is the largest file a coder's solution may keep; bigger ones (build
// outputs, runaway logs) are dropped before the working copy is committed.
const maxWorkspaceFile = 8 << 20

// workingCopy is a coder's directory on disk and its hidden ref in the workshop, where
// each turn's result is committed. Live and external coders share it.
type workingCopy struct {
	w       *gitstate.Workshop
	owner   string
	dir     string
	ref     string
	current string // the commit the directory holds
}

func newWorkingCopy(w *gitstate.Workshop, run, name, dir, base string) (*workingCopy, error) {
	wc := &workingCopy{w: w, owner: name, dir: dir, ref: "refs/dixit/" + run + "/coders/" + name}
	// The directory may hold a half-finished turn of a killed process: start clean.
	if err := wc.checkout(base); err != nil {
		return nil, err
	}
	wc.current = base
	return wc, nil
}

// commit records the directory as the result of turn draw and moves the hidden ref to it.
func (wc *workingCopy) commit(draw int) (string, error) {
	if err := pruneSpecial(wc.dir); err != nil {
		return "", fmt.Errorf("coder %s: %w", wc.owner, err)
	}
	tree, err := wc.w.ImportDir(wc.dir)
	if err != nil {
		return "", fmt.Errorf("coder %s: %w", wc.owner, err)
	}
	commit, err := wc.w.CommitAfter(wc.ref, wc.current, tree, fmt.Sprintf("%s: solve %d", wc.owner, draw))
	if err != nil {
		return "", err
	}
	wc.current = commit
	return commit, nil
}

// reset makes the directory and the hidden ref hold commit again (a rollback).
func (wc *workingCopy) reset(commit string) error {
	if err := wc.checkout(commit); err != nil {
		return err
	}
	head, _, err := wc.w.Ref(wc.ref)
	if err != nil {
		return err
	}
	if head != "" && head != commit {
		if err := wc.w.SetRef(wc.ref, head, commit); err != nil {
			return fmt.Errorf("restore workspace of %s: %w", wc.owner, err)
		}
	}
	wc.current = commit
	return nil
}

// checkout makes the directory hold exactly the files of commit.
func (wc *workingCopy) checkout(commit string) error {
	if err := os.RemoveAll(wc.dir); err != nil {
		return fmt.Errorf("reset %s: %w", wc.dir, err)
	}
	if err := os.MkdirAll(wc.dir, 0o755); err != nil {
		return fmt.Errorf("reset %s: %w", wc.dir, err)
	}
	return wc.w.Checkout(commit, wc.dir)
}

// pruneSpecial removes what a solution cannot hold: symbolic links and other special
// files a command may have made, and files too large to be source.
func pruneSpecial(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() || info.Size() > maxWorkspaceFile {
			return os.Remove(p)
		}
		return nil
	})
}
