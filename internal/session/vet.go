package session

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/vet"
)

// vetMutants caps the mutants of a patch judged: each costs a run of every vetted test.
const vetMutants = 12

// vetPatch judges the patch under review once the run is over: no agent took part in a
// run that could have shown them the patch, and the patch had no vote in it.
func (s *session) vetPatch(ctx context.Context, sum *runfile.Summary, res *orchestrate.Result, reruns int) (*vet.Verdict, error) {
	var names []string
	for _, coder := range res.Coders {
		if coder.Tampered == nil { // a forger is no independent implementation
			names = append(names, coder.Name)
		}
	}
	impls, err := s.implementations(res, names)
	if err != nil {
		return nil, err
	}
	s.stage("judging the patch under review")
	s.progress("the patch under review: judged on every proposed test (%d), %d of them vetted", len(res.Proposals), len(res.Vetted))
	v, err := vet.Judge(ctx, vet.Judging{Judge: s.watched(s.judge), Reruns: reruns, Gate: s.gate}, s.opts.Patch, impls, res)
	if err != nil {
		return nil, err
	}
	v.Why = report.Turned(v.Why, v.Vetted, sum.Vetted)
	if err := s.vetExisting(ctx, &v, sum); err != nil {
		return nil, err
	}
	vetTampered(&v)
	if v.Conclusion == vet.Success {
		// How strong the suite the patch passes is: the share of the patch's mutants it
		// kills. A patch that fails already has its answer; the mutants would cost runs.
		s.progress("the patch under review: mutants of it against the vetted tests")
		opts := vet.MutantOptions{Judge: s.watched(s.judge), Reruns: reruns, Max: vetMutants, Private: s.contract.Private}
		if err := vet.ScoreMutants(ctx, opts, s.opts.Patch, res, &v); err != nil {
			return nil, err
		}
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
func (s *session) vetDifferences(ctx context.Context, v *vet.Verdict, sum *runfile.Summary, res *orchestrate.Result) error {
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
	consensus, err := s.implementations(res, passing)
	if err != nil {
		return err
	}
	impls := append([]differential.Implementation{{Coder: vet.PatchName, Tree: s.opts.Patch}}, consensus...)
	obs, probed := s.probing(observations{inner: s.local, dir: filepath.Join(s.opts.ResultCache, "observations"), contract: s.contract}, len(impls))
	rep, err := differential.Run(ctx, obs, impls, ci.Test{ID: "probe", Content: content})
	probed()
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

// vetExisting runs the repository's own tests that pass on the base on the patch: a
// patch that breaks one fails, whatever the vetted tests say, and the reason names it.
func (s *session) vetExisting(ctx context.Context, v *vet.Verdict, sum *runfile.Summary) error {
	if s.guard == nil {
		return nil
	}
	s.progress("the patch under review: the repository's own tests")
	broken, err := s.guard.Regressions(ctx, vet.PatchName, s.opts.Patch)
	if err != nil {
		return fmt.Errorf("run the repository's own tests on the patch: %w", err)
	}
	if len(broken) == 0 {
		return nil
	}
	sum.Existing.Patch = broken
	v.Conclusion = vet.Failure
	v.Why = report.Breaks(v.Why, broken)
	return nil
}
