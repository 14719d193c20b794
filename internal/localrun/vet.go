package localrun

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/vet"
)

// vetPatch judges the patch under review once the run is over: no agent took part in a
// run that could have shown them the patch, and the patch had no vote in it.
func (s *session) vetPatch(ctx context.Context, sum *report.Summary, res *orchestrate.Result, reruns int) (*vet.Verdict, error) {
	var impls []vet.Implementation
	for _, coder := range res.Coders {
		tree, err := s.ws.Source(coder.Commit)
		if err != nil {
			return nil, err
		}
		impls = append(impls, vet.Implementation{Coder: coder.Name, Tree: tree})
	}
	s.progress("the patch under review: judged on %d proposed tests, %d of them vetted", len(res.Proposals), len(res.Vetted))
	v, err := vet.Judge(ctx, s.judge, reruns, s.opts.Patch, impls, res)
	if err != nil {
		return nil, err
	}
	if err := s.vetDifferences(ctx, &v, sum, res); err != nil {
		return nil, err
	}
	s.progress("the patch under review: %s — %s", v.Conclusion, v.Why)
	return &v, nil
}

// vetDifferences runs the run's probe on the patch beside the implementations that pass
// the vetted suite (their answers are cached), and keeps the inputs on which the patch
// answers otherwise than most of them.
func (s *session) vetDifferences(ctx context.Context, v *vet.Verdict, sum *report.Summary, res *orchestrate.Result) error {
	passing := report.Consensus(*sum)
	if len(passing) == 0 {
		v.ProbeNote = "no implementation passes every vetted test: there is no consensus to compare the patch with"
		return nil
	}
	if s.probe == nil {
		v.ProbeNote = "no probe for this run"
		return nil
	}
	content, _, reason, err := s.probeFile(ctx, res, s.probe)
	if err != nil {
		return err
	}
	if content == nil {
		v.ProbeNote = reason
		return nil
	}
	commits := map[string]string{}
	for _, coder := range res.Coders {
		commits[coder.Name] = coder.Commit
	}
	impls := []differential.Implementation{{Coder: vet.PatchName, Tree: s.opts.Patch}}
	for _, name := range passing {
		tree, err := s.ws.Source(commits[name])
		if err != nil {
			return err
		}
		impls = append(impls, differential.Implementation{Coder: name, Tree: tree})
	}
	obs := observations{inner: s.local, dir: filepath.Join(s.opts.ResultCache, "observations"), contract: s.contract}
	rep, err := differential.Run(ctx, obs, impls, ci.Test{ID: "probe", Content: content})
	if err != nil {
		return fmt.Errorf("differential testing of the patch: %w", err)
	}
	if note := rep.Notes[vet.PatchName]; rep.Answered[vet.PatchName] == 0 {
		v.ProbeNote = "the probe got no answer from the patch: " + note
		return nil
	}
	v.Differences = vet.Differences(rep)
	s.progress("the patch under review: answers otherwise than the consensus on %d of %d probe inputs", len(v.Differences), rep.Inputs)
	return nil
}
