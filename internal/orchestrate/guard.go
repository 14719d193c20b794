package orchestrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
)

// checkExisting runs a coder's tree against the repository's own tests that pass on the
// base: a journalled effect, so a resumed run neither runs them again nor tells the
// coder anything different. With no guard, nothing is broken.
func (r *Run) checkExisting(ctx context.Context, coder *coderSlot) ([]ci.Regression, error) {
	if r.guard == nil {
		return nil, nil
	}
	tree, err := r.store.Tree(ctx, coder.commit)
	if err != nil {
		return nil, fmt.Errorf("tree of coder %s: %w", coder.Name(), err)
	}
	want := r.inLane(record{Effect: "existing", Agent: coder.Name(), Key: tree.Hash()}, coder.Name())
	rec, _, err := r.effect(want, func() (record, error) {
		return metered(nil, func() (record, error) {
			broken, err := r.guard.Regressions(ctx, coder.Name(), tree)
			if err != nil {
				return record{}, fmt.Errorf("run the repository's own tests on coder %s: %w", coder.Name(), err)
			}
			return record{Regressions: broken}, nil
		})
	})
	if err != nil {
		return nil, err
	}
	coder.breaks = rec.Regressions
	detail := "keeps every existing test passing"
	if len(rec.Regressions) > 0 {
		var names []string
		for _, b := range rec.Regressions {
			names = append(names, b.Test)
		}
		detail = "breaks " + strings.Join(names, ", ")
	}
	r.emit(ctx, Event{Kind: EvExisting, Agent: coder.Name(), Detail: detail})
	return rec.Regressions, r.chargeIn(coder.Name(), judgeSpender, rec.Spend)
}

// existingTestsFail tells a coder which of the repository's own tests its change
// breaks, and why: the tests are in the repository it reads, so naming them hides
// nothing from it.
func existingTestsFail(broken []ci.Regression) string {
	var b strings.Builder
	b.WriteString("Your change breaks tests the repository already had, which pass without it:\n")
	for _, t := range broken {
		fmt.Fprintf(&b, "- %s: %s\n", t.Test, t.Reason)
	}
	b.WriteString("Make them pass again without changing them (changes to existing tests are not used when they run).")
	return b.String()
}
