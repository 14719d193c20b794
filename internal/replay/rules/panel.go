package rules

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
)

// Panels lists each instance's panels: Panels[i] holds instance i's panels as coder
// indices, none when its pool is smaller than the panel.
type Panels [][][]int

// DrawUniform draws n panels of k coders for every instance, each uniformly without
// replacement from the instance's pool (panels are drawn independently, so a small pool
// repeats panels, as drawing from it would). Each instance has its own generator, seeded
// with seed, k and its id: an instance's panels do not move when others are added,
// removed or reordered, so a held-out set replays the same way.
func DrawUniform(instances []Instance, k int, seed int64, n int) Panels {
	out := make(Panels, len(instances))
	for i := range instances {
		pool := len(instances[i].Coders)
		if pool < k {
			continue
		}
		rng := rand.New(rand.NewPCG(uint64(seed), streamOf(instances[i].ID, k)))
		idx := make([]int, pool)
		for range n {
			for j := range idx {
				idx[j] = j
			}
			for j := range k {
				r := j + rng.IntN(pool-j)
				idx[j], idx[r] = idx[r], idx[j]
			}
			panel := slices.Clone(idx[:k])
			slices.Sort(panel)
			out[i] = append(out[i], panel)
		}
	}
	return out
}

func streamOf(id string, k int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", id, k)
	return h.Sum64()
}

// count is the panels drawn and the instances having any.
func (ps Panels) count() (panels, instances int) {
	for _, p := range ps {
		panels += len(p)
		if len(p) > 0 {
			instances++
		}
	}
	return panels, instances
}
