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
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"github.com/dixit-bot/dixit/internal/ci/classify"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/gitstate"
)

// ArtifactPrefix names each coder's artifact, as the workflow template does.
const ArtifactPrefix = "dixit-results-"

// Run does what the workflow's jobs do for dispatch d on the bare repository at repo
// (the workshop as the git server holds it), with scratch space under workDir and the
// toolchain's build cache in cacheDir ("" for one under workDir).
func Run(ctx context.Context, d ghtest.Dispatch, repo, workDir, cacheDir string) ([]ghtest.Artifact, error) {
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
	var arts []ghtest.Artifact
	for _, c := range coders {
		tree, err := gitstate.ReadRevision(repo, c.Ref)
		if err != nil {
			return nil, fmt.Errorf("runner: coder %s: %w", c.Name, err)
		}
		work, err := os.MkdirTemp(workDir, "job-")
		if err != nil {
			return nil, err
		}
		res, err := classify.Classify(ctx, classify.Options{
			Run: d.Inputs["run_id"], Batch: d.Inputs["batch_id"], Coder: c.Name, Tree: tree, Tests: tests,
			Reruns: reruns, Contract: contract, WorkDir: work, CacheDir: cacheDir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			return nil, fmt.Errorf("runner: classify %s: %w", c.Name, err)
		}
		data, err := res.Marshal()
		if err != nil {
			return nil, err
		}
		zipped, err := Zip(map[string]string{"results.json": string(data)})
		if err != nil {
			return nil, err
		}
		arts = append(arts, ghtest.Artifact{Name: ArtifactPrefix + c.Name, Zip: zipped})
	}
	return arts, nil
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
