package replay

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay/pyrand"
)

// Kind says how a panel's coders are drawn (BASELINE.md, "Panels").
type Kind struct {
	Name   string // "diverse", "random" or "same"
	Source string // for "same": the one coder source
}

// Diverse draws K different sources, then one coder of each; Random draws K coders from
// all of the problem's; Same draws K coders of one source.
var (
	Diverse = Kind{Name: "diverse"}
	Random  = Kind{Name: "random"}
)

// Same is the same-source kind for source.
func Same(source string) Kind { return Kind{Name: "same", Source: source} }

// ParseKind reads "diverse", "random" or "same:<source>".
func ParseKind(s string) (Kind, error) {
	switch {
	case s == "diverse":
		return Diverse, nil
	case s == "random":
		return Random, nil
	case strings.HasPrefix(s, "same:") && len(s) > len("same:"):
		return Same(strings.TrimPrefix(s, "same:")), nil
	}
	return Kind{}, fmt.Errorf("panel kind %q: want diverse, random or same:<source>", s)
}

func (k Kind) String() string {
	if k.Name == "same" {
		return "same:" + k.Source
	}
	return k.Name
}

// seedString is the baseline's seed for one kind and panel size: one Python
// random.Random("<seed>/<kind>/<K>") draws every panel of that row, problem by problem.
func seedString(seed int64, kind Kind, k int) string {
	return fmt.Sprintf("%d/%s/%d", seed, kind, k)
}

// draw returns the coder indices of one panel of size k, or false when the problem cannot
// have such a panel (too few sources or coders). It makes exactly the calls the baseline
// made, in the same order, so that the generator stays in step with Python's.
func (k Kind) draw(rng *pyrand.Rand, p *Problem, size int) ([]int, bool) {
	switch k.Name {
	case "diverse":
		sources, bySource := groupBySource(p)
		if len(sources) < size {
			return nil, false
		}
		var panel []int
		for _, s := range rng.Sample(len(sources), size) {
			coders := bySource[sources[s]]
			panel = append(panel, coders[rng.Choice(len(coders))])
		}
		return panel, true
	case "random":
		if len(p.Coders) < size {
			return nil, false
		}
		return rng.Sample(len(p.Coders), size), true
	case "same":
		_, bySource := groupBySource(p)
		coders := bySource[k.Source]
		if len(coders) < size {
			return nil, false
		}
		var panel []int
		for _, i := range rng.Sample(len(coders), size) {
			panel = append(panel, coders[i])
		}
		return panel, true
	}
	panic("replay: unknown panel kind " + k.Name)
}

// groupBySource lists a problem's coder sources, sorted, and each one's coders in file order.
func groupBySource(p *Problem) ([]string, map[string][]int) {
	by := map[string][]int{}
	var sources []string
	for i, c := range p.Coders {
		if _, ok := by[c.Source]; !ok {
			sources = append(sources, c.Source)
		}
		by[c.Source] = append(by[c.Source], i)
	}
	slices.Sort(sources)
	return sources, by
}

// KindsFor is diverse, random, then a same-source kind for every source that has at least
// size coders on some problem, the largest source first: a data set's own sources, so that
// another corpus gets its same-source rows and no empty ones named after HumanEval's.
func KindsFor(problems []Problem, size int) []Kind {
	total := map[string]int{}
	enough := map[string]bool{}
	for i := range problems {
		_, by := groupBySource(&problems[i])
		for s, coders := range by {
			total[s] += len(coders)
			enough[s] = enough[s] || len(coders) >= size
		}
	}
	var sources []string
	for s := range enough {
		if enough[s] {
			sources = append(sources, s)
		}
	}
	slices.SortFunc(sources, func(a, b string) int {
		if total[a] != total[b] {
			return total[b] - total[a]
		}
		return strings.Compare(a, b)
	})
	kinds := []Kind{Diverse, Random}
	for _, s := range sources {
		kinds = append(kinds, Same(s))
	}
	return kinds
}
