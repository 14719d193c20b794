package report

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
)

var _ orchestrate.Reporter = (*Status)(nil)

// Status follows a run's events and renders the status comment the App keeps up to date
// on the issue: round, vetted tests, each coder's ACC/WA vector, the testers' states and
// the spend. It is safe for concurrent use.
type Status struct {
	mu      sync.Mutex
	run     string
	round   int
	suite   []string            // vetted test ids, in order
	vectors map[string][]string // coder → its last suite run, ACC/WA per test
	coders  []string
	// tampered: coder → the first test on which its job came out tampered.
	tampered map[string]string
	// lookFirst: coder → where the tamper scan of its change points first, once the
	// implementations have been compared.
	lookFirst map[string]string
	testers   map[string]string // tester → active | hibernated
	tokens    int
	minutes   func() int // GitHub Actions minutes so far; nil with the local judge
	outcome   orchestrate.Outcome
	reason    string
	// fitting are the decisions that answer the run's stop, once it has stopped.
	fitting []orchestrate.Offer
}

// NewStatus starts a status for a run with these coders and testers.
func NewStatus(run string, coders, testers []string) *Status {
	s := &Status{run: run, coders: coders, vectors: map[string][]string{}, tampered: map[string]string{}, lookFirst: map[string]string{},
		testers: map[string]string{}}
	for _, t := range testers {
		s.testers[t] = "active"
	}
	return s
}

// Event updates the status.
func (s *Status) Event(_ context.Context, ev orchestrate.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.round = ev.Round
	if ev.Spend != nil {
		s.tokens += ev.Spend.Tokens()
	}
	switch ev.Kind {
	case orchestrate.EvVet:
		s.suite = append(s.suite, ev.Test)
	case orchestrate.EvSuite:
		marks := make([]string, len(ev.Cells))
		for i, c := range ev.Cells {
			marks[i] = "WA"
			if c.Outcome == "pass" {
				marks[i] = "ACC"
			}
		}
		s.vectors[ev.Agent] = marks
	case orchestrate.EvTampered:
		if _, seen := s.tampered[ev.Coder]; !seen {
			s.tampered[ev.Coder] = ev.Test
		}
	case orchestrate.EvHibernate:
		s.testers[ev.Agent] = "hibernated"
	case orchestrate.EvRevive:
		s.testers[ev.Agent] = "active"
	case orchestrate.EvEscalate:
		s.outcome, s.reason = ev.Outcome, ev.Detail
	case orchestrate.EvRound:
		s.outcome, s.reason, s.fitting = "", "", nil // a decision took the run on
	case orchestrate.EvDecide:
		if ev.Test != "" { // a dropped test
			s.suite = slices.DeleteFunc(s.suite, func(id string) bool { return id == ev.Test })
		}
		if ev.Coder != "" && ev.Detail != "" && strings.HasPrefix(ev.Detail, orchestrate.DecideReplace) {
			s.coders = slices.DeleteFunc(slices.Clone(s.coders), func(c string) bool { return c == ev.Coder })
		}
	case orchestrate.EvSolve:
		if !slices.Contains(s.coders, ev.Agent) { // a fresh coder a human brought in
			s.coders = append(slices.Clone(s.coders), ev.Agent)
		}
	}
}

// Stopped shows the decisions that answer where the run stopped.
func (s *Status) Stopped(st orchestrate.Standing) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fitting = orchestrate.Fitting(st)
}

// Scanned shows, beside each tampered coder, where the tamper scan of its change points
// first (c is the run's comparison; nil shows nothing).
func (s *Status) Scanned(c *runfile.Comparison) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, coder := range s.coders {
		if look := firstPlaces(c, coder, statusPlaces); look != "" {
			s.lookFirst[coder] = look
		}
	}
}

// statusPlaces is how many of a tampered coder's findings the status comment names.
const statusPlaces = 2

// CountMinutes makes the status show the GitHub Actions minutes minutes reports.
func (s *Status) CountMinutes(minutes func() int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.minutes = minutes
}

// Marker identifies the bot's status comment for a run, so it is edited in place.
func Marker(run string) string { return fmt.Sprintf("<!-- dixit:status run=%s -->", run) }

// Markdown renders the status comment.
func (s *Status) Markdown() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	b.WriteString(Marker(s.run) + "\n")
	if s.outcome != "" {
		fmt.Fprintf(&b, "### Dixit: %s\n\n%s.\n\n", s.outcome, plain(s.reason))
	} else {
		fmt.Fprintf(&b, "### Dixit is working on this issue: round %d\n\n", s.round)
	}
	fmt.Fprintf(&b, "**%s**", words.Count(len(s.suite), "vetted test", "vetted tests"))
	if s.tokens > 0 {
		fmt.Fprintf(&b, " · %d tokens so far", s.tokens)
	}
	if s.minutes != nil {
		if m := s.minutes(); m > 0 {
			fmt.Fprintf(&b, " · %d GitHub Actions minutes", m)
		}
	}
	b.WriteString("\n\n| coder | vetted tests |\n|---|---|\n")
	for _, c := range s.coders {
		v := strings.Join(s.vectors[c], " ")
		if v == "" {
			v = "—"
		}
		name := plain(c)
		if test, ok := s.tampered[c]; ok {
			// Named where the coders are listed: it is out of the pick.
			name += fmt.Sprintf(" · **tampered** (test %s): no vote, never picked", plain(test))
			switch look := s.lookFirst[c]; look {
			case "":
			case scanFoundNothing:
				name += "; " + look
			default:
				name += "; look first at " + look
			}
		}
		fmt.Fprintf(&b, "| %s | %s |\n", name, v)
	}
	names := make([]string, 0, len(s.testers))
	for t := range s.testers {
		names = append(names, t)
	}
	sort.Strings(names)
	b.WriteString("\n| tester | state |\n|---|---|\n")
	for _, t := range names {
		fmt.Fprintf(&b, "| %s | %s |\n", plain(t), s.testers[t])
	}
	if len(s.fitting) > 0 {
		b.WriteString("\n**A human decides now.** Comment one of these (people with write access):\n\n")
		for _, f := range s.fitting {
			b.WriteString(offerLine("/dixit ", f))
		}
		b.WriteString("\nThe run goes on from here; each decision is kept with the run and shown in the pull request.\n")
	}
	b.WriteString("\n<sub>Edited in place as the run goes. Commands: `/dixit status`, `/dixit stop`, `/dixit resume`.</sub>\n")
	return b.String()
}
