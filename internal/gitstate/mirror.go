package gitstate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
)

// A run's hidden state lives in the local workshop on the server's disk and is mirrored to
// a remote workshop repository, so that losing the disk, or a second server taking the
// run over, loses at most the work since the last mirror.

// PushRun mirrors every ref under prefix (e.g. "refs/dixit/<run>/") to the same names on
// the remote. It forces: rollbacks move refs back, and only the lease holder pushes.
func (w *Workshop) PushRun(ctx context.Context, url, token, prefix string) error {
	if err := checkPrefix(prefix); err != nil {
		return err
	}
	if err := w.keepAll(prefix); err != nil {
		return err
	}
	return w.Push(ctx, url, token, "+"+prefix+"*:"+prefix+"*")
}

// keepAll makes every commit in the workshop reachable from prefix+"keep". The journal
// names commits that no ref points at any more (a coder's attempt that was rolled back),
// and a push sends only what refs reach: without this, a replay on another disk would
// miss them.
func (w *Workshop) keepAll(prefix string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	refs, err := w.refsUnder(prefix)
	if err != nil {
		return err
	}
	reached := map[plumbing.Hash]bool{}
	var stack []plumbing.Hash
	for _, h := range refs {
		stack = append(stack, h)
	}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if reached[h] {
			continue
		}
		reached[h] = true
		c, err := w.repo.CommitObject(h)
		if err != nil {
			continue // not a commit (or shallow): nothing behind it to keep
		}
		stack = append(stack, c.ParentHashes...)
	}
	iter, err := w.repo.CommitObjects()
	if err != nil {
		return fmt.Errorf("list commits: %w", err)
	}
	var loose []plumbing.Hash
	err = iter.ForEach(func(c *object.Commit) error {
		if !reached[c.Hash] {
			loose = append(loose, c.Hash)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("list commits: %w", err)
	}
	if len(loose) == 0 {
		return nil
	}
	sort.Slice(loose, func(i, j int) bool { return loose[i].String() < loose[j].String() })
	empty := w.repo.Storer.NewEncodedObject()
	if err := (&object.Tree{}).Encode(empty); err != nil {
		return err
	}
	tree, err := w.repo.Storer.SetEncodedObject(empty)
	if err != nil {
		return fmt.Errorf("keep commits: %w", err)
	}
	keep := prefix + "keep"
	head := refs["keep"]
	// Small octopus commits, chained: git handles any number of parents, but tools that
	// show history do not all like hundreds at once.
	for len(loose) > 0 {
		n := min(len(loose), 32)
		parents := loose[:n]
		loose = loose[n:]
		if !head.IsZero() {
			parents = append([]plumbing.Hash{head}, parents...)
		}
		c := &object.Commit{Author: signature, Committer: signature, TreeHash: tree, ParentHashes: parents,
			Message: "keep every commit the journal may name\n"}
		obj := w.repo.Storer.NewEncodedObject()
		if err := c.Encode(obj); err != nil {
			return err
		}
		h, err := w.repo.Storer.SetEncodedObject(obj)
		if err != nil {
			return fmt.Errorf("keep commits: %w", err)
		}
		head = h
	}
	return w.setRefTo(keep, head)
}

// PullRun fetches the remote's refs under prefix and adopts them unless the local journal
// (the ref prefix+journal) already contains the remote's: then this server got further
// than its last mirror (it stopped before pushing) and its disk is the truth. When the two
// journals diverged, this server went on after losing the run's lease, and the remote,
// pushed by the lease holder since, wins. It reports whether it adopted the remote's state.
func (w *Workshop) PullRun(ctx context.Context, url, token, prefix string) (bool, error) {
	if err := checkPrefix(prefix); err != nil {
		return false, err
	}
	incoming := "refs/incoming/" + strings.TrimPrefix(prefix, "refs/")
	opts := &git.FetchOptions{RefSpecs: []config.RefSpec{config.RefSpec("+" + prefix + "*:" + incoming + "*")}, Tags: git.NoTags}
	if token != "" {
		opts.Auth = &http.BasicAuth{Username: "x-access-token", Password: token}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	// go-git writes fetched refs in place: a process killed mid-fetch can leave an empty
	// ref file, which would fail every later fetch. Incoming refs live only for this
	// call, so whatever an earlier one left is removed from disk first.
	if err := os.RemoveAll(filepath.Join(w.path, filepath.FromSlash(incoming))); err != nil {
		return false, fmt.Errorf("clear %s: %w", incoming, err)
	}
	defer w.dropRefs(incoming)
	remote := git.NewRemote(w.repo.Storer, &config.RemoteConfig{Name: "dixit", URLs: []string{url}})
	err := remote.FetchContext(ctx, opts)
	var noMatch git.NoMatchingRefSpecError
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
	case errors.As(err, &noMatch), errors.Is(err, transport.ErrEmptyRemoteRepository):
		return false, nil
	default:
		return false, fmt.Errorf("fetch %s from %s: %w", prefix, url, err)
	}
	theirs, err := w.refsUnder(incoming)
	if err != nil {
		return false, err
	}
	ours, err := w.refsUnder(prefix)
	if err != nil {
		return false, err
	}
	remoteJournal, ok := theirs["journal"]
	if !ok {
		return false, nil
	}
	if localJournal, ok := ours["journal"]; ok {
		if localJournal == remoteJournal {
			return false, nil
		}
		c, err := w.repo.CommitObject(localJournal)
		if err != nil {
			return false, fmt.Errorf("read local journal: %w", err)
		}
		r, err := w.repo.CommitObject(remoteJournal)
		if err != nil {
			return false, fmt.Errorf("read remote journal: %w", err)
		}
		if behind, err := r.IsAncestor(c); err != nil || behind {
			return false, err
		}
	}
	for name, h := range theirs {
		if err := w.setRefTo(prefix+name, h); err != nil {
			return false, err
		}
	}
	for name := range ours {
		if _, keep := theirs[name]; !keep {
			if err := w.repo.Storer.RemoveReference(plumbing.ReferenceName(prefix + name)); err != nil {
				return false, fmt.Errorf("drop %s%s: %w", prefix, name, err)
			}
		}
	}
	return true, nil
}

func checkPrefix(prefix string) error {
	if !strings.HasSuffix(prefix, "/") || !validRef.MatchString(strings.TrimSuffix(prefix, "/")) || strings.Contains(prefix, "..") {
		return fmt.Errorf("mirror: %q is not a ref prefix such as refs/dixit/<run>/", prefix)
	}
	return nil
}

// refsUnder maps the names below prefix to their commits; w.mu must be held.
func (w *Workshop) refsUnder(prefix string) (map[string]plumbing.Hash, error) {
	iter, err := w.repo.Storer.IterReferences()
	if err != nil {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	out := map[string]plumbing.Hash{}
	err = iter.ForEach(func(r *plumbing.Reference) error {
		if name := r.Name().String(); strings.HasPrefix(name, prefix) && r.Type() == plumbing.HashReference {
			out[strings.TrimPrefix(name, prefix)] = r.Hash()
		}
		return nil
	})
	if err != nil && !errors.Is(err, storer.ErrStop) {
		return nil, fmt.Errorf("list refs: %w", err)
	}
	return out, nil
}

// setRefTo moves a ref wherever it is; w.mu must be held (the run's lease makes this the
// only writer).
func (w *Workshop) setRefTo(name string, h plumbing.Hash) error {
	current := ""
	if ref, err := w.repo.Storer.Reference(plumbing.ReferenceName(name)); err == nil {
		current = ref.Hash().String()
	}
	return w.setRef(name, current, h.String())
}

// dropRefs removes every ref under prefix; w.mu must be held.
func (w *Workshop) dropRefs(prefix string) {
	refs, err := w.refsUnder(prefix)
	if err != nil {
		return
	}
	for name := range refs {
		_ = w.repo.Storer.RemoveReference(plumbing.ReferenceName(prefix + name))
	}
}
