package report

import (
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Evidence backs an escalation's one-sentence reason with what the run observed, so a
// human can check the reason instead of trusting it. Only the part that fits the
// outcome is set.
type Evidence struct {
	Stuck     *StuckCoder    `json:"stuck,omitempty"`     // CODERS_STUCK
	Stacked   []StackedTest  `json:"stacked,omitempty"`   // ALL_TESTERS_HIBERNATED
	Exhausted []RoundClasses `json:"exhausted,omitempty"` // TESTERS_EXHAUSTED: the last rounds
	Budget    string         `json:"budget,omitempty"`    // BUDGET_EXHAUSTED: what ran out
	// The other protocols: the last check of the coder's own tests and the last reviews.
	OwnTests []orchestrate.Cell `json:"own_tests,omitempty"`
	Reviews  []Review           `json:"reviews,omitempty"`
}

// Review is a critic's last verdict.
type Review struct {
	Critic string `json:"critic"`
	Said   string `json:"said"`
}

// StuckCoder is the coder that could not catch up, and its verdict vector over the
// vetted suite at each attempt of its last round.
type StuckCoder struct {
	Coder    string               `json:"coder"`
	Failing  []string             `json:"failing"` // tests its last attempt failed
	Attempts [][]orchestrate.Cell `json:"attempts"`
}

// StackedTest is a hibernated tester's too-hard test and how many coders passed it the
// last time it was run.
type StackedTest struct {
	Tester string `json:"tester"`
	Test   string `json:"test"`
	Passed int    `json:"passed"`
	Coders int    `json:"coders"`
	Round  int    `json:"round"` // of that last classification
}

// RoundClasses counts a round's proposals by what became of them.
type RoundClasses struct {
	Round   int `json:"round"`
	TooWeak int `json:"too_weak"`
	TooHard int `json:"too_hard"`
	Ideal   int `json:"ideal"`
	None    int `json:"none"` // a tester had nothing more to propose
}

// exhaustedRounds is how many of the last rounds TESTERS_EXHAUSTED evidence shows.
const exhaustedRounds = 3

// evidence gathers what the table of outcomes says backs the run's reason.
func evidence(res *orchestrate.Result) Evidence {
	switch orchestrate.ReasonFor(res.Outcome).Evidence {
	case orchestrate.EvidenceStuckCoder:
		return Evidence{Stuck: stuckCoder(res.Events)}
	case orchestrate.EvidenceStackedTests:
		return Evidence{Stacked: stackedTests(res)}
	case orchestrate.EvidenceLastRounds:
		rounds := classesByRound(res.Events)
		return Evidence{Exhausted: rounds[max(0, len(rounds)-exhaustedRounds):]}
	case orchestrate.EvidenceOwnChecks:
		return lastChecks(res)
	default: // what ran out; for the preflight, summary.json keeps the reason here too
		return Evidence{Budget: res.Reason}
	}
}

// stuckCoder finds the coder the run escalated on: the protocol brings coders up to the
// suite in order and stops at the first that cannot, so it owns the last suite run.
func stuckCoder(events []orchestrate.Event) *StuckCoder {
	var last *orchestrate.Event
	for i := range events {
		if events[i].Kind == orchestrate.EvSuite {
			last = &events[i]
		}
	}
	if last == nil {
		return nil
	}
	st := &StuckCoder{Coder: last.Agent}
	for _, ev := range events {
		if ev.Kind == orchestrate.EvSuite && ev.Agent == last.Agent && ev.Round == last.Round {
			st.Attempts = append(st.Attempts, ev.Cells)
		}
	}
	for _, c := range last.Cells {
		if c.Outcome != "pass" {
			st.Failing = append(st.Failing, c.Test)
		}
	}
	return st
}

func stackedTests(res *orchestrate.Result) []StackedTest {
	latest := map[string]orchestrate.Event{}
	for _, ev := range res.Events {
		if ev.Kind == orchestrate.EvClassify {
			latest[ev.Test] = ev
		}
	}
	var out []StackedTest
	for _, t := range res.Testers {
		for _, c := range t.Stacked {
			ev := latest[c.ID]
			out = append(out, StackedTest{Tester: t.Name, Test: c.ID, Passed: ev.Passed, Coders: len(ev.Cells), Round: ev.Round})
		}
	}
	return out
}

// classesByRound counts every round's proposals, in round order.
func classesByRound(events []orchestrate.Event) []RoundClasses {
	var out []RoundClasses
	at := func(round int) *RoundClasses {
		if len(out) == 0 || out[len(out)-1].Round != round {
			out = append(out, RoundClasses{Round: round})
		}
		return &out[len(out)-1]
	}
	for _, ev := range events {
		switch {
		case ev.Kind == orchestrate.EvRound:
			at(ev.Round)
		case ev.Kind == orchestrate.EvPropose && ev.Test == "":
			at(ev.Round).None++
		case ev.Kind == orchestrate.EvClassify && ev.Round > 0:
			rc := at(ev.Round)
			switch ev.Class {
			case orchestrate.TooWeak:
				rc.TooWeak++
			case orchestrate.TooHard:
				rc.TooHard++
			case orchestrate.Ideal:
				rc.Ideal++
			}
		}
	}
	return out
}

// lastChecks is what the other protocols decided on: the latest run of the coder's own
// tests and each critic's latest review.
func lastChecks(res *orchestrate.Result) Evidence {
	var e Evidence
	latest := map[string]string{}
	var order []string
	for _, ev := range res.Events {
		switch ev.Kind {
		case orchestrate.EvOwnTests:
			e.OwnTests = ev.Cells
		case orchestrate.EvReview:
			if _, ok := latest[ev.Agent]; !ok {
				order = append(order, ev.Agent)
			}
			latest[ev.Agent] = ev.Detail
		}
	}
	for _, name := range order {
		e.Reviews = append(e.Reviews, Review{Critic: name, Said: latest[name]})
	}
	return e
}
