package orchestrate

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci"
)

// checkExisting runs a coder's tree against the repository's own tests that pass on the
// base: a journalled effect, so a resumed run neither runs them again nor tells the
// coder anything different. With no guard, nothing is broken. A vote (retireExisting)
// is quiet: its events are the tests it retires.
func (r *Run) checkExisting(ctx context.Context, coder *coderSlot, vote bool) ([]ci.Regression, error) {
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
	broken := r.unretired(rec.Regressions)
	if vote {
		return broken, r.chargeIn(coder.Name(), judgeSpender, rec.Spend)
	}
	coder.breaks = broken
	detail := "keeps every existing test passing"
	if len(broken) > 0 {
		var names []string
		for _, b := range broken {
			names = append(names, b.Test)
		}
		detail = "breaks " + strings.Join(names, ", ")
		if names[0] == "" {
			detail = "could not be prepared: " + lastLine(broken[0].Reason, 160)
		}
	}
	r.emit(ctx, Event{Kind: EvExisting, Agent: coder.Name(), Detail: detail})
	return broken, r.chargeIn(coder.Name(), judgeSpender, rec.Spend)
}

// unretired leaves out the tests the spec changes.
func (r *Run) unretired(broken []ci.Regression) []ci.Regression {
	var out []ci.Regression
	for _, b := range broken {
		if !r.retired[b.Test] {
			out = append(out, b)
		}
	}
	return out
}

// retireExisting lets the coders' first solutions vote on the repository's own tests,
// by the Dixit rule's threshold: a test that most of them break checks what the spec
// asks to change, so it guards nothing in this run; one that fewer break stays, and the
// coders that break it are told in ensure_passes. It runs once per run.
func (r *Run) retireExisting(ctx context.Context) error {
	if r.guard == nil || r.retired != nil {
		return nil
	}
	broken := make([][]ci.Regression, len(r.coders))
	err := r.parallel(ctx, names(r.coders), func(ctx context.Context, i int) (bool, error) {
		var err error
		broken[i], err = r.checkExisting(ctx, r.coders[i], true)
		return false, err
	})
	if err != nil {
		return err
	}
	count := map[string]int{}
	for _, b := range broken {
		for _, t := range b {
			if t.Test != "" {
				count[t.Test]++
			}
		}
	}
	r.retired = map[string]bool{}
	var tests []string
	for test, n := range count {
		if float64(n) >= r.cfg.IdealThreshold*float64(len(r.coders))-1e-9 {
			r.retired[test] = true
			tests = append(tests, test)
		}
	}
	sort.Strings(tests)
	for _, test := range tests {
		r.emit(ctx, Event{Kind: EvExisting, Test: test, Detail: fmt.Sprintf(
			"the spec changes what %s checks: %d of %d first solutions break it, so it guards nothing in this run", test, count[test], len(r.coders))})
	}
	return nil
}

// existingTestsFail tells a coder which of the repository's own tests its change
// breaks, and why: the tests are in the repository it reads, so naming them hides
// nothing from it.
func existingTestsFail(broken []ci.Regression) string {
	if len(broken) == 1 && broken[0].Test == "" {
		return dependenciesFail(broken[0].Reason)
	}
	var b strings.Builder
	b.WriteString("Your change breaks tests the repository already had, which pass without it:\n")
	for _, t := range broken {
		fmt.Fprintf(&b, "- %s: %s\n", t.Test, t.Reason)
	}
	b.WriteString("Make them pass again without changing them (changes to existing tests are not used when they run).")
	return b.String()
}

// lastLine is the last line of an installer's output that says what failed: written by
// the installer (not the judge's "[dixit]" note) and not indented (the detail under
// it), cut to max runes.
func lastLine(output string, max int) string {
	lines := strings.Split(strings.TrimRight(output, " \t\r\n"), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], "\r")
		if l != "" && l[0] != ' ' && l[0] != '\t' && !strings.HasPrefix(l, "[dixit]") {
			line = l
			break
		}
	}
	if r := []rune(line); len(r) > max {
		line = string(append(r[:max-1], '…'))
	}
	return line
}
