package actions

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/classify"
)

// ArtifactPrefix starts the name of each job's artifact; the coder's matrix name follows.
const ArtifactPrefix = "dixit-results-"

// maxEntries caps the entries of an artifact's zip: upload-artifact stores results.json
// alone.
const maxEntries = 8

// ErrRefused marks an artifact the judge will not read: over a cap, not a clean zip,
// or a results.json that is malformed or answers another request (batch, coder, tree,
// tests). Such an artifact ends the batch with an error at once: a retry would only pay
// for the same bug or tampering again.
var ErrRefused = errors.New("artifact refused")

// endedRun is a workflow run of a batch that ended, and how.
type endedRun struct {
	batchID    string
	runID      int64
	conclusion string
}

// collect reads each tree's artifact. A missing artifact or one that reports a judge
// failure is that tree's infrastructure failure; a refused one ends the batch.
func (j *Judge) collect(ctx context.Context, b *batch, todo []*tree, run endedRun) (map[string]treeResult, error) {
	batchID, runID, conclusion := run.batchID, run.runID, run.conclusion
	arts := map[string]*github.Artifact{}
	opts := &github.ListOptions{PerPage: 100}
	for {
		list, resp, err := j.o.Client.Actions.ListWorkflowRunArtifacts(ctx, j.o.Owner, j.o.Repo, runID, opts)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, infra("artifacts of workflow run %d: %w", runID, err)
		}
		for _, a := range list.Artifacts {
			arts[a.GetName()] = a
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	out := map[string]treeResult{}
	for _, t := range todo {
		name := ArtifactPrefix + t.name
		a, ok := arts[name]
		if !ok || a.GetExpired() {
			out[t.hash] = treeResult{err: fmt.Errorf("workflow run %d (%s): no artifact %s: the job for coder %s left no results.json",
				runID, conclusion, name, t.name)}
			continue
		}
		want := classify.Expect{Run: j.o.Run, Batch: batchID, Coder: t.name, Tree: t.gitTree, Reruns: b.reruns, Tests: b.tests}
		res, err := j.results(ctx, a, want)
		switch {
		case errors.Is(err, classify.ErrJudgeFailed):
			out[t.hash] = treeResult{err: fmt.Errorf("workflow run %d, coder %s: %w", runID, t.name, err)}
		case errors.Is(err, ErrRefused):
			return nil, fmt.Errorf("workflow run %d, coder %s: %w", runID, t.name, err)
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out[t.hash] = treeResult{err: fmt.Errorf("workflow run %d, coder %s: %w", runID, t.name, err)}
		default:
			out[t.hash] = treeResult{verdicts: res}
		}
	}
	return out, nil
}

// results downloads one artifact and reads its results.json.
func (j *Judge) results(ctx context.Context, a *github.Artifact, want classify.Expect) ([]ci.Verdict, error) {
	limit := j.cfg.MaxArtifactSize
	if a.GetSizeInBytes() > limit {
		return nil, fmt.Errorf("%w: %s is %d bytes, the cap is %d", ErrRefused, a.GetName(), a.GetSizeInBytes(), limit)
	}
	data, err := j.download(ctx, a)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrRefused, a.GetName(), limit)
	}
	rc, err := openResults(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRefused, a.GetName(), err)
	}
	res, err := classify.ReadResults(rc, want)
	if errors.Is(err, classify.ErrJudgeFailed) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRefused, a.GetName(), err)
	}
	vs, err := res.Verdicts(want.Tests)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRefused, a.GetName(), err)
	}
	return vs, nil
}

// download asks GitHub where the artifact's zip is (a 302 it does not follow) and
// fetches it from there without GitHub's credentials: the blob host is another party.
func (j *Judge) download(ctx context.Context, a *github.Artifact) ([]byte, error) {
	u, _, err := j.o.Client.Actions.DownloadArtifact(ctx, j.o.Owner, j.o.Repo, a.GetID(), 0)
	if err != nil {
		return nil, fmt.Errorf("artifact %s: %w", a.GetName(), err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, fmt.Errorf("%w: artifact %s: download URL scheme %q", ErrRefused, a.GetName(), u.Scheme)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("artifact %s: %w", a.GetName(), err)
	}
	resp, err := j.blob.Do(req)
	if err != nil {
		return nil, fmt.Errorf("artifact %s: download: %w", a.GetName(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("artifact %s: download: %s", a.GetName(), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, j.cfg.MaxArtifactSize+1))
	if err != nil {
		return nil, fmt.Errorf("artifact %s: download: %w", a.GetName(), err)
	}
	return data, nil
}

// openResults finds results.json in an artifact's zip. The zip must hold results.json
// alone (at its root), with no name that could climb out of a directory, and it is read
// through a cap whatever its header claims.
func openResults(data []byte) (io.Reader, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("not a zip archive: %w", err)
	}
	if len(zr.File) > maxEntries {
		return nil, fmt.Errorf("%d entries in the zip, at most %d", len(zr.File), maxEntries)
	}
	var found *zip.File
	for _, f := range zr.File {
		name := f.Name
		if strings.Contains(name, `\`) || strings.HasPrefix(name, "/") || path.Clean(name) != strings.TrimSuffix(name, "/") ||
			name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, "/../") {
			return nil, fmt.Errorf("entry %q climbs out of its directory", name)
		}
		if f.FileInfo().IsDir() {
			continue
		}
		if name != "results.json" {
			return nil, fmt.Errorf("unexpected entry %q (want results.json alone)", name)
		}
		found = f
	}
	if found == nil {
		return nil, errors.New("no results.json in the zip")
	}
	if found.UncompressedSize64 > classify.MaxResultsSize {
		return nil, fmt.Errorf("results.json is %d bytes uncompressed, the cap is %d", found.UncompressedSize64, classify.MaxResultsSize)
	}
	rc, err := found.Open()
	if err != nil {
		return nil, fmt.Errorf("results.json: %w", err)
	}
	defer rc.Close()
	// ReadResults caps what it reads too; reading here first checks the CRC.
	out, err := io.ReadAll(io.LimitReader(rc, classify.MaxResultsSize+1))
	if err != nil {
		return nil, fmt.Errorf("results.json: %w", err)
	}
	if len(out) > classify.MaxResultsSize {
		return nil, fmt.Errorf("results.json is over %d bytes uncompressed", classify.MaxResultsSize)
	}
	return bytes.NewReader(out), nil
}
