package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dixit-bot/dixit/internal/agent/workspace"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/treeperm"
)

// Bounds on what a coder's solution may keep; what is over them (build outputs, runaway
// logs, a command that wrote a million files) is left out when the working copy is
// committed. The tree bounds are twice those of a repository Dixit reads.
const (
	maxWorkspaceFile  = 8 << 20
	maxWorkspaceFiles = 100000
	maxWorkspaceBytes = 512 << 20
)

// maxNotes bounds the list of left-out paths in a commit message.
const maxNotes = 20

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

// commit records the directory as the result of turn draw and moves the hidden ref to
// it. Nothing the coder's commands did can make it fail: what a tree must not hold (a
// .git, links, unreadable or huge files) and changes to protected paths (CI workflows)
// are left out, named in the commit message, and removed from the directory.
//
// A turn that leaves the tree as the previous solution had it (the base, before the
// first) makes no new solution: nothing is committed, the previous commit is returned
// and changed is false. A commit equal to the base would otherwise pass for work done.
func (wc *workingCopy) commit(draw int) (commit string, changed bool, err error) {
	// An external agent may have removed the directory itself: that is an empty solution.
	if err := os.MkdirAll(wc.dir, 0o755); err != nil {
		return "", false, fmt.Errorf("coder %s: %w", wc.owner, err)
	}
	tree, dropped, err := wc.snapshot()
	if err != nil {
		return "", false, err
	}
	if changed, err = wc.differs(tree); err != nil {
		return "", false, err
	}
	if !changed {
		if len(dropped) > 0 { // what was left out goes: the next turn starts from the solution
			if err := wc.checkout(wc.current); err != nil {
				return "", false, err
			}
		}
		return wc.current, false, nil
	}
	commit, err = wc.w.CommitAfter(wc.ref, wc.current, tree, commitMessage(wc.owner, draw, dropped))
	if err != nil {
		return "", false, err
	}
	if len(dropped) > 0 { // the next turn starts from what was kept, and only that
		if err := wc.checkout(commit); err != nil {
			return "", false, err
		}
	}
	wc.current = commit
	return commit, true, nil
}

// changed reports whether the directory holds something other than the previous
// solution, as commit would record it.
func (wc *workingCopy) changed() (bool, error) {
	tree, _, err := wc.snapshot()
	if err != nil {
		return false, err
	}
	return wc.differs(tree)
}

// snapshot imports the directory as a tree, within the bounds of a solution.
func (wc *workingCopy) snapshot() (string, []gitstate.Dropped, error) {
	// A command may have taken its own permissions away (chmod 000, chmod 555): give them
	// back so that nothing it wrote is lost. What stays unreadable, Import names.
	treeperm.Restore(wc.dir)
	tree, dropped, err := wc.w.Import(wc.dir, gitstate.ImportOptions{
		Frozen: workspace.Protected, Parent: wc.current,
		MaxFile: maxWorkspaceFile, MaxFiles: maxWorkspaceFiles, MaxBytes: maxWorkspaceBytes,
	})
	if err != nil {
		return "", nil, fmt.Errorf("coder %s: %w", wc.owner, err)
	}
	return tree, dropped, nil
}

// differs reports whether tree is not the previous solution's.
func (wc *workingCopy) differs(tree string) (bool, error) {
	prev, err := wc.w.TreeOf(wc.current)
	if err != nil {
		return false, fmt.Errorf("coder %s: %w", wc.owner, err)
	}
	return tree != prev, nil
}

// commitMessage names the turn and what of the working copy the commit left out; the
// message travels with the coder's branch, and so with the pull request built on it.
func commitMessage(owner string, draw int, dropped []gitstate.Dropped) string {
	msg := fmt.Sprintf("%s: solve %d", owner, draw)
	if len(dropped) == 0 {
		return msg
	}
	var b strings.Builder
	b.WriteString(msg + "\n\nLeft out of the working copy:\n")
	for i, d := range dropped {
		if i == maxNotes {
			fmt.Fprintf(&b, "- and %d more\n", len(dropped)-maxNotes)
			break
		}
		fmt.Fprintf(&b, "- %s: %s\n", notePath(d.Path), d.Why)
	}
	return b.String()
}

// maxNotePath bounds one path in a commit message.
const maxNotePath = 200

// notePath quotes a path a coder chose for a commit message GitHub shows: escaped, so
// no invisible character hides in it, and with # and @ escaped too, so that a path
// like "fixes #1" closes no issue and mentions no one once the branch is merged.
func notePath(p string) string {
	if len(p) > maxNotePath {
		p = strings.ToValidUTF8(p[:maxNotePath], "") + "…"
	}
	q := strconv.QuoteToASCII(p)
	return strings.NewReplacer("#", `\x23`, "@", `\x40`).Replace(q)
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

// checkout makes the directory hold exactly the files of commit, whatever modes the
// coder's commands left on what was there.
// The directory itself stays: the coder's tools hold it open (os.Root), and a new
// directory in its place would leave them working in the removed one.
func (wc *workingCopy) checkout(commit string) error {
	if err := os.MkdirAll(wc.dir, 0o755); err != nil {
		return fmt.Errorf("reset the working copy of %s: %w", wc.owner, err)
	}
	if err := os.Chmod(wc.dir, 0o755); err != nil { // a command may have locked it
		return fmt.Errorf("reset the working copy of %s: %w", wc.owner, err)
	}
	entries, err := os.ReadDir(wc.dir)
	if err != nil {
		return fmt.Errorf("reset the working copy of %s: %w", wc.owner, err)
	}
	for _, e := range entries {
		if err := treeperm.RemoveAll(filepath.Join(wc.dir, e.Name())); err != nil {
			return fmt.Errorf("reset the working copy of %s: %w", wc.owner, err)
		}
	}
	return wc.w.Checkout(commit, wc.dir)
}
