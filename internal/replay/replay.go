package replay

import "github.com/dixit-bot/dixit/internal/replay/pyrand"

// Panels are the drawn panels of one kind and size: Panels[i] lists problem i's panels
// (coder indices), empty when the problem cannot have one.
type Panels [][][]int

// Draw draws n panels of size k for every problem. One generator, seeded with
// "<seed>/<kind>/<k>", draws them all, problem by problem in file order.
func Draw(problems []Problem, kind Kind, k int, seed int64, n int) Panels {
	rng := pyrand.NewString(seedString(seed, kind, k))
	out := make(Panels, len(problems))
	for i := range problems {
		for range n {
			panel, ok := kind.draw(rng, &problems[i], k)
			if !ok {
				break
			}
			out[i] = append(out[i], panel)
		}
	}
	return out
}

// Evaluate applies rule to every drawn panel and pools the results.
func Evaluate(problems []Problem, panels Panels, rule Rule) Counts {
	var c Counts
	for i := range problems {
		if len(panels[i]) == 0 {
			continue
		}
		p := &problems[i]
		b := newBits(p)
		outs := make([]outcome, 0, len(panels[i]))
		for _, panel := range panels[i] {
			o := judge(p, panel, rule)
			o.panel, o.faults = panel, b.faults(p, panel, o.kept)
			outs = append(outs, o)
		}
		c.addProblem(i, p, outs)
	}
	return c
}
