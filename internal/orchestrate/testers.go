package orchestrate

import "context"

// proposeTest asks a tester for a test until one is IDEAL, rolling its history back to
// checkpoint A after two misses so failures never pile up; two TOO_HARD tests in a row
// put it to sleep with both tests stacked (DESIGN.md §1, propose_test).
func (r *Run) proposeTest(ctx context.Context, tester *testerSlot) ([]Vetted, error) {
	beforeTest1, err := r.save(ctx, tester)
	if err != nil {
		return nil, err
	}
	for attempt := 1; attempt <= r.cfg.MaxTesterRetries; attempt++ {
		test1, ok, err := r.propose(ctx, tester, askForTest)
		if err != nil || !ok {
			return nil, err
		}
		class1, vetted, err := r.classify(ctx, test1)
		if err != nil {
			return nil, err
		}
		if class1 == Ideal {
			return r.keep(ctx, tester, vetted)
		}
		beforeTest2, err := r.save(ctx, tester)
		if err != nil {
			return nil, err
		}
		test2, ok, err := r.propose(ctx, tester, feedbackFor(class1))
		if err != nil || !ok {
			return nil, err
		}
		class2, vetted, err := r.classify(ctx, test2)
		if err != nil {
			return nil, err
		}
		if class2 == Ideal {
			return r.keep(ctx, tester, vetted)
		}
		if class1 == TooHard && class2 == TooHard {
			r.hibernate(ctx, tester, [2]Candidate{test1, test2}, beforeTest1, beforeTest2)
			return nil, nil
		}
		if err := r.rollback(ctx, tester, beforeTest1, "checkpoint A, before its first test"); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// attemptRevival re-classifies a sleeping tester's stacked tests against the coders as
// they are now; a test that is no longer too hard wakes the tester (DESIGN.md §1).
func (r *Run) attemptRevival(ctx context.Context, tester *testerSlot) ([]Vetted, error) {
	test1, test2 := tester.stacked[0], tester.stacked[1]
	class1, vetted1, err := r.classifyAgain(ctx, test1)
	if err != nil {
		return nil, err
	}
	if class1 != TooHard {
		// Its history now ends with test 1, before any feedback on it.
		r.wake(ctx, tester, test1)
		if err := r.rollback(ctx, tester, tester.beforeTest2, "checkpoint B, right after its first stacked test"); err != nil {
			return nil, err
		}
		if class1 == Ideal {
			return r.keep(ctx, tester, vetted1)
		}
		test2, ok, err := r.propose(ctx, tester, tooStraightforward)
		if err != nil || !ok {
			return nil, err
		}
		class2, vetted2, err := r.classify(ctx, test2)
		if err != nil {
			return nil, err
		}
		if class2 == Ideal {
			return r.keep(ctx, tester, vetted2)
		}
		if err := r.rollback(ctx, tester, tester.beforeTest1, "checkpoint A, before its first stacked test"); err != nil {
			return nil, err
		}
		return r.proposeTest(ctx, tester)
	}
	class2, vetted2, err := r.classifyAgain(ctx, test2)
	if err != nil {
		return nil, err
	}
	if class2 == TooHard {
		return nil, nil // still ahead of the coders: stay asleep
	}
	r.wake(ctx, tester, test2)
	if class2 == Ideal {
		return r.keep(ctx, tester, vetted2)
	}
	if err := r.rollback(ctx, tester, tester.beforeTest1, "checkpoint A, before its first stacked test"); err != nil {
		return nil, err
	}
	return r.proposeTest(ctx, tester)
}

// revive is a sleeping tester's turn: attempt_revival, and if a human asked to wake it
// and its stacked tests are still too hard, a wake at checkpoint A (before its stacked
// tests), from where it proposes afresh.
func (r *Run) revive(ctx context.Context, tester *testerSlot) ([]Vetted, error) {
	got, err := r.attemptRevival(ctx, tester)
	forced := tester.forceWake
	tester.forceWake = false
	if err != nil || !forced || !tester.hibernated {
		return got, err
	}
	tester.hibernated = false
	r.emit(ctx, Event{Kind: EvRevive, Agent: tester.Name(), Detail: "woken by a human: its stacked tests are still too hard"})
	if err := r.rollback(ctx, tester, tester.beforeTest1, "checkpoint A, before its stacked tests"); err != nil {
		return nil, err
	}
	return r.proposeTest(ctx, tester)
}

// keep thanks the tester and hands its IDEAL test to the main loop.
func (r *Run) keep(ctx context.Context, tester *testerSlot, test Vetted) ([]Vetted, error) {
	if err := r.thank(ctx, tester, thanksForTest); err != nil {
		return nil, err
	}
	return []Vetted{test}, nil
}

func (r *Run) hibernate(ctx context.Context, tester *testerSlot, stacked [2]Candidate, beforeTest1, beforeTest2 Checkpoint) {
	tester.hibernated = true
	tester.stacked = stacked
	tester.beforeTest1, tester.beforeTest2 = beforeTest1, beforeTest2
	r.emit(ctx, Event{Kind: EvHibernate, Agent: tester.Name(), Detail: "stacked " + stacked[0].ID + " and " + stacked[1].ID})
}

func (r *Run) wake(ctx context.Context, tester *testerSlot, because Candidate) {
	tester.hibernated = false
	r.emit(ctx, Event{Kind: EvRevive, Agent: tester.Name(), Test: because.ID, Detail: because.ID + " is no longer too hard"})
}

func (r *Run) allHibernated() bool {
	for _, t := range r.testers {
		if !t.hibernated {
			return false
		}
	}
	return true
}
