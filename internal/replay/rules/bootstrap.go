package rules

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
)

// Est is a share with its 95 % percentile bootstrap interval over instances. Over is what
// the share is over (panels, tests or held-out pairs, pooled); 0 means there was nothing
// to share over, and then Value, Lo and Hi mean nothing.
type Est struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Over  float64 `json:"over"`
}

// Defined says whether the share is over something.
func (e Est) Defined() bool { return e.Over > 0 }

// metric is a figure as a ratio of two sums of counters.
type metric func(s []float64) (num, den float64)

// resamples are the bootstrap's draws: weights[b][i] is how often instance i is drawn in
// resample b. One set per report, shared by every row and figure, so that two figures
// (two picks, two rules) compare on the same resamples.
func resamples(seed int64, corpus string, instances, n int) [][]int32 {
	h := fnv.New64a()
	h.Write([]byte(corpus))
	rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
	w := make([][]int32, n)
	for b := range w {
		w[b] = make([]int32, instances)
		for range instances {
			w[b][rng.IntN(instances)]++
		}
	}
	return w
}

// sums adds the instances' vectors with weights (nil: each once).
func sums(vecs [][]float64, weights []int32, size int) []float64 {
	out := make([]float64, size)
	for i, v := range vecs {
		x := 1.0
		if weights != nil {
			if weights[i] == 0 {
				continue
			}
			x = float64(weights[i])
		}
		for j, c := range v {
			out[j] += x * c
		}
	}
	return out
}

// estimate computes every metric on the instances and on each resample: the point
// values with their intervals, and each metric's resampled values (for paired differences).
func estimate(vecs [][]float64, weights [][]int32, size int, metrics []metric) ([]Est, [][]float64) {
	total := sums(vecs, nil, size)
	ests := make([]Est, len(metrics))
	reps := make([][]float64, len(metrics))
	for m, f := range metrics {
		num, den := f(total)
		if den > 0 {
			ests[m] = Est{Value: num / den, Over: den}
		}
		reps[m] = make([]float64, len(weights))
	}
	for b, w := range weights {
		s := sums(vecs, w, size)
		for m, f := range metrics {
			reps[m][b] = ratio(f(s))
		}
	}
	for m := range metrics {
		if ests[m].Defined() {
			ests[m].Lo, ests[m].Hi = percentile(reps[m])
		}
	}
	return ests, reps
}

// ratio is num/den, NaN over nothing: such a resample does not count.
func ratio(num, den float64) float64 {
	if den == 0 {
		return math.NaN()
	}
	return num / den
}

// percentile is the central 95 % of the resampled values that are defined.
func percentile(xs []float64) (float64, float64) {
	s := slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
	if len(s) == 0 {
		return 0, 0
	}
	slices.Sort(s)
	lo := int(0.025 * float64(len(s)))
	hi := min(len(s)-1, int(0.975*float64(len(s))+0.5)-1)
	return s[lo], s[max(hi, lo)]
}
