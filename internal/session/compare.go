package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/cast"
	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// compare measures how the implementations differ, from the base revision and from
// each other, runs the probe on those that pass the whole vetted suite, and picks the
// one the pull request is built from. None of it changes a verdict.
func (s *session) compare(ctx context.Context, sum *runfile.Summary, res *orchestrate.Result, reruns int) (*runfile.Comparison, error) {
	base, probe := s.base, s.probe
	s.stage("comparing the implementations")
	c := &runfile.Comparison{PickRule: s.pickRule}
	for _, coder := range res.Coders {
		files, err := s.ws.DiffStat(base, coder.Commit)
		if err != nil {
			return nil, fmt.Errorf("compare %s with the base: %w", coder.Name, err)
		}
		change, err := s.ws.AddedLines(base, coder.Commit)
		if err != nil {
			return nil, fmt.Errorf("scan %s's change from the base: %w", coder.Name, err)
		}
		// The files the judge leaves out (the coder's own tests) reach no runner.
		scan := change.Without(s.contract.Private).Scan()
		d := runfile.CoderDiff{Coder: coder.Name, Files: files, Scan: &scan}
		for _, f := range files {
			d.Added, d.Deleted = d.Added+f.Added, d.Deleted+f.Deleted
			if s.contract.Private(f.Path) {
				d.OwnTests += f.Added + f.Deleted
			}
		}
		c.Touched = append(c.Touched, d)
	}
	for i, a := range res.Coders {
		for _, b := range res.Coders[i+1:] {
			files, err := s.ws.DiffStat(a.Commit, b.Commit)
			if err != nil {
				return nil, fmt.Errorf("compare %s with %s: %w", a.Name, b.Name, err)
			}
			pd := runfile.PairDiff{A: a.Name, B: b.Name, Files: len(files)}
			for _, f := range files {
				pd.Added, pd.Deleted = pd.Added+f.Added, pd.Deleted+f.Deleted
			}
			c.Pairs = append(c.Pairs, pd)
		}
	}
	if err := s.dualAgreement(ctx, c, res, reruns); err != nil {
		return nil, err
	}
	if err := s.differential(ctx, c, sum, res, probe); err != nil {
		return nil, err
	}
	c.Pick = report.Choose(*sum, *c)
	return c, nil
}

// dualAgreement runs every final implementation against every test the testers proposed,
// vetted or not, and scores them as CodeT does. The judge's cache answers the pairs the
// run already judged; only implementations that changed since a test was classified run
// again.
func (s *session) dualAgreement(ctx context.Context, c *runfile.Comparison, res *orchestrate.Result, reruns int) error {
	if len(res.Proposals) == 0 {
		return nil
	}
	var jobs []ci.Job
	var coders []string
	for _, coder := range res.Coders {
		if coder.Tampered != nil {
			continue // a forger's passes are no agreement: it would swell the group it forged into
		}
		tree, err := s.ws.Source(coder.Commit)
		if err != nil {
			return err
		}
		coders = append(coders, coder.Name)
		for _, p := range res.Proposals {
			jobs = append(jobs, ci.Job{Coder: coder.Name, Tree: tree, Test: p.Test()})
		}
	}
	s.progress("dual agreement: %d implementations × %d proposed tests", len(coders), len(res.Proposals))
	verdicts, err := s.watched(s.judge).Run(ctx, reruns, jobs)
	if err != nil {
		return fmt.Errorf("dual agreement: %w", err)
	}
	passes := map[string][]bool{}
	for i, v := range verdicts {
		passes[jobs[i].Coder] = append(passes[jobs[i].Coder], v.Passed())
	}
	c.Dual, c.DualTests = differential.DualAgreement(coders, passes), len(res.Proposals)
	c.Proposed = map[string]int{}
	for coder, row := range passes {
		for _, passed := range row {
			if passed {
				c.Proposed[coder]++
			}
		}
	}
	return nil
}

// differential runs the probe on every implementation that passes the vetted suite.
func (s *session) differential(ctx context.Context, c *runfile.Comparison, sum *runfile.Summary, res *orchestrate.Result, probe cast.Prober) error {
	passing := report.Consensus(*sum)
	if len(passing) < 2 {
		c.ProbeNote = fmt.Sprintf("%d implementation(s) pass every vetted test; there is nothing to compare", len(passing))
		return nil
	}
	if probe == nil {
		c.ProbeNote = "no probe for this run"
		return nil
	}
	content, by, reason, err := s.probeFile(ctx, res, probe)
	if err != nil {
		return err
	}
	if content == nil {
		c.ProbeNote = reason
		return nil
	}
	impls, err := s.implementations(res, passing)
	if err != nil {
		return err
	}
	s.progress("differential testing: a probe by %s on %d implementations", by, len(impls))
	obs, probed := s.probing(observations{inner: s.local, dir: filepath.Join(s.opts.ResultCache, "observations"), contract: s.contract}, len(impls))
	rep, err := differential.Run(ctx, obs, impls, ci.Test{ID: "probe", Content: content})
	probed()
	if err != nil {
		return fmt.Errorf("differential testing: %w", err)
	}
	s.progress("differential testing: %d inputs, %d on which the implementations disagree", rep.Inputs, len(rep.Disagreements))
	c.Differential, c.ProbeBy = &rep, by
	return nil
}

// implementations are the final trees of the named coders, in that order.
func (s *session) implementations(res *orchestrate.Result, names []string) ([]differential.Implementation, error) {
	commits := map[string]string{}
	for _, coder := range res.Coders {
		commits[coder.Name] = coder.Commit
	}
	var impls []differential.Implementation
	for _, name := range names {
		tree, err := s.ws.Source(commits[name])
		if err != nil {
			return nil, err
		}
		impls = append(impls, differential.Implementation{Coder: name, Tree: tree})
	}
	return impls, nil
}

// probeFile returns the run's probe: the one recorded in the workshop, or a new one,
// recorded before use so that a resumed run never asks for it twice.
func (s *session) probeFile(ctx context.Context, res *orchestrate.Result, probe cast.Prober) ([]byte, string, string, error) {
	ref := "refs/dixit/" + s.opts.RunID + "/probe"
	commit, ok, err := s.ws.Ref(ref)
	if err != nil {
		return nil, "", "", err
	}
	if ok {
		files, err := s.ws.Files(commit)
		if err != nil {
			return nil, "", "", fmt.Errorf("read the run's probe: %w", err)
		}
		if len(files) != 1 {
			return nil, "", "", fmt.Errorf("read the run's probe: %d files where one was expected", len(files))
		}
		by, _ := s.ws.Message(commit)
		return files[0].Content, by, "", nil
	}
	content, by, reason, err := probe(ctx, res)
	if err != nil || content == nil {
		return nil, "", reason, err
	}
	tree, err := s.ws.WriteFiles([]gitstate.File{{Path: "probe", Content: content}})
	if err != nil {
		return nil, "", "", err
	}
	if _, err := s.ws.CommitAfter(ref, "", tree, by); err != nil {
		return nil, "", "", err
	}
	return content, by, "", nil
}

// observations caches probe runs by contract, tree and probe, as verdicts are cached: a
// resumed run does not rebuild every implementation to print the same lines again.
type observations struct {
	inner    differential.Observer
	dir      string
	contract ci.Contract
}

func (o observations) Observe(ctx context.Context, job ci.Job) (ci.Observation, error) {
	contract, err := json.Marshal(o.contract)
	if err != nil {
		return ci.Observation{}, fmt.Errorf("encode the contract: %w", err)
	}
	h := sha256.New()
	probe := sha256.Sum256(job.Test.Content)
	for _, part := range [][]byte{[]byte("dixit-observation-v1"), contract, []byte(job.Tree.Hash()), probe[:]} {
		h.Write(part)
		h.Write([]byte{0})
	}
	path := filepath.Join(o.dir, hex.EncodeToString(h.Sum(nil))+".json")
	if data, err := os.ReadFile(path); err == nil {
		var cached ci.Observation
		if json.Unmarshal(data, &cached) == nil {
			return cached, nil
		}
	}
	got, err := o.inner.Observe(ctx, job)
	if err != nil {
		return got, err
	}
	// A cache that cannot be written only costs time the next time.
	if data, err := json.Marshal(got); err == nil && os.MkdirAll(o.dir, 0o755) == nil {
		_ = writeFileAtomic(path, data)
	}
	return got, nil
}

func writeFileAtomic(path string, data []byte) error {
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func (s *session) progress(format string, args ...any) {
	if s.out != nil {
		fmt.Fprintf(s.out, format+"\n", args...)
	}
}
