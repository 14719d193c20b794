package gitstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
)

// ErrLeaseHeld means another holder's lease on the run has not expired.
var ErrLeaseHeld = errors.New("the run is driven by another server")

// ErrLeaseLost means the lease moved to another holder while this one thought it held it.
var ErrLeaseLost = errors.New("lease lost to another server")

// LeaseOptions say where a lease lives and who takes it.
type LeaseOptions struct {
	URL    string                                    // the remote repository holding the lease ref
	Token  func(ctx context.Context) (string, error) // a current token for git over HTTPS; nil for none
	Ref    string                                    // e.g. refs/dixit-lease/<run>
	Holder string                                    // who takes it: host, process, something unique
	TTL    time.Duration                             // how long a lease lasts without renewal (default 2m)
	Now    func() time.Time                          // clock; nil: time.Now
}

// leaseState is what a lease commit holds, in lease.json.
type leaseState struct {
	Holder  string    `json:"holder"`
	Expires time.Time `json:"expires"`
}

// Lease is a run's lease held in a ref of a remote repository. Every change is a
// fast-forward push of a new commit whose parent is the commit the pusher last saw, and
// git's receive-pack checks that old value under its ref lock: a compare-and-swap, so of
// two servers racing for one run exactly one wins. A holder that stops renewing loses the
// lease when it expires; the next taker's commit builds on the expired one.
type Lease struct {
	opts LeaseOptions
	repo *git.Repository

	mu      sync.Mutex
	head    plumbing.Hash // the lease commit this holder pushed last
	expires time.Time
}

// AcquireLease takes the lease unless someone else holds an unexpired one (ErrLeaseHeld,
// with the holder and expiry in the message).
func AcquireLease(ctx context.Context, opts LeaseOptions) (*Lease, error) {
	if opts.TTL <= 0 {
		opts.TTL = 2 * time.Minute
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Holder == "" || !validRef.MatchString(opts.Ref) {
		return nil, fmt.Errorf("lease: a holder and a valid ref are required (got %q, %q)", opts.Holder, opts.Ref)
	}
	repo, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		return nil, fmt.Errorf("lease %s: %w", opts.Ref, err)
	}
	l := &Lease{opts: opts, repo: repo}
	current, state, err := l.fetch(ctx)
	if err != nil {
		return nil, err
	}
	if !current.IsZero() && state.Holder != opts.Holder && opts.Now().Before(state.Expires) {
		return nil, fmt.Errorf("%w (%s, until %s)", ErrLeaseHeld, state.Holder, state.Expires.UTC().Format(time.RFC3339))
	}
	l.head = current
	if err := l.push(ctx, opts.Now().Add(opts.TTL)); err != nil {
		if errors.Is(err, ErrLeaseLost) {
			return nil, fmt.Errorf("%w (another server took it first)", ErrLeaseHeld)
		}
		return nil, err
	}
	return l, nil
}

// Expires returns when the lease ends unless renewed.
func (l *Lease) Expires() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.expires
}

// Renew extends the lease by its TTL. ErrLeaseLost means someone else holds it now.
func (l *Lease) Renew(ctx context.Context) error {
	return l.push(ctx, l.opts.Now().Add(l.opts.TTL))
}

// Release ends the lease now, so another server may take the run at once.
func (l *Lease) Release(ctx context.Context) error {
	return l.push(ctx, l.opts.Now().Add(-time.Second))
}

// Keep renews the lease every third of its TTL until ctx ends. When the lease is lost, or
// cannot be renewed before it expires, it calls lost once and returns: the caller must
// stop acting for the run.
func (l *Lease) Keep(ctx context.Context, lost func(error)) {
	tick := time.NewTicker(l.opts.TTL / 3)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		// A renewal is not cut when ctx ends: a push cut mid-flight may still land on the
		// remote, and the release that follows would then race with it.
		push, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.opts.TTL/3)
		err := l.Renew(push)
		cancel()
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return
		case errors.Is(err, ErrLeaseLost):
			lost(err)
			return
		case !l.opts.Now().Before(l.Expires().Add(-l.opts.TTL / 6)):
			// Still unreachable this close to the end: someone may take it any moment.
			lost(fmt.Errorf("lease about to expire and renewal keeps failing: %w", err))
			return
		}
	}
}

func (l *Lease) auth(ctx context.Context) (*http.BasicAuth, error) {
	if l.opts.Token == nil {
		return nil, nil
	}
	token, err := l.opts.Token(ctx)
	if err != nil {
		return nil, fmt.Errorf("lease %s: token: %w", l.opts.Ref, err)
	}
	return &http.BasicAuth{Username: "x-access-token", Password: token}, nil
}

func (l *Lease) remote() *git.Remote {
	return git.NewRemote(l.repo.Storer, &config.RemoteConfig{Name: "lease", URLs: []string{l.opts.URL}})
}

// fetch reads the lease ref's current commit and state (zero hash when there is none).
func (l *Lease) fetch(ctx context.Context) (plumbing.Hash, leaseState, error) {
	auth, err := l.auth(ctx)
	if err != nil {
		return plumbing.ZeroHash, leaseState{}, err
	}
	opts := &git.FetchOptions{RefSpecs: []config.RefSpec{config.RefSpec("+" + l.opts.Ref + ":" + l.opts.Ref)}, Tags: git.NoTags, Depth: 1}
	if auth != nil {
		opts.Auth = auth
	}
	err = l.remote().FetchContext(ctx, opts)
	var noMatch git.NoMatchingRefSpecError
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
	case errors.As(err, &noMatch), errors.Is(err, transport.ErrEmptyRemoteRepository):
		return plumbing.ZeroHash, leaseState{}, nil
	default:
		return plumbing.ZeroHash, leaseState{}, fmt.Errorf("lease %s: read from %s: %w", l.opts.Ref, l.opts.URL, err)
	}
	ref, err := l.repo.Storer.Reference(plumbing.ReferenceName(l.opts.Ref))
	if err != nil {
		return plumbing.ZeroHash, leaseState{}, fmt.Errorf("lease %s: %w", l.opts.Ref, err)
	}
	state, err := l.read(ref.Hash())
	return ref.Hash(), state, err
}

func (l *Lease) read(h plumbing.Hash) (leaseState, error) {
	var st leaseState
	c, err := l.repo.CommitObject(h)
	if err != nil {
		return st, fmt.Errorf("lease %s: %w", l.opts.Ref, err)
	}
	f, err := c.File("lease.json")
	if err != nil {
		// Not a lease someone can hold: treat as expired, the next commit replaces it.
		return st, nil
	}
	r, err := f.Reader()
	if err != nil {
		return st, fmt.Errorf("lease %s: %w", l.opts.Ref, err)
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, 4096))
	if err != nil {
		return st, fmt.Errorf("lease %s: %w", l.opts.Ref, err)
	}
	_ = json.Unmarshal(data, &st) // a garbled lease holds nothing
	return st, nil
}

// push commits a new lease state on top of the last one seen and pushes it without force.
func (l *Lease) push(ctx context.Context, expires time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	data, err := json.Marshal(leaseState{Holder: l.opts.Holder, Expires: expires.UTC()})
	if err != nil {
		return err
	}
	commit, err := l.commit(data, expires)
	if err != nil {
		return fmt.Errorf("lease %s: %w", l.opts.Ref, err)
	}
	name := plumbing.ReferenceName(l.opts.Ref)
	if err := l.repo.Storer.SetReference(plumbing.NewHashReference(name, commit)); err != nil {
		return fmt.Errorf("lease %s: %w", l.opts.Ref, err)
	}
	auth, err := l.auth(ctx)
	if err != nil {
		return err
	}
	opts := &git.PushOptions{RemoteName: "lease", RefSpecs: []config.RefSpec{config.RefSpec(l.opts.Ref + ":" + l.opts.Ref)}}
	if auth != nil {
		opts.Auth = auth
	}
	err = l.remote().PushContext(ctx, opts)
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		if lostRace(err) {
			return fmt.Errorf("%w: %v", ErrLeaseLost, err)
		}
		return fmt.Errorf("lease %s: write to %s: %w", l.opts.Ref, l.opts.URL, err)
	}
	l.head, l.expires = commit, expires
	return nil
}

// lostRace tells a rejected compare-and-swap from a transport failure: the remote moved
// (non-fast-forward, a ref lock or stale old value), or holds a commit this holder never saw.
func lostRace(err error) bool {
	if errors.Is(err, git.ErrNonFastForwardUpdate) || errors.Is(err, plumbing.ErrObjectNotFound) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"non-fast-forward", "failed to update ref", "already exists", "failed to lock", "cannot lock ref", "fetch first", "stale info", "object not found"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func (l *Lease) commit(data []byte, when time.Time) (plumbing.Hash, error) {
	st := l.repo.Storer
	blob := st.NewEncodedObject()
	blob.SetType(plumbing.BlobObject)
	w, err := blob.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	blobHash, err := st.SetEncodedObject(blob)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	tree := &object.Tree{Entries: []object.TreeEntry{{Name: "lease.json", Mode: filemode.Regular, Hash: blobHash}}}
	treeObj := st.NewEncodedObject()
	if err := tree.Encode(treeObj); err != nil {
		return plumbing.ZeroHash, err
	}
	treeHash, err := st.SetEncodedObject(treeObj)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	sig := object.Signature{Name: "dixit", Email: "dixit@localhost", When: l.opts.Now().UTC()}
	c := &object.Commit{Author: sig, Committer: sig, TreeHash: treeHash,
		Message: fmt.Sprintf("lease: %s until %s\n", l.opts.Holder, when.UTC().Format(time.RFC3339))}
	if !l.head.IsZero() {
		c.ParentHashes = []plumbing.Hash{l.head}
	}
	obj := st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}
