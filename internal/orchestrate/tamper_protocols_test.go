package orchestrate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/orchestrate/orchestratetest"
)

// tripwire is the name of the judge's own check in tamperingJudge's evidence: no agent
// may ever read it, or code could learn to behave whenever it runs.
const tripwire = "TestParseLineEmpty41"

// evidence is the judge's line tamperingJudge's verdicts carry.
const evidence = "run 1 of 20: tampered: a check of the judge's own that must fail (" + tripwire + ") was reported as pass: " +
	"something in the test's process changes what the runner reports"

func assertNoTripwire(t *testing.T, histories ...[]string) {
	t.Helper()
	for _, h := range histories {
		for _, line := range h {
			assert.NotContains(t, line, tripwire, "an agent read the judge's own check")
			assert.NotContains(t, line, "[dixit]", "an agent read the judge's line")
		}
	}
}

func tamperedCoders(res *orchestrate.Result) map[string]*orchestrate.Tamper {
	out := map[string]*orchestrate.Tamper{}
	for _, c := range res.Coders {
		if c.Tampered != nil {
			out[c.Name] = c.Tampered
		}
	}
	return out
}

// A single or critics coder whose own tests come out tampered is out: its first version
// fails honestly and is told so, its second tampers, and the run stops there, naming it
// with the judge's evidence, though its third would pass. It never hears of the check.
func TestSingleAndCriticsNeverAcceptATamperedCoder(t *testing.T) {
	own := map[string][]orchestrate.File{"c1@1": ownTest("T"), "c1@2": ownTest("T"), "c1@3": ownTest("T")}
	for _, l := range []loop{
		{protocol: "single", versions: 3, own: own},
		{protocol: "critics", versions: 3, own: own, order: []string{"general"}, critics: map[string][]string{"general": {`{"lgtm": true}`}}},
	} {
		t.Run(l.protocol, func(t *testing.T) {
			l.passes = map[string][]string{"T": {"c1@3"}}
			l.judge = tampering([]string{"c1@2"}, nil)
			journal := &orchestratetest.Journal{}
			got, err := l.play(t, journal, nil)
			require.NoError(t, err)
			assert.Equal(t, orchestrate.CodersTampered, got.res.Outcome, got.res.Reason)
			assert.Empty(t, got.res.Final, "nothing is accepted")
			assert.Equal(t, "coder c1 tampered with the test runner (test semver_test.go: "+evidence+"): its work is not accepted", got.res.Reason)
			assert.Equal(t, 2, got.calls.Solves, "no iteration is paid for after the tampering")
			require.Contains(t, tamperedCoders(got.res), "c1")
			assert.Equal(t, orchestrate.Tamper{Test: "semver_test.go", Evidence: evidence}, *got.res.Coders[0].Tampered)
			assert.Contains(t, strings.Join(got.coder.History, "\n"), "1 of your 1 test files fail", "the honest failure was told")
			assertNoTripwire(t, got.coder.History)
			for _, c := range got.critics {
				assertNoTripwire(t, c.History)
			}

			again, err := l.play(t, journal, nil)
			require.NoError(t, err)
			assert.Equal(t, orchestratetest.Unflagged(got.res.Events), orchestratetest.Unflagged(again.res.Events), "a resumed run tells the same story")
			assert.Equal(t, got.res.Coders, again.res.Coders)
			assert.Equal(t, got.res.Reason, again.res.Reason)
		})
	}
}

// tdg never accepts a candidate whose coder tampered: with the first candidate tampered
// the second, which passes, is accepted; with the only passing candidate one whose coder
// tampered in an earlier iteration, none is, and the run ends at its cap saying why.
func TestTDGNeverAcceptsATamperedCandidate(t *testing.T) {
	human := []orchestrate.Candidate{{ID: "human-1", Content: []byte("H1")}}
	t.Run("another passes", func(t *testing.T) {
		res, coders, navigator, _ := tdgCase{versions: []int{1, 1, 1}, human: human, nav: []string{"A"}, designed: []string{"D1"},
			passes: map[string][]string{"H1": {"*"}, "D1": {"*"}}, iterations: 3}.play(t, withTampering([]string{"p1@1"}, nil))
		assert.Equal(t, orchestrate.Accepted, res.Outcome, res.Reason)
		assert.Equal(t, "p2", res.Final, "the first candidate in order that passes and did not tamper")
		assert.Contains(t, res.Reason, "2 of 3 candidates pass all 2 tests (pass@1 0.67, pass@3 1); 1 candidate tampered with the test runner and cannot score")
		assert.Equal(t, map[string]*orchestrate.Tamper{"p1": {Test: "human-1", Evidence: evidence}}, tamperedCoders(res))
		assertNoTripwire(t, navigator.History)
		for _, c := range coders {
			assertNoTripwire(t, c.History)
		}
	})
	t.Run("tampered earlier", func(t *testing.T) {
		res, coders, navigator, _ := tdgCase{versions: []int{2, 2}, human: human, nav: []string{"A", "B"}, designed: []string{"D1"},
			passes: map[string][]string{"H1": {"*"}, "D1": {"p1@2"}}, iterations: 3}.play(t, withTampering([]string{"p1@1"}, nil))
		assert.Equal(t, orchestrate.IterationCap, res.Outcome, res.Reason)
		assert.Empty(t, res.Final, "p1 passes every test from iteration 2 on, but it tampered in iteration 1")
		assert.Contains(t, res.Reason, "0 of 2 candidates pass all 2 tests (pass@1 0.00, pass@2 0); 1 candidate tampered with the test runner and cannot score")
		require.Contains(t, tamperedCoders(res), "p1")
		assert.NotContains(t, tamperedCoders(res), "p2")
		nav := strings.Join(navigator.History, "\n")
		assert.Contains(t, nav, "An implementation passing 1 tests fails", "the honest failures are analysed")
		assert.NotContains(t, nav, "passing 0 tests", "a tampered candidate's runs prove nothing: they are not analysed")
		assertNoTripwire(t, navigator.History)
		for _, c := range coders {
			assertNoTripwire(t, c.History)
		}
	})
	t.Run("every coder", func(t *testing.T) {
		res, _, _, calls := tdgCase{versions: []int{2, 2}, human: human, nav: []string{"A"}, designed: []string{"D1"},
			passes: map[string][]string{"H1": {"*"}, "D1": {"*"}}, iterations: 3}.play(t, withTampering([]string{"p1@1", "p2@1"}, nil))
		// Both tampered on the human test: people wrote it, so the coders are to blame,
		// however many of them did it.
		assert.Equal(t, orchestrate.CodersTampered, res.Outcome, res.Reason)
		assert.Len(t, tamperedCoders(res), 2)
		assert.Equal(t, 2, calls.Solves, "no iteration is paid for once no coder can be accepted")
	})
}

// A designed test that tampers on most candidates is the test's doing (it ends its own
// process, or skips itself): no coder is named for it, no candidate scores on it, and what
// the navigator and the programmers read says so without the judge's line.
func TestTDGBlamesATestThatTampersMostCandidates(t *testing.T) {
	res, coders, navigator, _ := tdgCase{versions: []int{1, 1, 1}, nav: []string{"A", "B"}, designed: []string{"EXIT0"},
		passes: map[string][]string{"EXIT0": {"*"}}, iterations: 2}.play(t, withTampering(nil, []string{"EXIT0"}))
	assert.Equal(t, orchestrate.IterationCap, res.Outcome, res.Reason)
	assert.Empty(t, tamperedCoders(res))
	assert.Contains(t, strings.Join(navigator.History, "\n"), "the test itself may end its process early")
	assertNoTripwire(t, navigator.History)
	for _, c := range coders {
		assertNoTripwire(t, c.History)
	}
}

// A tdg run stops once every coder tampered, in whichever iteration each did.
func TestTDGStopsWhenEveryCoderTampered(t *testing.T) {
	human := []orchestrate.Candidate{{ID: "human-1", Content: []byte("H1")}}
	res, _, _, calls := tdgCase{versions: []int{2, 2, 2}, human: human, nav: []string{"A"}, designed: []string{"D1"},
		passes: map[string][]string{"H1": {"*"}}, iterations: 4}.play(t, withTampering([]string{"p1@1", "p2@1", "p3@2"}, nil))
	assert.Equal(t, orchestrate.CodersTampered, res.Outcome, res.Reason)
	assert.Empty(t, res.Final)
	named := "coder %s tampered with the test runner (test human-1: " + evidence + ")"
	assert.Equal(t, "every coder tampered, so no work is accepted: "+
		strings.Join([]string{fmt.Sprintf(named, "p1"), fmt.Sprintf(named, "p2"), fmt.Sprintf(named, "p3")}, "; "), res.Reason)
	assert.Len(t, tamperedCoders(res), 3)
	assert.Equal(t, 6, calls.Solves, "two iterations: p3 tampered in the second")
}

// blind never accepts a coder whose run of the hidden tests came out tampered: its first
// version fails a hidden test honestly, its second tampers on them, and the run stops
// though its third would pass them all. The coder hears neither the hidden tests nor the
// judge's check.
func TestBlindNeverAcceptsATamperedCoder(t *testing.T) {
	own := map[string][]orchestrate.File{"c1@1": ownTest("OWN"), "c1@2": ownTest("OWN"), "c1@3": ownTest("OWN")}
	hidden := []orchestrate.Candidate{{ID: "hidden-1", Content: []byte("H1 " + hiddenCanary)}}
	res, coder, planner := blindCase{versions: 3, own: own, hidden: hidden, passes: map[string][]string{
		"OWN":                {"c1@1", "c1@2", "c1@3"},
		"H1 " + hiddenCanary: {"c1@3"},
	}, iterations: 5}.play(t, func(d *orchestrate.Deps) {
		d.Judge = tamperingJudge{inner: d.Judge, pairs: set([]string{"c1@2 H1 " + hiddenCanary})}
	})
	assert.Equal(t, orchestrate.CodersTampered, res.Outcome, res.Reason)
	assert.Empty(t, res.Final)
	assert.Equal(t, map[string]*orchestrate.Tamper{"c1": {Test: "hidden-1", Evidence: evidence}}, tamperedCoders(res))
	assert.Contains(t, strings.Join(coder.History, "\n"), "passed 0 of 1 (0%)", "the honest failure was told, as a fraction")
	assertNoTripwire(t, coder.History, planner.History)
	for _, line := range coder.History {
		assert.NotContains(t, line, hiddenCanary)
	}
}

// The tampered runs resume like the others: cut after every effect, the resumed run
// names the same coders and ends as the whole one did.
func TestTamperedProtocolRunsResumeAfterEveryEffect(t *testing.T) {
	human := []orchestrate.Candidate{{ID: "human-1", Content: []byte("H1")}}
	tdg := func(edits ...func(*orchestrate.Deps)) *orchestrate.Result {
		res, _, _, _ := tdgCase{versions: []int{2, 2}, human: human, nav: []string{"A", "B"}, designed: []string{"D1"},
			passes: map[string][]string{"H1": {"*"}, "D1": {"p1@2", "p2@2"}}, iterations: 3}.play(t, append(edits, withTampering([]string{"p1@1"}, nil))...)
		return res
	}
	own := map[string][]orchestrate.File{"c1@1": ownTest("OWN"), "c1@2": ownTest("OWN"), "c1@3": ownTest("OWN")}
	hidden := []orchestrate.Candidate{{ID: "h", Content: []byte("H")}}
	blind := func(edits ...func(*orchestrate.Deps)) *orchestrate.Result {
		res, _, _ := blindCase{versions: 3, own: own, hidden: hidden, passes: map[string][]string{"OWN": {"c1@2", "c1@3"}, "H": {"c1@3"}},
			iterations: 5}.play(t, append(edits, func(d *orchestrate.Deps) { d.Judge = tamperingJudge{inner: d.Judge, pairs: set([]string{"c1@3 H"})} })...)
		return res
	}
	for name, play := range map[string]func(...func(*orchestrate.Deps)) *orchestrate.Result{"tdg": tdg, "blind": blind} {
		t.Run(name, func(t *testing.T) {
			whole := play()
			require.NotEmpty(t, tamperedCoders(whole))
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
				assert.Equal(t, whole.Reason, resumed.Reason, "cut %d", cut)
				assert.Equal(t, whole.Final, resumed.Final, "cut %d", cut)
				assert.Equal(t, whole.Coders, resumed.Coders, "cut %d", cut)
				assert.Equal(t, orchestratetest.Unflagged(whole.Events), orchestratetest.Unflagged(resumed.Events), "cut %d", cut)
			}
		})
	}
}

// withTampering wraps a run's judge in tamperingJudge.
func withTampering(trees, tests []string) func(*orchestrate.Deps) {
	return func(d *orchestrate.Deps) { d.Judge = tampering(trees, tests)(d.Judge) }
}
