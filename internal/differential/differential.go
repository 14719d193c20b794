// Package differential runs several implementations of one spec on the same inputs (a
// probe's) and lists the inputs on which they disagree. Its reports are evidence for a
// human: they never change a verdict or the vote.
package differential

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/words"
)

// Implementation is one coder's tree.
type Implementation struct {
	Coder string
	Tree  ci.Tree
}

// Observer runs a probe once against a tree and returns what it printed; the error is
// the judge's own failure, never the probe's.
type Observer interface {
	Observe(ctx context.Context, job ci.Job) (ci.Observation, error)
}

var _ Observer = (*ci.Local)(nil)

// Report compares the answers of several implementations. A coder that answered nothing
// at all (its probe did not build, say) is listed with Answered 0 and a note, and left
// out of the disagreements: it would make every input one.
type Report struct {
	Coders        []string          `json:"coders"`          // implementations compared, in the given order
	Inputs        int               `json:"inputs"`          // distinct inputs any implementation answered
	Answered      map[string]int    `json:"answered"`        // per coder
	Disagreements []Disagreement    `json:"disagreements"`   // inputs where answers differ, in first-seen order
	Notes         map[string]string `json:"notes,omitempty"` // per coder: build failed, stopped after k answers, malformed lines...
}

// Disagreement is one input on which the coders that answered anything differ.
type Disagreement struct {
	Input   string            `json:"input"`
	Outputs map[string]string `json:"outputs"` // coder -> output JSON text; "" when the coder gave no answer for this input
}

// parallel bounds the probes in flight; the judge's lanes bound them as well.
const parallel = 4

// maxNote caps a coder's note (a build failure carries the tail of the build output).
const maxNote = 12 << 10

// Run runs the probe once on every implementation, a few at a time, and compares their
// answers. The result does not depend on the order the probes finish in. The error is
// the judge's failure or a bad call; whatever a probe does ends up in the report.
func Run(ctx context.Context, obs Observer, impls []Implementation, probe ci.Test) (Report, error) {
	coders := make([]string, len(impls))
	seen := map[string]bool{}
	for i, im := range impls {
		if seen[im.Coder] {
			return Report{}, fmt.Errorf("differential: coder %q listed twice", im.Coder)
		}
		seen[im.Coder] = true
		coders[i] = im.Coder
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	observed := make([]ci.Observation, len(impls))
	sem := make(chan struct{}, parallel)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for i, im := range impls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			o, err := obs.Observe(ctx, ci.Job{Coder: im.Coder, Tree: im.Tree, Test: probe})
			if err != nil {
				once.Do(func() {
					firstErr = fmt.Errorf("differential: probe %s on %s: %w", probe.ID, im.Coder, err)
					cancel()
				})
				return
			}
			observed[i] = o
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return Report{}, firstErr
	}
	if err := ctx.Err(); err != nil {
		return Report{}, fmt.Errorf("differential: probe %s: %w", probe.ID, err)
	}

	answers := map[string][]Answer{}
	notes := map[string]string{}
	for i, o := range observed {
		a, problems := Parse(o.Output)
		answers[coders[i]] = a
		if n := note(o, len(a), problems); n != "" {
			notes[coders[i]] = n
		}
	}
	return Compare(coders, answers, notes), nil
}

// note explains what may be missing from a coder's answers.
func note(o ci.Observation, answers int, problems []string) string {
	var parts []string
	switch {
	case o.Exit == -1 && o.Note != "": // the probe never ran
		parts = append(parts, o.Note)
	case o.Note != "":
		parts = append(parts, fmt.Sprintf("%s (after %s)", o.Note, words.Count(answers, "answer", "answers")))
	}
	parts = append(parts, problems...)
	return head(strings.Join(parts, "\n"), maxNote)
}

// Compare lines up the answers of the coders, in the given order (a repeated name counts
// once). Answers and notes of coders not listed are ignored; a listed coder that answered
// nothing and has no note gets "no answers".
func Compare(coders []string, answers map[string][]Answer, notes map[string]string) Report {
	r := Report{Answered: map[string]int{}, Disagreements: []Disagreement{}}
	byCoder := map[string]map[string]string{}
	known := map[string]bool{}
	var inputs []string // first-seen order: coder by coder, answer by answer
	for _, c := range coders {
		if _, dup := byCoder[c]; dup {
			continue
		}
		r.Coders = append(r.Coders, c)
		m := map[string]string{}
		for _, a := range answers[c] {
			if _, ok := m[a.Input]; ok {
				continue // Parse keeps the first; so does Compare
			}
			m[a.Input] = a.Output
			if !known[a.Input] {
				known[a.Input] = true
				inputs = append(inputs, a.Input)
			}
		}
		byCoder[c] = m
		r.Answered[c] = len(m)
	}
	r.Inputs = len(inputs)

	compared := r.compared()
	for _, in := range inputs {
		outs := make(map[string]string, len(compared))
		differ := false
		for _, c := range compared {
			outs[c] = byCoder[c][in]
			differ = differ || outs[c] != outs[compared[0]]
		}
		if differ {
			r.Disagreements = append(r.Disagreements, Disagreement{Input: in, Outputs: outs})
		}
	}

	for _, c := range r.Coders {
		n := notes[c]
		if n == "" && r.Answered[c] == 0 {
			n = "no answers"
		}
		if n != "" {
			if r.Notes == nil {
				r.Notes = map[string]string{}
			}
			r.Notes[c] = n
		}
	}
	return r
}

// compared lists, in order, the coders that answered anything.
func (r Report) compared() []string {
	var out []string
	for _, c := range r.Coders {
		if r.Answered[c] > 0 {
			out = append(out, c)
		}
	}
	return out
}

// Agreement counts, over all inputs, the (input, other coder) pairs where the other
// coder gave the same answer as coder: the highest is the most typical implementation.
// A coder that answered nothing agrees with nobody.
func (r Report) Agreement(coder string) int {
	if r.Answered[coder] == 0 {
		return 0
	}
	others := len(r.compared()) - 1
	// An input without a disagreement was answered alike by every compared coder.
	agree := (r.Inputs - len(r.Disagreements)) * others
	for _, d := range r.Disagreements {
		mine := d.Outputs[coder]
		if mine == "" {
			continue
		}
		for c, out := range d.Outputs {
			if c != coder && out == mine {
				agree++
			}
		}
	}
	return agree
}
