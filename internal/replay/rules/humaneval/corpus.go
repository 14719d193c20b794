package humaneval

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay"
	"github.com/dixit-bot/dixit/internal/replay/rules"
)

// Corpus is the data set's problems as rules.Instances, with panels of kind drawn exactly
// as BASELINE.md drew them (replay.Draw), so that CodeT's and the Dixit pick's figures here
// can be checked against the published ones. derived must be the data set's own lines, in
// its order: a line built on other tests or coders is refused.
func Corpus(problems []replay.Problem, derived []Derived, kind replay.Kind) (rules.Corpus, error) {
	if len(derived) != len(problems) {
		return rules.Corpus{}, fmt.Errorf("humaneval: %d derived lines for %d problems: build the derived file again", len(derived), len(problems))
	}
	c := rules.Corpus{Name: "humaneval", Kind: kind.String()}
	var asserts, stubPass, stubUnknown int
	for i := range problems {
		in, err := instance(&problems[i], &derived[i])
		if err != nil {
			return rules.Corpus{}, err
		}
		c.Instances = append(c.Instances, in)
		asserts += len(in.Tests)
		stubPass += strings.Count(derived[i].Stub, "p")
		stubUnknown += strings.Count(derived[i].Stub, "e")
	}
	c.Draw = func(k int, seed int64, n int) rules.Panels {
		return rules.Panels(replay.Draw(problems, kind, k, seed, n))
	}
	c.Notes = []string{
		"gold: the HumanEval+ canonical solution (a test is right when it passes it)",
		fmt.Sprintf("base: the prompt with an empty body (the function returns None), run in the judge's sandbox; "+
			"%d of %d asserts pass on it, %d gave no result", stubPass, asserts, stubUnknown),
		"majority: coders whose programs are identical once parsed and printed back without comments or docstrings",
		"held out: every coder of the problem outside the panel (about 90 % CodeGen-16B samples)",
	}
	return c, nil
}

func instance(p *replay.Problem, d *Derived) (rules.Instance, error) {
	switch {
	case d.TaskID != p.TaskID:
		return rules.Instance{}, fmt.Errorf("humaneval: derived line for %s where %s is: build the derived file again", d.TaskID, p.TaskID)
	case d.TestsSHA != testsSHA(p) || len(d.Stub) != len(p.Tests):
		return rules.Instance{}, fmt.Errorf("humaneval: %s: the derived line was built on other tests: build it again", p.TaskID)
	case d.CodersSHA != codersSHA(p) || len(d.CodeGroup) != len(p.Coders):
		return rules.Instance{}, fmt.Errorf("humaneval: %s: the derived line was built on other coders: build it again", p.TaskID)
	}
	in := rules.Instance{ID: p.TaskID}
	for i, c := range p.Coders {
		in.Coders = append(in.Coders, rules.Coder{Name: c.ID, Source: c.Source, Resolved: c.HiddenPass,
			Group: fmt.Sprintf("g%d", d.CodeGroup[i])})
	}
	for i, t := range p.Tests {
		in.Tests = append(in.Tests, rules.Test{Name: t.ID, Source: t.Source, Gold: cell(t.Correct), Base: baseCell(d.Stub[i])})
	}
	for _, row := range p.Pass {
		cells := make([]rules.Cell, len(row))
		for t, ok := range row {
			cells[t] = cell(ok)
		}
		in.Cells = append(in.Cells, cells)
	}
	return in, nil
}

func cell(pass bool) rules.Cell {
	if pass {
		return rules.Pass
	}
	return rules.Fail
}

// baseCell reads a Stub character: a timeout fails, as the data set counts it.
func baseCell(b byte) rules.Cell {
	switch b {
	case 'p':
		return rules.Pass
	case 'f', 't':
		return rules.Fail
	}
	return rules.Env
}

// WeakSource is the coder source that makes up about 90 % of every problem's coders.
const WeakSource = "codet/codegen-16b"

// WithoutWeakHeldOut is c with the gate measured only on held-out coders of the other
// sources: issue 31 found the seed rule's 76 % "wrong code caught" to be 97 % CodeGen-16B
// samples, and an agent patch under `bot vet` is rather a strong model's work.
func WithoutWeakHeldOut(c rules.Corpus) rules.Corpus {
	c.Kind += ", held out: not " + WeakSource
	c.HeldOut = func(coder rules.Coder) bool { return coder.Source != WeakSource }
	notes := make([]string, 0, len(c.Notes))
	for _, n := range c.Notes {
		if !strings.HasPrefix(n, "held out:") {
			notes = append(notes, n)
		}
	}
	c.Notes = append(notes, "held out: the coders of the problem outside the panel that are not "+WeakSource+" samples (about 1,900 coders in all)")
	return c
}
