package replay

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Interval is a 95 % percentile bootstrap interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Intervals bound a row's figures. Problems are resampled, not panels: a problem's panels
// share its coders and tests, so the problem is the unit that varies between data sets.
type Intervals struct {
	Precision Interval `json:"kept_precision"`
	Yield     Interval `json:"any_kept"`
	// Faults: vetted, oracle, all proposed; each wrong caught then correct rejected.
	Faults [6]Interval `json:"faults"`
}

// resampler draws the same bootstrap resamples for every row of one problem set, so that
// rows on the same problems are compared on the same resamples.
type resampler struct {
	seed uint64
	n    int
	sets map[int][][]int32 // by number of problems: weights[b][i], how often problem i is drawn
}

func newResampler(seed uint64, n int) *resampler {
	return &resampler{seed: seed, n: n, sets: map[int][][]int32{}}
}

func (r *resampler) weights(problems int) [][]int32 {
	if w, ok := r.sets[problems]; ok {
		return w
	}
	rng := rand.New(rand.NewPCG(r.seed, uint64(problems)))
	w := make([][]int32, r.n)
	for b := range w {
		w[b] = make([]int32, problems)
		for range problems {
			w[b][rng.IntN(problems)]++
		}
	}
	r.sets[problems] = w
	return w
}

// intervals bootstraps a row's figures over its problems.
func (r *resampler) intervals(tallies []ProblemTally) Intervals {
	if len(tallies) == 0 || r.n == 0 {
		return Intervals{}
	}
	ws := r.weights(len(tallies))
	prec, yield := make([]float64, len(ws)), make([]float64, len(ws))
	var faults [6][]float64
	for b, w := range ws {
		var kept, right, shares, n float64
		var f Faults
		for i, t := range tallies {
			if w[i] == 0 {
				continue
			}
			x := float64(w[i])
			kept += x * float64(t.Kept)
			right += x * float64(t.KeptCorrect)
			shares += x * t.Yield()
			n += x
			f.add(t.Faults.times(int(w[i])))
		}
		prec[b], yield[b] = ratioF(right, kept), ratioF(shares, n)
		rates := [6]float64{ratioF(float64(f.VettedWrong), float64(f.Wrong)), ratioF(float64(f.VettedCorrect), float64(f.Correct)),
			ratioF(float64(f.OracleWrong), float64(f.Wrong)), ratioF(float64(f.OracleCorrect), float64(f.Correct)),
			ratioF(float64(f.AllWrong), float64(f.Wrong)), ratioF(float64(f.AllCorrect), float64(f.Correct))}
		for j, v := range rates {
			faults[j] = append(faults[j], v)
		}
	}
	out := Intervals{Precision: percentile(prec), Yield: percentile(yield)}
	for j := range faults {
		out.Faults[j] = percentile(faults[j])
	}
	return out
}

// percentile is the central 95 % of the resampled values; a resample where the share is
// over nothing (no kept test, no correct implementation) does not count.
func percentile(xs []float64) Interval {
	s := slices.DeleteFunc(slices.Clone(xs), math.IsNaN)
	if len(s) == 0 {
		return Interval{}
	}
	slices.Sort(s)
	lo := int(0.025 * float64(len(s)))
	hi := min(len(s)-1, int(0.975*float64(len(s))+0.5)-1)
	return Interval{Lo: s[lo], Hi: s[max(hi, lo)]}
}

// ratioF is num/den, NaN over nothing.
func ratioF(num, den float64) float64 {
	if den == 0 {
		return math.NaN()
	}
	return num / den
}
