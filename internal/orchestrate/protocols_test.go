package orchestrate_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
)

// loop is a run of one of the other protocols over fakes: coder c1 with its versions,
// its own test files per version, critics with their answers, and which versions pass
// which test files.
type loop struct {
	protocol   string
	versions   int
	own        map[string][]orchestrate.File // commit → files
	critics    map[string][]string           // critic → answers in turn (in name order below)
	order      []string
	passes     map[string][]string // test content → commits passing it
	iterations int
	judge      func(ci.Judge) ci.Judge // wraps the fake judge, when set
}

type looped struct {
	res     *orchestrate.Result
	coder   *orchestratetest.Coder
	calls   *orchestratetest.Calls
	critics []*orchestratetest.Advisor
}

func (l loop) play(t *testing.T, journal *orchestratetest.Journal, afterAppend func(int) error) (looped, error) {
	t.Helper()
	cfg := config.Defaults()
	cfg.Protocol, cfg.Coders, cfg.Testers = l.protocol, 1, 0
	cfg.MaxIterations = max(l.iterations, 1)
	if l.iterations == 0 {
		cfg.MaxIterations = 8
	}
	out := looped{calls: &orchestratetest.Calls{}}
	out.coder = orchestratetest.NewCoder("c1", l.versions, out.calls)
	deps := orchestrate.Deps{Coders: []orchestrate.Coder{out.coder}, Store: orchestratetest.Store{FilesOf: l.own},
		Journal: journal, AfterAppend: afterAppend}
	for _, name := range l.order {
		a := orchestratetest.NewAdvisor(name, out.calls, l.critics[name]...)
		out.critics = append(out.critics, a)
		deps.Advisors = append(deps.Advisors, a)
	}
	deps.Judge = orchestratetest.Judge{Calls: out.calls, Passes: func(test, tree string) bool {
		for _, ok := range l.passes[test] {
			if ok == tree {
				return true
			}
		}
		return false
	}}
	if l.judge != nil {
		deps.Judge = l.judge(deps.Judge)
	}
	run, err := orchestrate.New(cfg, deps)
	require.NoError(t, err)
	out.res, err = run.Execute(context.Background())
	return out, err
}

func ownTest(content string) []orchestrate.File {
	return []orchestrate.File{{Path: "semver.go", Content: []byte("package semver")}, {Path: "semver_test.go", Content: []byte(content)}}
}

func TestSingleFixesItsOwnFailingTestsUntilTheyPass(t *testing.T) {
	l := loop{protocol: "single", versions: 3,
		own:    map[string][]orchestrate.File{"c1@1": {{Path: "semver.go"}}, "c1@2": ownTest("T"), "c1@3": ownTest("T")},
		passes: map[string][]string{"T": {"c1@3"}}}
	got, err := l.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, err)
	assert.Equal(t, orchestrate.Accepted, got.res.Outcome, got.res.Reason)
	assert.Equal(t, "single", got.res.Protocol)
	assert.Equal(t, 3, got.calls.Solves)
	history := strings.Join(got.coder.History, "\n")
	assert.Contains(t, history, "No test files were found in your work", "a coder without tests is asked for them")
	assert.Contains(t, history, "1 of your 1 test files fail", "then told which of its tests fail")
	assert.Contains(t, history, "semver_test.go")
	assert.NotContains(t, history, "review", "no critic in single")
}

func TestSingleStopsAtItsIterationCap(t *testing.T) {
	l := loop{protocol: "single", versions: 9, iterations: 3,
		own: map[string][]orchestrate.File{"c1@1": ownTest("T"), "c1@2": ownTest("T"), "c1@3": ownTest("T")}}
	got, err := l.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, err)
	assert.Equal(t, orchestrate.IterationCap, got.res.Outcome)
	assert.Equal(t, 3, got.res.Rounds, "three checks")
	assert.Equal(t, 3, got.calls.Solves, "the first solution and two fixes")
}

func TestCriticsLoopUntilApprovedAndPassing(t *testing.T) {
	l := loop{protocol: "critics", versions: 4,
		own:   map[string][]orchestrate.File{"c1@1": ownTest("T1"), "c1@2": ownTest("T1"), "c1@3": ownTest("T2"), "c1@4": ownTest("T2")},
		order: []string{"design", "correctness"},
		critics: map[string][]string{
			"design": {`{"lgtm": true, "corrections": null}`},
			// A model's real habits: a fence, a string for the boolean, objects for corrections.
			"correctness": {"Here is my review:\n```json\n{\"lgtm\": \"false\", \"corrections\": [{\"issue\": \"1.10.0 sorts before 1.9.0\", \"line\": 3}]}\n```",
				`{"lgtm": true, "corrections": "None"}`},
		},
		passes: map[string][]string{"T2": {"c1@4"}}}
	got, err := l.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, err)
	assert.Equal(t, orchestrate.Accepted, got.res.Outcome, got.res.Reason)
	history := strings.Join(got.coder.History, "\n")
	assert.Contains(t, history, "(correctness) issue: 1.10.0 sorts before 1.9.0; line: 3", "the fixer gets the correction, flattened")
	assert.Contains(t, history, "1 of your 1 test files fail", "approved code that fails its tests goes back to the fixer")
	var kinds []string
	for _, ev := range got.res.Events {
		if ev.Kind == orchestrate.EvReview || ev.Kind == orchestrate.EvOwnTests {
			kinds = append(kinds, ev.Agent+" "+ev.Detail)
		}
	}
	assert.Equal(t, []string{
		"design approves", "correctness asks for 1 corrections", // iteration 1: not approved, no tests run
		"design approves", "correctness approves", "c1 0 of 1 test files pass", // 2: approved, tests fail
		"design approves", "correctness approves", "c1 0 of 1 test files pass", // 3: still failing
		"design approves", "correctness approves", "c1 1 of 1 test files pass", // 4: accepted
	}, kinds)
	assert.Equal(t, 4, got.calls.Solves)
}

func TestCriticsThatNeverApproveHitTheCapWithoutRunningTests(t *testing.T) {
	l := loop{protocol: "critics", versions: 9, iterations: 4,
		own:     map[string][]orchestrate.File{"c1@1": ownTest("T")},
		order:   []string{"general"},
		critics: map[string][]string{"general": {"not JSON at all, just prose"}},
		passes:  map[string][]string{"T": {"c1@1", "c1@2", "c1@3", "c1@4"}}}
	got, err := l.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, err)
	assert.Equal(t, orchestrate.IterationCap, got.res.Outcome)
	assert.Zero(t, got.calls.Judged, "tests run only once every critic approves")
	assert.Contains(t, strings.Join(got.coder.History, "\n"), "not the JSON object asked for; it said: not JSON at all",
		"an unreadable review is handed on, not taken as approval")
}

// A critics run cut after every journalled effect resumes to the same end, paying for
// nothing twice.
func TestCriticsRunResumesAfterEveryEffect(t *testing.T) {
	l := loop{protocol: "critics", versions: 3,
		own:     map[string][]orchestrate.File{"c1@1": ownTest("T"), "c1@2": ownTest("T"), "c1@3": ownTest("T")},
		order:   []string{"design", "syntax"},
		critics: map[string][]string{"design": {`{"lgtm": false, "corrections": ["rename"]}`, `{"lgtm": true}`}, "syntax": {`{"lgtm": true}`}},
		passes:  map[string][]string{"T": {"c1@3"}}}
	whole, err := l.play(t, &orchestratetest.Journal{}, nil)
	require.NoError(t, err)
	effects := whole.res.Live
	require.Greater(t, effects, 5)
	for cut := 1; cut < effects; cut++ {
		journal := &orchestratetest.Journal{}
		_, err := l.play(t, journal, func(seq int) error {
			if seq == cut {
				return orchestrate.ErrInterrupted
			}
			return nil
		})
		require.ErrorIs(t, err, orchestrate.ErrInterrupted)
		resumed, err := l.play(t, journal, nil)
		require.NoError(t, err, "cut %d", cut)
		assert.Equal(t, whole.res.Outcome, resumed.res.Outcome, "cut %d", cut)
		assert.Equal(t, cut, resumed.res.Replayed, "cut %d", cut)
		assert.Equal(t, effects-cut, resumed.res.Live, "cut %d: only the rest is paid for", cut)
		assert.Equal(t, orchestratetest.Unflagged(whole.res.Events), orchestratetest.Unflagged(resumed.res.Events), "cut %d", cut)
	}
}

func TestCriticsNeedACritic(t *testing.T) {
	cfg := config.Defaults()
	cfg.Protocol, cfg.Coders, cfg.Testers = "critics", 1, 0
	calls := &orchestratetest.Calls{}
	_, err := orchestrate.New(cfg, orchestrate.Deps{Coders: []orchestrate.Coder{orchestratetest.NewCoder("c1", 1, calls)},
		Store: orchestratetest.Store{}, Journal: &orchestratetest.Journal{}, Judge: orchestratetest.Judge{Calls: calls}})
	assert.ErrorContains(t, err, "needs at least one critic")
}

// tdgCase is a tdg run over fakes: a navigator with its answers (nav), one test designer,
// human tests, and coders whose versions pass the given tests.
type tdgCase struct {
	versions      []int
	human         []orchestrate.Candidate
	nav, designed []string
	passes        map[string][]string
	iterations    int
}

// play runs it; edits change the population first.
func (c tdgCase) play(t *testing.T, edits ...func(*orchestrate.Deps)) (*orchestrate.Result, []*orchestratetest.Coder, *orchestratetest.Advisor, *orchestratetest.Calls) {
	t.Helper()
	passes := c.passes
	cfg := config.Defaults()
	cfg.Protocol, cfg.Coders, cfg.Testers, cfg.MaxIterations = "tdg", len(c.versions), 1, c.iterations
	calls := &orchestratetest.Calls{}
	navigator := orchestratetest.NewAdvisor("navigator", calls, c.nav...)
	deps := orchestrate.Deps{Store: orchestratetest.Store{}, Journal: &orchestratetest.Journal{}, HumanTests: c.human,
		Advisors: []orchestrate.Advisor{navigator},
		Testers:  []orchestrate.Tester{orchestratetest.NewTester("designer", calls, c.designed...)}}
	var coders []*orchestratetest.Coder
	for i, v := range c.versions {
		c := orchestratetest.NewCoder(fmt.Sprintf("p%d", i+1), v, calls)
		coders = append(coders, c)
		deps.Coders = append(deps.Coders, c)
	}
	deps.Judge = orchestratetest.Judge{Calls: calls, Passes: func(test, tree string) bool {
		return slices.Contains(passes[test], tree) || slices.Contains(passes[test], "*")
	}}
	for _, edit := range edits {
		edit(&deps)
	}
	run, err := orchestrate.New(cfg, deps)
	require.NoError(t, err)
	res, err := run.Execute(context.Background())
	if errors.Is(err, orchestrate.ErrInterrupted) {
		return nil, coders, navigator, calls
	}
	require.NoError(t, err)
	return res, coders, navigator, calls
}

func TestTDGAcceptsTheFirstCandidatePassingEveryTest(t *testing.T) {
	human := []orchestrate.Candidate{{ID: "human-1", Content: []byte("H1")}}
	res, coders, _, calls := tdgCase{versions: []int{1, 1, 1}, human: human, nav: []string{"ANALYSIS-A"}, designed: []string{"D1"},
		passes: map[string][]string{"H1": {"*"}, "D1": {"p2@1", "p3@1"}}, iterations: 3}.play(t)
	assert.Equal(t, orchestrate.Accepted, res.Outcome, res.Reason)
	assert.Equal(t, "p2", res.Final, "the first candidate in order that passes every test")
	assert.Contains(t, res.Reason, "2 of 3 candidates pass all 2 tests (pass@1 0.67, pass@3 1)")
	assert.Equal(t, 3, calls.Solves, "k samples, one each")
	for _, c := range coders {
		history := strings.Join(c.History, "\n")
		assert.Contains(t, history, "ANALYSIS-A", "programmers get the navigator's analysis")
		assert.Contains(t, history, "H1")
		assert.Contains(t, history, "D1", "and every test, human and designed")
	}
}

func TestTDGAnalysesFailuresAndTriesAgain(t *testing.T) {
	res, coders, navigator, _ := tdgCase{versions: []int{2, 2}, nav: []string{"ANALYSIS-A", "ANALYSIS-OF-FAILURES"}, designed: []string{"D1"},
		passes: map[string][]string{"D1": {"p2@2"}}, iterations: 4}.play(t)
	assert.Equal(t, orchestrate.Accepted, res.Outcome, res.Reason)
	assert.Equal(t, "p2", res.Final)
	assert.Equal(t, 2, res.Rounds)
	assert.Contains(t, strings.Join(navigator.History, "\n"), "An implementation passing 0 tests fails", "the navigator sees the failures")
	assert.Contains(t, strings.Join(coders[0].History, "\n"), "ANALYSIS-OF-FAILURES", "the programmers get its analysis")
}

func TestTDGStopsAtItsCap(t *testing.T) {
	res, _, _, calls := tdgCase{versions: []int{1, 1}, nav: []string{"A"}, designed: []string{"D1"}, passes: map[string][]string{}, iterations: 2}.play(t)
	assert.Equal(t, orchestrate.IterationCap, res.Outcome)
	assert.Contains(t, res.Reason, "0 of 2 candidates pass all 1 tests")
	assert.Equal(t, 4, calls.Solves)
	assert.Equal(t, 2, calls.Answers, "one analysis of the spec, one of the first failures")
}

const hiddenCanary = "HIDDEN-EXPECTED-CANARY-42"

// blindCase is a blind run over fakes: a planner, coder c1 with its versions, own tests
// per version, and hidden tests whose content and failure output carry a canary.
type blindCase struct {
	versions   int
	own        map[string][]orchestrate.File
	hidden     []orchestrate.Candidate
	passes     map[string][]string
	iterations int
}

// play runs it; edits change the population first.
func (c blindCase) play(t *testing.T, edits ...func(*orchestrate.Deps)) (*orchestrate.Result, *orchestratetest.Coder, *orchestratetest.Advisor) {
	t.Helper()
	versions, own, hidden, passes := c.versions, c.own, c.hidden, c.passes
	cfg := config.Defaults()
	cfg.Protocol, cfg.Coders, cfg.Testers, cfg.MaxIterations = "blind", 1, 0, c.iterations
	calls := &orchestratetest.Calls{}
	plan := "Here you go:\n```json\n" + `{"tests": [{"id": "t1", "input": {"x": 42, "lo": 0, "hi": 10}, "expectedOutput": 10, ` +
		`"reasoning": "above the range", "category": "boundary"}], "requirements": ["clamp to [lo, hi]"], "uncertainties": "lo > hi?"}` + "\n```"
	planner := orchestratetest.NewAdvisor("planner", calls, plan)
	coder := orchestratetest.NewCoder("c1", versions, calls)
	deps := orchestrate.Deps{Store: orchestratetest.Store{FilesOf: own}, Journal: &orchestratetest.Journal{}, Hidden: hidden,
		Advisors: []orchestrate.Advisor{planner}, Coders: []orchestrate.Coder{coder}}
	deps.Judge = orchestratetest.Judge{Calls: calls,
		Passes: func(test, tree string) bool { return slices.Contains(passes[test], tree) },
		Output: func(test, tree string) string {
			if strings.Contains(test, hiddenCanary) {
				return "--- FAIL: want " + hiddenCanary + " got 42"
			}
			return "--- FAIL: own test " + test
		}}
	for _, edit := range edits {
		edit(&deps)
	}
	run, err := orchestrate.New(cfg, deps)
	require.NoError(t, err)
	res, err := run.Execute(context.Background())
	if errors.Is(err, orchestrate.ErrInterrupted) {
		return nil, coder, planner
	}
	require.NoError(t, err)
	return res, coder, planner
}

func TestBlindIteratesOnItsOwnTestsThenPassesTheHiddenOnes(t *testing.T) {
	own := map[string][]orchestrate.File{"c1@1": ownTest("OWN"), "c1@2": ownTest("OWN"), "c1@3": ownTest("OWN")}
	hidden := []orchestrate.Candidate{{ID: "hidden-1", Content: []byte("H1 " + hiddenCanary)}, {ID: "hidden-2", Content: []byte("H2 " + hiddenCanary)}}
	res, coder, _ := blindCase{versions: 3, own: own, hidden: hidden, passes: map[string][]string{
		"OWN":                {"c1@2", "c1@3"},
		"H1 " + hiddenCanary: {"c1@2", "c1@3"},
		"H2 " + hiddenCanary: {"c1@3"},
	}, iterations: 5}.play(t)
	assert.Equal(t, orchestrate.Accepted, res.Outcome, res.Reason)
	assert.Equal(t, "c1", res.Final)
	history := strings.Join(coder.History, "\n")
	assert.Contains(t, history, "[boundary] t1", "the coder gets the plan")
	assert.Contains(t, history, `input: {"hi":10,"lo":0,"x":42}`, "objects where strings were asked for are read")
	assert.Contains(t, history, "lo > hi?", "with the planner's uncertainties")
	assert.Contains(t, history, "1 of your 1 test files fail", "its own tests with full feedback")
	assert.Contains(t, history, "A final check with other tests passed 1 of 2 (50%)", "the hidden check: a fraction")
	var hiddenRuns []string
	for _, ev := range res.Events {
		if ev.Kind == orchestrate.EvHidden {
			hiddenRuns = append(hiddenRuns, ev.Detail)
		}
	}
	assert.Equal(t, []string{"1 of 2 hidden tests pass", "2 of 2 hidden tests pass"}, hiddenRuns)
}

// The proof the issue asks for: a hidden test's text and its failure output carry a
// canary, and no request to any agent ever contains it.
func TestNoHiddenExpectedValueReachesAnyAgent(t *testing.T) {
	own := map[string][]orchestrate.File{}
	for v := 1; v <= 4; v++ {
		own[fmt.Sprintf("c1@%d", v)] = ownTest("OWN")
	}
	hidden := []orchestrate.Candidate{{ID: "hidden-1", Content: []byte("assert clamp(42, 0, 10) == " + hiddenCanary)}}
	res, coder, planner := blindCase{versions: 4, own: own, hidden: hidden, passes: map[string][]string{"OWN": {"c1@1", "c1@2", "c1@3", "c1@4"}}, iterations: 4}.play(t)
	assert.Equal(t, orchestrate.IterationCap, res.Outcome, "the hidden test never passes")
	hiddenChecks := 0
	for _, ev := range res.Events {
		if ev.Kind == orchestrate.EvHidden {
			hiddenChecks++
		}
	}
	require.Equal(t, 4, hiddenChecks, "the hidden test ran, and failed with the canary in its output, every iteration")
	for _, h := range [][]string{coder.History, planner.History} {
		for _, line := range h {
			assert.NotContains(t, line, hiddenCanary)
			assert.NotContains(t, line, "hidden-1", "not even the hidden test's name")
		}
	}
	assert.Contains(t, strings.Join(coder.History, "\n"), "passed 0 of 1 (0%)")
}

// tdg and blind resume like the others: cut after every effect, the resumed run ends as
// the whole one did and pays only for the rest.
func TestTDGAndBlindResumeAfterEveryEffect(t *testing.T) {
	tdg := func(edits ...func(*orchestrate.Deps)) *orchestrate.Result {
		res, _, _, _ := tdgCase{versions: []int{2, 2}, nav: []string{"A", "B"}, designed: []string{"D1"}, passes: map[string][]string{"D1": {"p2@2"}}, iterations: 4}.play(t, edits...)
		return res
	}
	own := map[string][]orchestrate.File{"c1@1": ownTest("OWN"), "c1@2": ownTest("OWN"), "c1@3": ownTest("OWN")}
	hidden := []orchestrate.Candidate{{ID: "h", Content: []byte("H")}}
	blind := func(edits ...func(*orchestrate.Deps)) *orchestrate.Result {
		res, _, _ := blindCase{versions: 3, own: own, hidden: hidden, passes: map[string][]string{"OWN": {"c1@2", "c1@3"}, "H": {"c1@3"}}, iterations: 5}.play(t, edits...)
		return res
	}
	for name, play := range map[string]func(...func(*orchestrate.Deps)) *orchestrate.Result{"tdg": tdg, "blind": blind} {
		t.Run(name, func(t *testing.T) {
			whole := play()
			require.Equal(t, orchestrate.Accepted, whole.Outcome, whole.Reason)
			require.Greater(t, whole.Live, 6, "enough effects to cut")
			for cut := 1; cut < whole.Live; cut++ {
				journal := &orchestratetest.Journal{}
				withJournal := func(d *orchestrate.Deps) { d.Journal = journal }
				interrupted := play(withJournal, func(d *orchestrate.Deps) {
					d.AfterAppend = func(seq int) error {
						if seq == cut {
							return orchestrate.ErrInterrupted
						}
						return nil
					}
				})
				require.Nil(t, interrupted, "cut %d stops the run", cut)
				resumed := play(withJournal)
				assert.Equal(t, whole.Outcome, resumed.Outcome, "cut %d", cut)
				assert.Equal(t, whole.Final, resumed.Final, "cut %d", cut)
				assert.Equal(t, cut, resumed.Replayed, "cut %d", cut)
				assert.Equal(t, whole.Live-cut, resumed.Live, "cut %d", cut)
				assert.Equal(t, orchestratetest.Unflagged(whole.Events), orchestratetest.Unflagged(resumed.Events), "cut %d", cut)
			}
		})
	}
}
