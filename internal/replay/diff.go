package replay

import "math"

// Diff is the mean paired difference between two pick rules over the same panels, with
// a standard error that treats each problem as a cluster: a problem's 20 panels share
// its coders and tests, so they are not 20 independent observations.
type Diff struct {
	Mean   float64 `json:"mean"`
	SE     float64 `json:"se"`
	Panels int     `json:"panels"`
}

// diffTally collects per problem the sum of differences and the number of panels.
type diffTally struct {
	sums, counts []float64
}

func (t *diffTally) add(sum float64, n int) {
	if n > 0 {
		t.sums = append(t.sums, sum)
		t.counts = append(t.counts, float64(n))
	}
}

// result is the ratio estimator Σd/Σn with its linearised cluster-robust error.
func (t *diffTally) result() Diff {
	var d, n float64
	for i := range t.sums {
		d += t.sums[i]
		n += t.counts[i]
	}
	if n == 0 {
		return Diff{}
	}
	mean := d / n
	m := float64(len(t.sums))
	var ss float64
	for i := range t.sums {
		r := t.sums[i] - mean*t.counts[i]
		ss += r * r
	}
	se := 0.0
	if m > 1 {
		se = math.Sqrt(ss*m/(m-1)) / n
	}
	return Diff{Mean: mean, SE: se, Panels: int(n)}
}
