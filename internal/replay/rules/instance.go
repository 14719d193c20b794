package rules

import (
	"errors"
	"fmt"
)

// Cell is one test's result on one tree.
type Cell uint8

const (
	Fail Cell = iota
	Pass
	// Env: the environment kept the test from giving a result (or, for the gold and base
	// rows, the result is not known). Never a pass and never a fail.
	Env
)

func (c Cell) String() string {
	switch c {
	case Fail:
		return "fail"
	case Pass:
		return "pass"
	case Env:
		return "env"
	}
	return fmt.Sprintf("cell(%d)", uint8(c))
}

// Instance is one issue (or problem): the pool of coders panels are drawn from, the LLM
// tests, and who passed which.
type Instance struct {
	ID     string
	Coders []Coder
	Tests  []Test
	Cells  [][]Cell // Cells[coder][test]
}

// Coder is one recorded implementation or agent patch.
type Coder struct {
	Name     string
	Source   string
	Resolved bool // the corpus' ground truth: SWE-bench's resolved, HumanEval's hidden_pass
	// Group: coders with the same normalised patch (or code) share it, so that Agentless'
	// majority vote can count identical candidates.
	Group string
}

// Test is one LLM-written test with its two controls.
type Test struct {
	Name   string
	Source string
	Gold   Cell // on the gold patch (HumanEval: the canonical solution); Env when unknown
	Base   Cell // on the base (HumanEval: an empty-body stub); Env when unknown
}

// Validate checks that the matrix is aligned and every cell is a known value, so that a
// broken loader fails here rather than in a figure.
func (in *Instance) Validate() error {
	if in.ID == "" {
		return errors.New("instance without an id")
	}
	if len(in.Cells) != len(in.Coders) {
		return fmt.Errorf("%s: %d rows of cells for %d coders", in.ID, len(in.Cells), len(in.Coders))
	}
	for _, t := range in.Tests {
		if t.Gold > Env || t.Base > Env {
			return fmt.Errorf("%s: test %s: gold or base cell out of range", in.ID, t.Name)
		}
	}
	for c, row := range in.Cells {
		if len(row) != len(in.Tests) {
			return fmt.Errorf("%s: coder %s has %d cells for %d tests", in.ID, in.Coders[c].Name, len(row), len(in.Tests))
		}
		for t, v := range row {
			if v > Env {
				return fmt.Errorf("%s: cell [%s][%s] out of range", in.ID, in.Coders[c].Name, in.Tests[t].Name)
			}
		}
	}
	return nil
}
