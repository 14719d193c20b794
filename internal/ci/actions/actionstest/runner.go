// Package actionstest stands in for GitHub's runners in tests: for a dispatch of the
// classification workflow it reads what the judge pushed to the workshop repository, runs
// `bot classify`'s own code on each coder, and uploads each results.json zipped, as the
// workflow's upload-artifact step does.
package actionstest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/classify"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/gitstate"
)

// ArtifactPrefix names each coder's artifact, as the workflow template does.
const ArtifactPrefix = "dixit-results-"

// Caches are what the stand-in runner keeps between dispatches, as a self-hosted runner
// may: the toolchain's build cache (Build, "" for one under the work directory) and a
// verdict cache (Verdicts, "" for none), so tests that judge the same jobs judge them once.
type Caches struct {
	Build, Verdicts string
}

// Run does what the workflow's jobs do for dispatch d on the bare repository at repo
// (the workshop as the git server holds it), with scratch space under workDir.
func Run(ctx context.Context, d ghtest.Dispatch, repo, workDir string, caches Caches) ([]ghtest.Artifact, error) {
	batchFiles, err := gitstate.ReadRevision(repo, d.Inputs["batch_ref"])
	if err != nil {
		return nil, fmt.Errorf("runner: batch: %w", err)
	}
	dir, err := os.MkdirTemp(workDir, "batch-")
	if err != nil {
		return nil, err
	}
	if err := batchFiles.WriteTo(dir); err != nil {
		return nil, err
	}
	b, tests, err := classify.ReadBatch(filepath.Join(dir, "batch.json"))
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	contract, err := classify.ContractFromJSON(b.Contract)
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	reruns, err := strconv.Atoi(d.Inputs["reruns"])
	if err != nil {
		return nil, fmt.Errorf("runner: reruns: %w", err)
	}
	var coders []struct {
		Name string `json:"name"`
		Ref  string `json:"ref"`
	}
	if err := json.Unmarshal([]byte(d.Inputs["coders"]), &coders); err != nil {
		return nil, fmt.Errorf("runner: coders: %w", err)
	}
	// A matrix job per coder, as the workflow runs them: at once.
	m := matrix{d: d, repo: repo, workDir: workDir, caches: caches, contract: contract, tests: tests, reruns: reruns}
	arts := make([]ghtest.Artifact, len(coders))
	errs := make([]error, len(coders))
	var wg sync.WaitGroup
	for i, c := range coders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			arts[i], errs[i] = m.runCoder(ctx, c.Name, c.Ref)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return arts, nil
}

// matrix is what every coder's job of one dispatch shares.
type matrix struct {
	d             ghtest.Dispatch
	repo, workDir string
	caches        Caches
	contract      ci.Contract
	tests         []ci.Test
	reruns        int
}

// runCoder is one coder's matrix job: `bot classify` on its tree, the results zipped.
func (m matrix) runCoder(ctx context.Context, name, ref string) (ghtest.Artifact, error) {
	tree, err := gitstate.ReadRevision(m.repo, ref)
	if err != nil {
		return ghtest.Artifact{}, fmt.Errorf("runner: coder %s: %w", name, err)
	}
	work, err := os.MkdirTemp(m.workDir, "job-")
	if err != nil {
		return ghtest.Artifact{}, err
	}
	res, err := classify.Classify(ctx, classify.Options{
		Run: m.d.Inputs["run_id"], Batch: m.d.Inputs["batch_id"], Coder: name, Tree: tree, Tests: m.tests,
		Reruns: m.reruns, Contract: m.contract, WorkDir: work, CacheDir: m.caches.Build, Verdicts: m.caches.Verdicts, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return ghtest.Artifact{}, fmt.Errorf("runner: classify %s: %w", name, err)
	}
	data, err := res.Marshal()
	if err != nil {
		return ghtest.Artifact{}, err
	}
	zipped, err := Zip(map[string]string{"results.json": string(data)})
	if err != nil {
		return ghtest.Artifact{}, err
	}
	return ghtest.Artifact{Name: ArtifactPrefix + name, Zip: zipped}, nil
}

// Zip packs files as upload-artifact does.
func Zip(files map[string]string) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range files {
		w, err := zw.Create(name)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write([]byte(content)); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
