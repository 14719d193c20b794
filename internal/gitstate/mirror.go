package gitstate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
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
	return w.Push(ctx, url, token, "+"+prefix+"*:"+prefix+"*")
}

// PullRun fetches the remote's refs under prefix and adopts them when the remote's
// journal (the ref prefix+journal) strictly extends the local one: the remote then holds
// everything this disk has and more. Otherwise the local refs stay as they are (the
// remote is behind: this server got further before its last mirror). It reports whether
// it adopted the remote's state.
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
		if ahead, err := c.IsAncestor(r); err != nil || !ahead {
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
