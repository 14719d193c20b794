package gitstate

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
)

// Onto says where PushOnto puts a commit: on Branch of the repository at URL, with Base,
// a commit the remote already holds, as its parent.
type Onto struct {
	URL, Token string
	Base       string // the parent commit, already in the remote repository
	Branch     string // the branch to point at the new commit (forced)
	Message    string
}

// PushOnto pushes files as one commit on top of o.Base, which the remote already holds (a
// pull request's base revision). The branch then shares the remote's history, so GitHub
// can open a pull request from it, and its diff is exactly what the files change: a
// workflow file left as it was is not part of it. The new commit, its trees and its blobs
// are sent; Base is never fetched. It returns the new commit.
func PushOnto(ctx context.Context, o Onto, files []File) (string, error) {
	if !plumbing.IsHash(o.Base) {
		return "", fmt.Errorf("push onto %q: not a commit hash", o.Base)
	}
	scratch, err := memoryWorkshop()
	if err != nil {
		return "", err
	}
	tree, err := scratch.WriteFiles(files)
	if err != nil {
		return "", fmt.Errorf("push onto %s: %w", o.Base, err)
	}
	commit, err := scratch.commit("refs/heads/onto", o.Base, tree, o.Message)
	if err != nil {
		return "", fmt.Errorf("push onto %s: %w", o.Base, err)
	}
	if err := sendOnto(ctx, o, scratch, plumbing.NewHash(commit)); err != nil {
		return "", fmt.Errorf("push %s to %s: %w", o.Branch, o.URL, err)
	}
	return commit, nil
}

// sendOnto points the remote's branch at commit, sending every object of scratch: the new
// commit, its trees and its blobs, and nothing else. go-git's own push would walk the
// commit's history to find what the remote lacks, and the parent is not here to walk.
func sendOnto(ctx context.Context, o Onto, scratch *Workshop, commit plumbing.Hash) error {
	ep, err := transport.NewEndpoint(o.URL)
	if err != nil {
		return err
	}
	cl, err := client.NewClient(ep)
	if err != nil {
		return err
	}
	var auth transport.AuthMethod
	if o.Token != "" {
		auth = &http.BasicAuth{Username: "x-access-token", Password: o.Token}
	}
	sess, err := cl.NewReceivePackSession(ep, auth)
	if err != nil {
		return err
	}
	defer sess.Close()
	adv, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return err
	}
	name := plumbing.NewBranchReferenceName(o.Branch)
	old := plumbing.ZeroHash
	if refs, err := adv.AllReferences(); err == nil {
		if r, ok := refs[name]; ok {
			old = r.Hash()
		}
	}
	var objects []plumbing.Hash
	iter, err := scratch.repo.Storer.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		return err
	}
	if err := iter.ForEach(func(obj plumbing.EncodedObject) error {
		objects = append(objects, obj.Hash())
		return nil
	}); err != nil {
		return err
	}
	var pack bytes.Buffer
	if _, err := packfile.NewEncoder(&pack, scratch.repo.Storer, false).Encode(objects, 10); err != nil {
		return err
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(adv.Capabilities)
	req.Commands = []*packp.Command{{Name: name, Old: old, New: commit}}
	req.Packfile = io.NopCloser(&pack)
	status, err := sess.ReceivePack(ctx, req)
	if err != nil {
		return err
	}
	if status != nil {
		return status.Error()
	}
	return nil
}
