package eval

import (
	"math/rand/v2"
	"sort"
)

// Interval is a 95 % confidence interval of a rate.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// bootstrapDraws and bootstrapSeed make the intervals reproducible: the same rows give
// the same interval.
const (
	bootstrapDraws = 2000
	bootstrapSeed  = 20261124
)

// bootstrap is the percentile bootstrap over tasks of a pooled rate: each draw resamples
// the tasks with replacement and pools their counts, so a task with many tests weighs as
// it does in the figure itself. It is nil with fewer than two tasks that count anything,
// when no interval means anything.
func bootstrap(scores []Score) *Interval {
	var counted []Score
	for _, s := range scores {
		if s.Total > 0 {
			counted = append(counted, s)
		}
	}
	if len(counted) < 2 {
		return nil
	}
	rng := rand.New(rand.NewPCG(bootstrapSeed, uint64(len(counted))))
	rates := make([]float64, bootstrapDraws)
	for d := range rates {
		var passed, total int
		for range counted {
			s := counted[rng.IntN(len(counted))]
			passed += s.Passed
			total += s.Total
		}
		rates[d] = float64(passed) / float64(total)
	}
	sort.Float64s(rates)
	return &Interval{Low: rates[bootstrapDraws*25/1000], High: rates[bootstrapDraws*975/1000-1]}
}
