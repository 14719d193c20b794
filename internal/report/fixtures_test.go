package report

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// A fixture is a real protocol run over fake agents and a fake judge: the events, the
// suite and the evidence are what the orchestrator produces, only faster.
type fixture struct {
	name     string
	versions []int               // coder c<i+1> has versions[i] versions
	testers  [][]string          // test names each tester proposes in turn
	passes   map[string][]string // test name → trees "c<i>@<k>" passing it; "*" = all
	rounds   int                 // max_rounds; 0 for the default
}

var fixtures = []fixture{
	{
		name:     "testers_exhausted",
		versions: []int{1, 1, 2, 2},
		testers:  [][]string{{"prerelease", "trivial", "trivial2"}, {"numeric", "weak"}},
		passes: map[string][]string{
			"prerelease": {"c1@1", "c2@1", "c3@2", "c4@2", "c4@1"},
			"numeric":    {"c1@1", "c2@1", "c3@1", "c3@2", "c4@2"},
			"trivial":    {"*"}, "trivial2": {"*"}, "weak": {"*"},
		},
	},
	{
		name:     "coders_stuck",
		versions: []int{1, 1, 1, 1},
		testers:  [][]string{{"prerelease", "x"}, {"numeric", "wrong"}},
		passes: map[string][]string{
			"prerelease": {"c1@1", "c2@1", "c3@1"},
			"numeric":    {"c1@1", "c2@1", "c3@1", "c4@1"},
		},
	},
	{
		name:     "all_testers_hibernated",
		versions: []int{1, 1, 1, 1},
		testers:  [][]string{{"build", "leading"}, {"wrong", "ahead"}},
		passes:   map[string][]string{"build": {"c1@1"}, "ahead": {"c2@1", "c3@1"}},
	},
	{
		name:     "budget_exhausted",
		versions: []int{1, 1, 1, 2},
		testers:  [][]string{{"prerelease", "numeric"}},
		passes: map[string][]string{
			"prerelease": {"c1@1", "c2@1", "c3@1", "c4@2"},
			"numeric":    {"c1@1", "c2@1", "c3@1"},
		},
		rounds: 2,
	},
}

// testFile makes a test name look like the Go test file a tester would write.
func testFile(name string) string {
	return fmt.Sprintf("package semver\n\nimport \"testing\"\n\n// %s\nfunc Test%s(t *testing.T) {\n\tif Compare(\"1.0.0-alpha\", \"1.0.0\") != -1 {\n\t\tt.Fatal(\"want -1\")\n\t}\n}\n",
		name, strings.ToUpper(name[:1])+name[1:])
}

func (f fixture) play(t *testing.T) (runfile.Summary, *orchestrate.Result) {
	t.Helper()
	cfg := config.Defaults()
	cfg.Coders, cfg.Testers = len(f.versions), len(f.testers)
	if f.rounds > 0 {
		cfg.MaxRounds = f.rounds
	}
	calls := &orchestratetest.Calls{}
	deps := orchestrate.Deps{Store: orchestratetest.Store{}, Journal: &orchestratetest.Journal{}}
	byContent := map[string]string{}
	for i, v := range f.versions {
		deps.Coders = append(deps.Coders, orchestratetest.NewCoder(fmt.Sprintf("c%d", i+1), v, calls))
	}
	for i, names := range f.testers {
		var props []string
		for _, n := range names {
			props = append(props, testFile(n))
			byContent[testFile(n)] = n
		}
		deps.Testers = append(deps.Testers, orchestratetest.NewTester(fmt.Sprintf("t%d", i+1), calls, props...))
	}
	passes := func(test, tree string) bool {
		for _, ok := range f.passes[byContent[test]] {
			if ok == "*" || ok == tree {
				return true
			}
		}
		return false
	}
	deps.Judge = orchestratetest.Judge{Calls: calls, Passes: passes}
	run, err := orchestrate.New(cfg, deps)
	require.NoError(t, err)
	res, err := run.Execute(context.Background())
	require.NoError(t, err)

	s := NewSummary("golden-"+f.name, res)
	s.Agents = "llm"
	s.TestPath = "semver_{id}_test.go"
	s.Judge = runfile.Judge{Stats: ci.Stats{Executions: 42, Runs: 600, CacheHits: 7, Seconds: 93.5}, Sandbox: "bwrap", ActionsMinutes: 12}
	s.Spend.CostUSD = 0.37
	s.WallSeconds = 754.2
	cmp := runfile.Comparison{}
	for i, c := range res.Coders {
		cmp.Touched = append(cmp.Touched, runfile.CoderDiff{Coder: c.Name, Added: 40 + 7*i, Deleted: 2,
			Files: []gitstate.FileStat{{Path: "semver.go", Added: 38 + 7*i, Deleted: 2}, {Path: "semver_test.go", Added: 2}}})
		for _, d := range res.Coders[i+1:] {
			cmp.Pairs = append(cmp.Pairs, runfile.PairDiff{A: c.Name, B: d.Name, Files: 1, Added: 5 + i, Deleted: 3})
		}
	}
	// Dual agreement as the session computes it: the final trees against every proposal.
	var names []string
	final := map[string][]bool{}
	for _, c := range res.Coders {
		names = append(names, c.Name)
		for _, p := range res.Proposals {
			final[c.Name] = append(final[c.Name], passes(string(p.Content), c.Commit))
		}
	}
	cmp.Dual, cmp.DualTests = differential.DualAgreement(names, final), len(res.Proposals)
	if agree := Consensus(s); len(agree) >= 2 {
		rep := differential.Compare(agree, answers(agree), nil)
		cmp.Differential, cmp.ProbeBy = &rep, "tester t1"
	} else {
		cmp.ProbeNote = fmt.Sprintf("%d implementation(s) pass every vetted test; there is nothing to compare", len(agree))
	}
	cmp.Pick = Choose(s, cmp)
	s.Comparison = &cmp
	return s, res
}

// answers are probe answers where the last implementation differs on two inputs, one of
// them written to break a table.
func answers(coders []string) map[string][]differential.Answer {
	out := map[string][]differential.Answer{}
	for i, c := range coders {
		odd := i == len(coders)-1
		build, pipe := `0`, `"a|b"`
		if odd {
			build, pipe = `-1`, "\"`x` | <b>y</b>\""
		}
		out[c] = []differential.Answer{
			{Input: `["1.0.0","1.0.1"]`, Output: `-1`},
			{Input: `["1.0.0+build","1.0.0"]`, Output: build},
			{Input: `["1.0.0-a|b","1.0.0"]`, Output: pipe},
		}
	}
	return out
}
