package differential

// The other measure of how the implementations differ: their verdicts on every test the
// testers proposed, vetted or not. The pick (internal/pick) ranks candidates by it.

// DualAgreement scores coders as CodeT does: coders that pass exactly the same tests form
// a group, and each member scores (tests the group passes) × (coders in the group).
// Coders passing no test score 0.
func DualAgreement(coders []string, passes map[string][]bool) map[string]int {
	key := func(row []bool) string {
		b := make([]byte, len(row))
		for i, ok := range row {
			b[i] = '0'
			if ok {
				b[i] = '1'
			}
		}
		return string(b)
	}
	size := map[string]int{}
	for _, c := range coders {
		size[key(passes[c])]++
	}
	out := map[string]int{}
	for _, c := range coders {
		n := 0
		for _, ok := range passes[c] {
			if ok {
				n++
			}
		}
		out[c] = n * size[key(passes[c])]
	}
	return out
}
