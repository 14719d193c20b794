package report

import (
	"strings"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// exhaustedRounds is how many of the last rounds TESTERS_EXHAUSTED evidence shows.
const exhaustedRounds = 3

// evidence gathers what the table of outcomes says backs the run's reason.
func evidence(res *orchestrate.Result) runfile.Evidence {
	switch orchestrate.ReasonFor(res.Outcome).Evidence {
	case orchestrate.EvidenceStuckCoder:
		return runfile.Evidence{Stuck: stuckCoder(res.Events)}
	case orchestrate.EvidenceStackedTests:
		return runfile.Evidence{Stacked: stackedTests(res)}
	case orchestrate.EvidenceLastRounds:
		rounds := classesByRound(res.Events)
		return runfile.Evidence{Exhausted: rounds[max(0, len(rounds)-exhaustedRounds):]}
	case orchestrate.EvidenceOwnChecks:
		return lastChecks(res)
	default: // what ran out; for the preflight, summary.json keeps the reason here too
		return runfile.Evidence{Budget: res.Reason}
	}
}

// stuckCoder finds the coder the run escalated on: the protocol brings coders up to the
// suite in order and stops at the first that cannot, so it owns the last suite run, or
// the last break of the repository's own tests when that is what it could not mend.
func stuckCoder(events []orchestrate.Event) *runfile.StuckCoder {
	var last *orchestrate.Event
	for i := range events {
		if events[i].Kind == orchestrate.EvSuite || breaksExisting(events[i]) {
			last = &events[i]
		}
	}
	if last == nil {
		return nil
	}
	st := &runfile.StuckCoder{Coder: last.Agent}
	if last.Kind == orchestrate.EvExisting {
		st.Failing = strings.Split(strings.TrimPrefix(last.Detail, existingBreaks), ", ")
		return st
	}
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

// existingBreaks starts the detail of an event that tells a coder which of the
// repository's own tests its tree breaks.
const existingBreaks = "breaks "

func breaksExisting(ev orchestrate.Event) bool {
	return ev.Kind == orchestrate.EvExisting && strings.HasPrefix(ev.Detail, existingBreaks)
}

func stackedTests(res *orchestrate.Result) []runfile.StackedTest {
	latest := map[string]orchestrate.Event{}
	for _, ev := range res.Events {
		if ev.Kind == orchestrate.EvClassify {
			latest[ev.Test] = ev
		}
	}
	var out []runfile.StackedTest
	for _, t := range res.Testers {
		for _, c := range t.Stacked {
			ev := latest[c.ID]
			out = append(out, runfile.StackedTest{Tester: t.Name, Test: c.ID, Passed: ev.Passed, Coders: len(ev.Cells), Round: ev.Round})
		}
	}
	return out
}

// classesByRound counts every round's proposals, in round order.
func classesByRound(events []orchestrate.Event) []runfile.RoundClasses {
	var out []runfile.RoundClasses
	at := func(round int) *runfile.RoundClasses {
		if len(out) == 0 || out[len(out)-1].Round != round {
			out = append(out, runfile.RoundClasses{Round: round})
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
func lastChecks(res *orchestrate.Result) runfile.Evidence {
	var e runfile.Evidence
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
		e.Reviews = append(e.Reviews, runfile.Review{Critic: name, Said: latest[name]})
	}
	return e
}
