package swebench

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// InputsHash keys an instance's cached matrix: the format, the options that change
// it, the instance's line, and every patch and sources.json of its folders.
func (r *Runner) InputsHash(inst *Instance) (string, error) {
	return r.inputsHash(inst, FormatVersion)
}

// KeptFormats are earlier formats whose matrices are read back rather than computed
// again: swe-matrix/2 differs from 3 only in the per-test limits (a wall limit of 3× the
// control session, 2 to 10 minutes, where 3 stops a test at 3× its CPU time or 10× its
// wall time), and no cell of the matrices committed in that format was stopped at its
// limit (docs/real-patches.md says which instances are in which format).
var KeptFormats = []string{"swe-matrix/2"}

func (r *Runner) inputsHash(inst *Instance, format string) (string, error) {
	if err := r.corpus.LoadPatches(inst); err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\nmax-coders %d %q\ntest-timeout %s\n", format, r.opts.MaxCoders, r.opts.Coders, r.opts.TestTimeout)
	h.Write(inst.line)
	for _, sub := range []string{"coders", "testers"} {
		data, err := readCapped(filepath.Join(r.corpus.Dir, sub, inst.ID, "sources.json"), maxIndex)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "\n%s %x\n", sub, sha256.Sum256(data))
	}
	for _, c := range inst.Coders {
		fmt.Fprintf(h, "coder %s %x\n", c.Name, sha256.Sum256(c.Diff))
	}
	for _, t := range inst.Tests {
		fmt.Fprintf(h, "test %s %x\n", t.Name, sha256.Sum256(t.Diff))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Cached reads out/<id>.json when it was made from the same inputs in this format, else nil.
func Cached(out, id, inputs string) *Matrix {
	return cachedIn(out, id, inputs, FormatVersion)
}

func cachedIn(out, id, inputs, format string) *Matrix {
	data, err := os.ReadFile(filepath.Join(out, id+".json"))
	if err != nil {
		return nil
	}
	var m Matrix
	if json.Unmarshal(data, &m) != nil || m.InputsSHA256 != inputs || m.Format != format || m.InstanceID != id {
		return nil
	}
	return &m
}

// cached is the matrix of inst already in out, in this format or a kept one, else nil.
func (r *Runner) cached(out string, inst *Instance, inputs string) *Matrix {
	if m := Cached(out, inst.ID, inputs); m != nil {
		return m
	}
	for _, format := range KeptFormats {
		if h, err := r.inputsHash(inst, format); err == nil {
			if m := cachedIn(out, inst.ID, h, format); m != nil {
				return m
			}
		}
	}
	return nil
}

// Write saves a matrix as out/<id>.json, whole or not at all.
func Write(out string, m *Matrix) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(out, "."+m.InstanceID+"-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(out, m.InstanceID+".json"))
}

// Summary sums up a corpus' matrices.
type Summary struct {
	Instances []InstanceSummary `json:"instances"`
	Totals    Totals            `json:"totals"`
}

// InstanceSummary is one instance's line of the summary.
type InstanceSummary struct {
	ID             string  `json:"instance_id"`
	Cached         bool    `json:"cached"`
	Seconds        float64 `json:"seconds"`
	Sessions       int     `json:"sessions"`
	Coders         int     `json:"coders"`
	Tests          int     `json:"tests"`
	Resolved       int     `json:"resolved"`
	EnvCells       int     `json:"env_cells"`
	LabelEnv       int     `json:"label_env"`
	F2PFailOnBase  bool    `json:"f2p_fail_on_base"`
	GoldPasses     bool    `json:"gold_passes"`
	Goldcheck      string  `json:"goldcheck"`
	Published      int     `json:"published_labels"`
	PublishedAgree int     `json:"published_labels_agree"`
	Error          string  `json:"error,omitempty"`
}

// Totals adds the instances up.
type Totals struct {
	Instances      int      `json:"instances"`
	Done           int      `json:"done"`
	Failed         int      `json:"failed"`
	Coders         int      `json:"coders"`
	Tests          int      `json:"tests"`
	Resolved       int      `json:"resolved"`
	EnvCells       int      `json:"env_cells"`
	LabelEnv       int      `json:"label_env"`
	GoldcheckAgree int      `json:"goldcheck_agree"`
	ControlsOK     int      `json:"controls_ok"` // every F2P fails on the base, every label test passes with the gold patch
	Devin          int      `json:"devin"`       // published labels of sources that publish both (Devin)
	DevinAgree     int      `json:"devin_agree"`
	Moatless       int      `json:"moatless"` // published labels of resolved-only sources (moatless)
	MoatlessAgree  int      `json:"moatless_agree"`
	Disagreements  []string `json:"disagreements"`
	Seconds        float64  `json:"seconds"`
}

// All makes (or reads from out) the matrix of every instance of the corpus in turn,
// writing each as it is done and the summary at the end. An instance that fails is
// reported in the summary and the others go on; a cancelled context stops the run.
func (r *Runner) All(ctx context.Context, out string, force bool) (*Summary, error) {
	sum := &Summary{}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	for _, inst := range r.corpus.Instances {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		is := InstanceSummary{ID: inst.ID}
		inputs, err := r.InputsHash(inst)
		var m *Matrix
		if err == nil && !force {
			if m = r.cached(out, inst, inputs); m != nil {
				is.Cached = true
			}
		}
		if err == nil && m == nil {
			t0 := time.Now()
			m, err = r.Instance(ctx, inst)
			if err == nil {
				m.InputsSHA256 = inputs
				err = Write(out, m)
			}
			if errors.Is(err, context.Canceled) {
				return sum, err
			}
			r.opts.Progress(fmt.Sprintf("%s: done in %.1f s (err %v)", inst.ID, time.Since(t0).Seconds(), err))
		}
		if err != nil {
			r.opts.Progress(fmt.Sprintf("%s: failed: %v", inst.ID, err))
			is.Error = err.Error()
			sum.Instances = append(sum.Instances, is)
			sum.Totals.Failed++
			continue
		}
		sum.add(&is, m)
		sum.Instances = append(sum.Instances, is)
	}
	sum.Totals.Instances = len(r.corpus.Instances)
	data, err := json.MarshalIndent(sum, "", " ")
	if err != nil {
		return sum, err
	}
	if err := os.WriteFile(filepath.Join(out, "summary.json"), append(data, '\n'), 0o644); err != nil {
		return sum, err
	}
	return sum, nil
}

func (s *Summary) add(is *InstanceSummary, m *Matrix) {
	lc := m.LabelCheck
	*is = InstanceSummary{ID: m.InstanceID, Cached: is.Cached, Seconds: m.Env.Seconds, Sessions: m.Sessions,
		Coders: len(m.Coders), Tests: len(m.Tests), Resolved: lc.CodersResolved, EnvCells: len(m.EnvCells),
		LabelEnv: len(m.LabelEnv), F2PFailOnBase: lc.F2PFailOnBase, GoldPasses: lc.GoldPasses,
		Goldcheck: lc.Goldcheck, Published: lc.Published, PublishedAgree: lc.PublishedAgree}
	t := &s.Totals
	t.Done++
	t.Coders += len(m.Coders)
	t.Tests += len(m.Tests)
	t.Resolved += lc.CodersResolved
	t.EnvCells += len(m.EnvCells)
	t.LabelEnv += len(m.LabelEnv)
	t.Seconds += m.Env.Seconds
	if lc.Goldcheck == "agrees" {
		t.GoldcheckAgree++
	}
	if lc.F2PFailOnBase && lc.GoldPasses {
		t.ControlsOK++
	}
	for _, c := range m.Coders {
		if c.PublishedLabel == "" {
			continue
		}
		agree := c.Resolved == (c.PublishedLabel == "resolved")
		if c.ResolvedOnlySource {
			t.Moatless++
			if agree {
				t.MoatlessAgree++
			}
		} else {
			t.Devin++
			if agree {
				t.DevinAgree++
			}
		}
	}
	for _, d := range lc.PublishedDisagr {
		t.Disagreements = append(t.Disagreements, m.InstanceID+" "+d)
	}
}
