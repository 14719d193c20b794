package actions

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/classify"
	"github.com/dixit-bot/dixit/internal/gitstate"
)

// Refs of the workshop repository the judge writes (docs/actions.md), outside
// refs/dixit/<run>/, which the run mirrors and adopts as a whole:
//
//	refs/dixit-classify/<run>/trees/<tree hash>  a coder's tree as a parentless commit
//	refs/dixit-classify/<run>/batches/<batch>    batch.json alone, as a parentless commit
//
// Commits use gitstate's fixed signature, so a tree always gives the same commit.
func treeRef(run, hash string) string   { return "refs/dixit-classify/" + run + "/trees/" + hash }
func batchRef(run, batch string) string { return "refs/dixit-classify/" + run + "/batches/" + batch }

type pushedTree struct{ tree, commit string }

// tree is one matrix job: a distinct coder tree of the batch.
type tree struct {
	hash     string // ci.Tree.Hash()
	src      ci.Tree
	name     string // the matrix coder name, echoed into results.json and the artifact name
	gitTree  string // the git tree hash of its files, what the runner reports
	commit   string
	verdicts []ci.Verdict // in the order of batch.tests
}

type batch struct {
	reruns    int
	trees     []*tree
	tests     []ci.Test
	testIndex map[string]int
	byJob     []*tree
}

// plan groups jobs into distinct trees and distinct tests: every tree runs every test.
func (j *Judge) plan(reruns int, jobs []ci.Job) (*batch, error) {
	if reruns < 1 || reruns > 1000 {
		return nil, fmt.Errorf("reruns %d: the workflow takes 1 to 1000", reruns)
	}
	b := &batch{reruns: reruns, testIndex: map[string]int{}}
	byHash := map[string]*tree{}
	names := map[string]bool{}
	for i, job := range jobs {
		if job.Tree == nil {
			return nil, fmt.Errorf("job %d (%s, %s): no tree", i, job.Coder, job.Test.ID)
		}
		if k, ok := b.testIndex[job.Test.ID]; ok {
			if !bytes.Equal(b.tests[k].Content, job.Test.Content) {
				return nil, fmt.Errorf("test %s appears twice with different content", job.Test.ID)
			}
		} else {
			b.testIndex[job.Test.ID] = len(b.tests)
			b.tests = append(b.tests, job.Test)
		}
		h := job.Tree.Hash()
		t, ok := byHash[h]
		if !ok {
			t = &tree{hash: h, src: job.Tree, name: matrixName(job.Coder, h, names)}
			names[t.name] = true
			byHash[h] = t
			b.trees = append(b.trees, t)
		}
		b.byJob = append(b.byJob, t)
	}
	if len(b.tests) > classify.MaxTests {
		return nil, fmt.Errorf("%d tests in one batch, the most is %d", len(b.tests), classify.MaxTests)
	}
	if len(b.trees) > 256 {
		return nil, fmt.Errorf("%d trees in one batch, a matrix holds 256 jobs", len(b.trees))
	}
	return b, nil
}

// matrixName is the coder's name, made unique (two versions of one coder in a batch) and
// valid for the workflow's checks.
func matrixName(coder, hash string, taken map[string]bool) string {
	short := hash
	if len(short) > 10 {
		short = short[:10]
	}
	name := coder
	if !idPattern.MatchString(name) || len(name) > 80 {
		name = "tree-" + short
	}
	if taken[name] {
		name += "-" + short
	}
	for n := 2; taken[name]; n++ {
		name = fmt.Sprintf("%s-%d", name, n)
	}
	return name
}

// newBatchID is unique per dispatch: a counter for people, random bits for uniqueness
// across servers and restarts.
func (j *Judge) newBatchID() string {
	var rnd [5]byte
	_, _ = rand.Read(rnd[:])
	j.mu.Lock()
	j.seq++
	n := j.seq
	j.mu.Unlock()
	return fmt.Sprintf("b%04d-%s", n, hex.EncodeToString(rnd[:]))
}

// push commits the trees not pushed yet and the batch, and pushes them in one go.
func (j *Judge) push(ctx context.Context, b *batch, trees []*tree, batchID string) (string, error) {
	var specs []string
	var fresh []*tree
	for _, t := range trees {
		j.mu.Lock()
		known, done := j.pushed[t.hash]
		j.mu.Unlock()
		if done {
			t.gitTree, t.commit = known.tree, known.commit
			continue
		}
		if err := j.commitTree(t); err != nil {
			return "", err
		}
		ref := treeRef(j.o.Run, t.gitTree)
		specs = append(specs, "+"+ref+":"+ref)
		fresh = append(fresh, t)
	}
	data, err := classify.NewBatch(j.o.Run, batchID, b.reruns, j.o.Contract, b.tests)
	if err != nil {
		return "", fmt.Errorf("batch.json: %w", err)
	}
	bt, err := j.ws.WriteFiles([]gitstate.File{{Path: "batch.json", Content: data}})
	if err != nil {
		return "", fmt.Errorf("batch.json: %w", err)
	}
	ref := batchRef(j.o.Run, batchID)
	commit, err := j.ws.CommitAfter(ref, "", bt, "dixit classify: batch "+batchID+"\n")
	if err != nil {
		return "", fmt.Errorf("batch.json: %w", err)
	}
	specs = append(specs, "+"+ref+":"+ref)
	token, err := j.o.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("token for git: %w", err)
	}
	if err := j.ws.Push(ctx, j.o.GitURL, token, specs...); err != nil {
		return "", infra("push the batch to the workshop: %w", err)
	}
	j.mu.Lock()
	for _, t := range fresh {
		j.pushed[t.hash] = pushedTree{tree: t.gitTree, commit: t.commit}
	}
	j.mu.Unlock()
	return commit, nil
}

// commitTree writes a tree into the judge's repository as a parentless commit.
func (j *Judge) commitTree(t *tree) error {
	dir, err := os.MkdirTemp("", "dixit-tree-*")
	if err != nil {
		return fmt.Errorf("tree of %s: %w", t.name, err)
	}
	defer os.RemoveAll(dir)
	if err := t.src.WriteTo(dir); err != nil {
		return fmt.Errorf("tree of %s: %w", t.name, err)
	}
	h, err := j.ws.ImportDir(dir)
	if err != nil {
		return fmt.Errorf("tree of %s: %w", t.name, err)
	}
	if h != t.hash {
		j.log.Warn("a tree's hash is not its git tree hash; checking results against the git hash",
			"coder", t.name, "hash", t.hash, "git", h)
	}
	commit, err := j.ws.CommitAfter(treeRef(j.o.Run, h), "", h, "dixit classify: a coder's tree\n")
	if err != nil {
		return fmt.Errorf("tree of %s: %w", t.name, err)
	}
	t.gitTree, t.commit = h, commit
	return nil
}

// prepare learns the default branch and, once, makes sure it holds the workflow.
func (j *Judge) prepare(ctx context.Context) error {
	j.wfMu.Lock()
	defer j.wfMu.Unlock()
	if j.branch == "" {
		if j.o.Branch != "" {
			j.branch = j.o.Branch
		} else {
			repo, _, err := j.o.Client.Repositories.Get(ctx, j.o.Owner, j.o.Repo)
			if err != nil {
				return fmt.Errorf("actions judge: the workshop %s/%s: %w", j.o.Owner, j.o.Repo, err)
			}
			if j.branch = repo.GetDefaultBranch(); j.branch == "" {
				return fmt.Errorf("actions judge: the workshop %s/%s has no default branch", j.o.Owner, j.o.Repo)
			}
		}
	}
	if !j.o.EnsureWorkflow || j.wfChecked {
		return nil
	}
	current, err := WorkflowIsCurrent(ctx, j.o.Client, j.o.Owner, j.o.Repo, j.branch)
	if err != nil {
		return fmt.Errorf("actions judge: %w", err)
	}
	if !current {
		token, err := j.o.Token(ctx)
		if err != nil {
			return fmt.Errorf("actions judge: token for git: %w", err)
		}
		changed, err := InstallWorkflow(ctx, j.o.GitURL, j.branch, token)
		if err != nil {
			return fmt.Errorf("actions judge: %w", err)
		}
		j.log.Info("workflow installed in the workshop", "branch", j.branch, "changed", changed)
	}
	j.wfChecked = true
	return nil
}

// WorkflowIsCurrent reports whether branch of owner/repo holds classify.Workflow at
// classify.WorkflowPath, byte for byte (GET contents; 404 is false, not an error).
func WorkflowIsCurrent(ctx context.Context, c *github.Client, owner, repo, branch string) (bool, error) {
	f, _, _, err := c.Repositories.GetContents(ctx, owner, repo, classify.WorkflowPath,
		&github.RepositoryContentGetOptions{Ref: branch})
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusNotFound {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s on %s of %s/%s: %w", classify.WorkflowPath, branch, owner, repo, err)
	}
	content, err := f.GetContent()
	if err != nil {
		return false, fmt.Errorf("read %s on %s of %s/%s: %w", classify.WorkflowPath, branch, owner, repo, err)
	}
	return content == string(classify.Workflow), nil
}
