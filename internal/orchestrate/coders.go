package orchestrate

import "context"

// ensurePasses brings a coder up to the whole vetted suite, and the repository's own
// tests that pass on the base (when a guard holds it to them): one plain retry, then up
// to MAX_CODER_RETRIES attempts from a checkpoint, each failed attempt rolled back so the
// coder's history never piles up failures (DESIGN.md §1, ensure_passes).
func (r *Run) ensurePasses(ctx context.Context, coder *coderSlot) (bool, error) {
	if len(r.suite) == 0 && r.guard == nil {
		return true, nil
	}
	problem, err := r.check(ctx, coder)
	if err != nil || problem == "" {
		return err == nil, err
	}
	if err := r.solve(ctx, coder, problem); err != nil {
		return false, err
	}
	problem2, err := r.check(ctx, coder)
	if err != nil {
		return false, err
	}
	if problem2 == "" {
		return true, r.thank(ctx, coder, thanksForFix)
	}
	checkpoint, err := r.save(ctx, coder)
	if err != nil {
		return false, err
	}
	for attempt := 1; attempt <= r.cfg.MaxCoderRetries; attempt++ {
		if err := r.solve(ctx, coder, problem2); err != nil {
			return false, err
		}
		problem3, err := r.check(ctx, coder)
		if err != nil {
			return false, err
		}
		if problem3 == "" {
			return true, r.thank(ctx, coder, thanksForFix)
		}
		if err := r.rollback(ctx, coder, checkpoint, "the checkpoint after its first retry"); err != nil {
			return false, err
		}
	}
	return false, nil
}

// check runs the vetted suite on a coder and, once it passes every vetted test, the
// repository's own tests; it says what the coder must fix, or "" when nothing.
func (r *Run) check(ctx context.Context, coder *coderSlot) (string, error) {
	coder.breaks = nil // not known until its tree passes the vetted suite
	if len(r.suite) > 0 {
		vector, err := r.runSuite(ctx, coder)
		if err != nil {
			return "", err
		}
		if coder.unprepared != "" {
			return dependenciesFail(coder.unprepared), nil
		}
		if !allPass(vector) {
			return someTestsFail(r.numbers(), vector), nil
		}
	}
	broken, err := r.checkExisting(ctx, coder, false)
	if err != nil || len(broken) == 0 {
		return "", err
	}
	return existingTestsFail(broken), nil
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
