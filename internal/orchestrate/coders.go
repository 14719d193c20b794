package orchestrate

import "context"

// ensurePasses brings a coder up to the whole vetted suite: one plain retry, then up to
// MAX_CODER_RETRIES attempts from a checkpoint, each failed attempt rolled back so the
// coder's history never piles up failures (DESIGN.md §1, ensure_passes).
func (r *Run) ensurePasses(ctx context.Context, coder *coderSlot) (bool, error) {
	if len(r.suite) == 0 {
		return true, nil
	}
	vector, err := r.runSuite(ctx, coder)
	if err != nil || allPass(vector) {
		return err == nil, err
	}
	if err := r.solve(ctx, coder, someTestsFail(r.numbers(), vector)); err != nil {
		return false, err
	}
	vector2, err := r.runSuite(ctx, coder)
	if err != nil {
		return false, err
	}
	if allPass(vector2) {
		return true, r.thank(ctx, coder, thanksForFix)
	}
	checkpoint, err := r.save(ctx, coder)
	if err != nil {
		return false, err
	}
	for attempt := 1; attempt <= r.cfg.MaxCoderRetries; attempt++ {
		if err := r.solve(ctx, coder, someTestsFail(r.numbers(), vector2)); err != nil {
			return false, err
		}
		vector3, err := r.runSuite(ctx, coder)
		if err != nil {
			return false, err
		}
		if allPass(vector3) {
			return true, r.thank(ctx, coder, thanksForFix)
		}
		if err := r.rollback(ctx, coder, checkpoint, "the checkpoint after its first retry"); err != nil {
			return false, err
		}
	}
	return false, nil
}

// numbers are the vetted tests' numbers, in suite order: what coders are told.
func (r *Run) numbers() []int {
	out := make([]int, len(r.suite))
	for i, v := range r.suite {
		out[i] = v.Number
	}
	return out
}

func allPass(vector []bool) bool {
	for _, ok := range vector {
		if !ok {
			return false
		}
	}
	return true
}
