package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dixit-bot/dixit/internal/differential"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Comparison is how the implementations differ: in their code (diff stats) and in their
// behaviour (differential testing), and which one the pull request is built from.
type Comparison struct {
	Touched []CoderDiff `json:"touched"` // each coder's change from the base revision
	Pairs   []PairDiff  `json:"pairs"`   // each pair of coders
	// Differential is the probe's answers compared across the passing implementations;
	// nil when no probe ran, and ProbeNote says why.
	Differential *differential.Report `json:"differential,omitempty"`
	ProbeBy      string               `json:"probe_by,omitempty"`
	ProbeNote    string               `json:"probe_note,omitempty"`
	Pick         Pick                 `json:"pick"`
}

// CoderDiff is the files a coder changed from the base revision.
type CoderDiff struct {
	Coder   string              `json:"coder"`
	Files   []gitstate.FileStat `json:"files"`
	Added   int                 `json:"added"`
	Deleted int                 `json:"deleted"`
}

// PairDiff is how far apart two implementations are.
type PairDiff struct {
	A       string `json:"a"`
	B       string `json:"b"`
	Files   int    `json:"files"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
}

// Pick is the implementation the escalation pull request is built from.
type Pick struct {
	Coder      string   `json:"coder"`
	Agreed     bool     `json:"agreed"`     // it passes every vetted test
	Candidates []string `json:"candidates"` // every coder that does
	Why        string   `json:"why"`
}

// Choose applies the pick rule (docs/escalation.md):
//  1. only coders passing the whole vetted suite are candidates;
//  2. among them, the one whose answers to the probe's inputs agree most often with the
//     other candidates' (the most typical implementation, as CodeT's dual agreement
//     ranks by consensus);
//  3. then the smallest change from the base revision (lines added plus deleted);
//  4. then the configured order of the coders.
//
// With no candidate, the coder passing the most vetted tests is shown, and the body says
// that none passes them all.
func Choose(s Summary, c Comparison) Pick {
	candidates := Consensus(s)
	size := map[string]int{}
	for _, t := range c.Touched {
		size[t.Coder] = t.Added + t.Deleted
	}
	order := map[string]int{}
	for i, coder := range s.Coders {
		order[coder.Name] = i
	}
	if len(candidates) == 0 {
		return bestOfNone(s, order)
	}
	agree := map[string]int{}
	if c.Differential != nil {
		for _, name := range candidates {
			agree[name] = c.Differential.Agreement(name)
		}
	}
	ranked := append([]string(nil), candidates...)
	sort.SliceStable(ranked, func(i, j int) bool {
		a, b := ranked[i], ranked[j]
		if agree[a] != agree[b] {
			return agree[a] > agree[b]
		}
		if size[a] != size[b] {
			return size[a] < size[b]
		}
		return order[a] < order[b]
	})
	p := Pick{Coder: ranked[0], Agreed: true, Candidates: candidates}
	if len(candidates) == 1 {
		p.Why = fmt.Sprintf("%s is the only implementation that passes every vetted test.", p.Coder)
		return p
	}
	p.Why = fmt.Sprintf("%s passes every vetted test, as do %d others. ", p.Coder, len(candidates)-1)
	// The coders the probe could not separate from the pick.
	var tied []string
	for _, name := range ranked {
		if agree[name] == agree[p.Coder] {
			tied = append(tied, name)
		}
	}
	if c.Differential != nil {
		if len(tied) == 1 {
			return withWhy(p, "On the probe's inputs its answers agree with the others' most often (%d shared answers).", agree[p.Coder])
		}
		p.Why += fmt.Sprintf("On the probe's inputs, %s agree with the others most often (%d shared answers each). ", strings.Join(tied, ", "), agree[p.Coder])
	} else {
		p.Why += "No probe tells them apart. "
	}
	smallest := true
	for _, name := range tied[1:] {
		smallest = smallest && size[name] > size[p.Coder]
	}
	if smallest {
		return withWhy(p, "Of these, %s's change from the base revision is the smallest (%d lines).", p.Coder, size[p.Coder])
	}
	return withWhy(p, "Nothing else tells them apart, so the first in the configured order is shown.")
}

func withWhy(p Pick, format string, args ...any) Pick {
	p.Why += fmt.Sprintf(format, args...)
	return p
}

// bestOfNone picks, when no coder passes the whole suite, the one whose last suite run
// passed the most tests.
func bestOfNone(s Summary, order map[string]int) Pick {
	passed := map[string]int{}
	for _, ev := range s.Events {
		if ev.Kind == orchestrate.EvSuite {
			passed[ev.Agent] = ev.Passed
		}
	}
	best := ""
	for _, c := range s.Coders {
		if best == "" || passed[c.Name] > passed[best] {
			best = c.Name
		}
	}
	return Pick{Coder: best, Candidates: []string{},
		Why: fmt.Sprintf("No implementation passes every vetted test; %s passed the most (%d of %d) in its last run of the suite.", best, passed[best], len(s.Vetted))}
}
