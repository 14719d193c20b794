package report

import (
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// RoundFacts is one round of the timeline: what the testers proposed, what entered the
// suite, what the coders had to redo, and how many coders agreed with the whole suite
// when the round ended.
type RoundFacts struct {
	runfile.RoundClasses
	SuiteBefore int `json:"suite_before"`
	SuiteAfter  int `json:"suite_after"`
	Solves      int `json:"solves"` // coder solutions asked for: retries, and in round 1 the first solutions
	Rollbacks   int `json:"rollbacks"`
	Hibernated  int `json:"hibernated"`
	Revived     int `json:"revived"`
	Tokens      int `json:"tokens"`
	// Agreeing counts the coders that pass every vetted test, the round's new ones
	// included, when the round ends: the coders converging.
	Agreeing int `json:"agreeing"`
}

// Timeline rebuilds the rounds from the events. The coders' first solutions come before
// the first round's marker; they count in round 1, where a reader looks for them.
func Timeline(s runfile.Summary) []RoundFacts {
	var out []RoundFacts
	classes := map[int]runfile.RoundClasses{}
	for _, rc := range classesByRound(s.Events) {
		classes[rc.Round] = rc
	}
	passes := newSuiteState(s)
	start := &RoundFacts{} // what happens before round 1: the first solutions
	cur := start
	closeRound := func() {
		if cur == start {
			return
		}
		cur.Agreeing = len(passes.all(s.Coders))
		out = append(out, *cur)
	}
	for _, ev := range s.Events {
		passes.see(ev)
		if ev.Kind == orchestrate.EvRound {
			closeRound()
			next := &RoundFacts{RoundClasses: classes[ev.Round], SuiteBefore: ev.Suite, SuiteAfter: ev.Suite}
			if cur == start {
				next.Solves, next.Rollbacks, next.Hibernated, next.Revived, next.Tokens = start.Solves, start.Rollbacks, start.Hibernated, start.Revived, start.Tokens
			}
			cur = next
			cur.Round = ev.Round
			continue
		}
		if ev.Spend != nil {
			cur.Tokens += ev.Spend.PromptTokens + ev.Spend.CompletionTokens
		}
		switch ev.Kind {
		case orchestrate.EvSolve:
			cur.Solves++
		case orchestrate.EvRollback:
			cur.Rollbacks++
		case orchestrate.EvHibernate:
			cur.Hibernated++
		case orchestrate.EvRevive:
			cur.Revived++
		case orchestrate.EvVet:
			cur.SuiteAfter = ev.Suite // counts the test that just entered
		}
	}
	closeRound()
	return out
}

// suiteState follows, event by event, which coders pass every test vetted so far: a
// suite run sets it; a new test sets it false for the coders that failed it.
type suiteState struct {
	failedBy map[string][]string // vetted test → coders that failed it when vetted
	passes   map[string]bool
}

func newSuiteState(s runfile.Summary) *suiteState {
	st := &suiteState{failedBy: map[string][]string{}, passes: map[string]bool{}}
	for _, v := range s.Vetted {
		st.failedBy[v.ID] = v.FailedBy
	}
	for _, c := range s.Coders {
		st.passes[c.Name] = true
	}
	return st
}

func (st *suiteState) see(ev orchestrate.Event) {
	switch ev.Kind {
	case orchestrate.EvSuite:
		st.passes[ev.Agent] = ev.Passed == len(ev.Cells)
	case orchestrate.EvVet:
		for _, c := range st.failedBy[ev.Test] {
			st.passes[c] = false
		}
	}
}

// all lists, in coder order, the coders passing every vetted test.
func (st *suiteState) all(coders []runfile.Coder) []string {
	var out []string
	for _, c := range coders {
		if st.passes[c.Name] {
			out = append(out, c.Name)
		}
	}
	return out
}

// Consensus lists the coders that pass the whole vetted suite at the end of the run,
// break none of the repository's own tests and never tampered with the test runner, in
// the configured order.
func Consensus(s runfile.Summary) []string {
	st := newSuiteState(s)
	for _, ev := range s.Events {
		st.see(ev)
	}
	var keep []runfile.Coder
	for _, c := range s.Coders {
		if len(c.Breaks) == 0 && c.Tampered == nil {
			keep = append(keep, c)
		}
	}
	return st.all(keep)
}
