package vet

import (
	"github.com/dixit-bot/dixit/internal/differential"
)

// PatchName is the patch's name among the implementations a probe is run on; it cannot
// be a coder's name, which has no spaces.
const PatchName = "the patch"

// Difference is an input on which the patch answers otherwise than most of the
// implementations that pass the vetted suite.
type Difference struct {
	Input     string `json:"input"`
	Patch     string `json:"patch"`     // the patch's answer; "" when it gave none
	Consensus string `json:"consensus"` // the answer most implementations gave
	Agree     int    `json:"agree"`     // how many gave it
	Of        int    `json:"of"`        // how many answered the input
}

// Differences reads a probe's report over the consensus implementations and the patch
// (named PatchName): the inputs where the patch's answer is not the one a strict
// majority of the others gave. Inputs on which the implementations themselves split are
// left out: there the patch is no odder than they are.
func Differences(rep differential.Report) []Difference {
	var out []Difference
	for _, d := range rep.Disagreements {
		counts := map[string]int{}
		answered := 0
		for coder, answer := range d.Outputs {
			if coder == PatchName || answer == "" {
				continue
			}
			counts[answer]++
			answered++
		}
		best, n := "", 0
		for answer, c := range counts {
			if c > n || c == n && answer < best {
				best, n = answer, c
			}
		}
		if 2*n <= answered || d.Outputs[PatchName] == best {
			continue
		}
		out = append(out, Difference{Input: d.Input, Patch: d.Outputs[PatchName], Consensus: best, Agree: n, Of: answered})
	}
	return out
}
