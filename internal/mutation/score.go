package mutation

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/gitstate"
)

// DefaultMax bounds the mutants judged per implementation: each costs one build per test.
const DefaultMax = 24

// Suite is a named set of tests, such as a run's vetted suite or the hidden tests.
type Suite struct {
	Name  string
	Tests []ci.Test
}

// Options say how to judge the mutants.
type Options struct {
	Judge ci.Judge
	// Reruns confirm a test passing on the implementation itself; a mutant is killed by
	// one failing run.
	Reruns int
	// Max mutants are judged, spread evenly over all of them when there are more;
	// 0 means DefaultMax.
	Max int
	// Private marks the files the judge leaves out of a tree (the contract's test
	// files): they are not mutated.
	Private func(string) bool
}

// Report is how many mutants each suite killed.
type Report struct {
	Generated int      `json:"generated"` // mutants that type-check, before the cap
	Mutants   int      `json:"mutants"`   // judged: the cap's pick, less those that did not build
	Suites    []Score  `json:"suites"`
	Mutated   []Mutant `json:"-"`
}

// Score is one suite's result. Only the tests that pass on the implementation itself can
// kill a mutant: a test that fails there fails on every mutant and says nothing.
type Score struct {
	Suite     string   `json:"suite"`
	Tests     int      `json:"tests"`
	Used      int      `json:"used"` // tests passing on the implementation
	Killed    int      `json:"killed"`
	Mutants   int      `json:"mutants"`
	Survivors []string `json:"survivors,omitempty"` // ids of the mutants it did not kill
}

// Rate is Killed/Mutants; ok is false when there is no mutant.
func (s Score) Rate() (rate float64, ok bool) {
	if s.Mutants == 0 {
		return 0, false
	}
	return float64(s.Killed) / float64(s.Mutants), true
}

// Sentence says it in words, for a report: "the vetted suite kills 3 of 4 mutants of
// this patch (75 %)".
func (s Score) Sentence() string {
	r, ok := s.Rate()
	if !ok {
		return fmt.Sprintf("the %s suite: this patch has no mutant to kill (no arithmetic or comparison operator)", s.Suite)
	}
	return fmt.Sprintf("the %s suite kills %d of %d mutants of this patch (%.0f %%)", s.Suite, s.Killed, s.Mutants, 100*r)
}

// Patch is what the vet report calls: the share of the patch's mutants that the vetted
// tests kill. files is the implementation's tree after the patch.
func Patch(ctx context.Context, opts Options, files []gitstate.File, vetted []ci.Test) (Score, error) {
	rep, err := Run(ctx, opts, files, []Suite{{Name: "vetted", Tests: vetted}})
	if err != nil {
		return Score{}, err
	}
	return rep.Suites[0], nil
}

// Run mutates the implementation in files and judges every suite's tests on each mutant.
func Run(ctx context.Context, opts Options, files []gitstate.File, suites []Suite) (Report, error) {
	if opts.Judge == nil {
		return Report{}, fmt.Errorf("mutation: no judge")
	}
	all, err := Generate(files, opts.Private)
	if err != nil {
		return Report{}, err
	}
	limit := opts.Max
	if limit <= 0 {
		limit = DefaultMax
	}
	rep := Report{Generated: len(all), Mutated: spread(all, limit)}
	tests, index := uniqueTests(suites)
	if len(rep.Mutated) == 0 { // nothing to kill (no operator, or not Go): no build needed
		for _, suite := range suites {
			rep.Suites = append(rep.Suites, Score{Suite: suite.Name, Tests: len(suite.Tests)})
		}
		return rep, nil
	}
	passing, err := passOnOriginal(ctx, opts, newTree(files, -1, nil, opts.Private), tests)
	if err != nil {
		return Report{}, err
	}
	var jobs []ci.Job
	var at [][2]int // mutant, test of each job
	for m, mu := range rep.Mutated {
		for t, test := range tests {
			if passing[t] {
				jobs = append(jobs, ci.Job{Coder: ci.MutantPrefix + mu.ID, Tree: mu.tree, Test: test})
				at = append(at, [2]int{m, t})
			}
		}
	}
	verdicts, err := opts.Judge.Run(ctx, 1, jobs)
	if err != nil {
		return Report{}, fmt.Errorf("mutation: judge the mutants: %w", err)
	}
	killed := make([]map[int]bool, len(rep.Mutated))
	built := make([]bool, len(rep.Mutated))
	judged := make([]bool, len(rep.Mutated))
	for i, v := range verdicts {
		m, t := at[i][0], at[i][1]
		judged[m] = true
		if v.Outcome != ci.BuildFailed {
			built[m] = true
		}
		if !v.Passed() {
			if killed[m] == nil {
				killed[m] = map[int]bool{}
			}
			killed[m][t] = true
		}
	}
	// A mutant every test failed to build with is not a fault a test could catch.
	viable := make([]bool, len(rep.Mutated))
	for m := range rep.Mutated {
		viable[m] = built[m] || !judged[m]
		if viable[m] {
			rep.Mutants++
		}
	}
	for s, suite := range suites {
		score := Score{Suite: suite.Name, Tests: len(suite.Tests), Mutants: rep.Mutants}
		for _, t := range index[s] {
			if passing[t] {
				score.Used++
			}
		}
		for m, mu := range rep.Mutated {
			if !viable[m] {
				continue
			}
			if killedBy(killed[m], index[s]) {
				score.Killed++
			} else {
				score.Survivors = append(score.Survivors, mu.ID)
			}
		}
		rep.Suites = append(rep.Suites, score)
	}
	return rep, nil
}

func killedBy(killed map[int]bool, tests []int) bool {
	for _, t := range tests {
		if killed[t] {
			return true
		}
	}
	return false
}

// spread picks max mutants evenly over the list, first and order kept, so that a cap
// samples every part of the code rather than its first lines.
func spread(all []Mutant, limit int) []Mutant {
	if len(all) <= limit {
		return all
	}
	out := make([]Mutant, 0, limit)
	for i := 0; i < limit; i++ {
		out = append(out, all[i*len(all)/limit])
	}
	return out
}

// uniqueTests lists each distinct test once (the same test is often in several suites)
// and, for each suite, the indexes of its tests.
func uniqueTests(suites []Suite) ([]ci.Test, [][]int) {
	var tests []ci.Test
	seen := map[string]int{}
	index := make([][]int, len(suites))
	for s, suite := range suites {
		for _, t := range suite.Tests {
			key := fmt.Sprintf("%s %x", t.ID, sha256.Sum256(t.Content))
			i, ok := seen[key]
			if !ok {
				i = len(tests)
				seen[key] = i
				tests = append(tests, t)
			}
			index[s] = append(index[s], i)
		}
	}
	return tests, index
}

// passOnOriginal runs every test on the implementation itself, confirmed by reruns.
func passOnOriginal(ctx context.Context, opts Options, original ci.Tree, tests []ci.Test) ([]bool, error) {
	jobs := make([]ci.Job, len(tests))
	for i, t := range tests {
		jobs[i] = ci.Job{Coder: ci.MutatedName, Tree: original, Test: t}
	}
	reruns := max(opts.Reruns, 1)
	verdicts, err := opts.Judge.Run(ctx, reruns, jobs)
	if err != nil {
		return nil, fmt.Errorf("mutation: judge the tests on the implementation: %w", err)
	}
	out := make([]bool, len(tests))
	for i, v := range verdicts {
		if v.Outcome == ci.PrepareFailed {
			return nil, fmt.Errorf("mutation: the judge could not prepare the implementation for %s: %s", tests[i].ID, v.Output)
		}
		out[i] = v.Passed()
	}
	return out, nil
}
