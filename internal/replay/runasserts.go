package replay

import (
	"context"
	"fmt"

	"github.com/dixit-bot/dixit/internal/ci"
)

// The results RunAsserts gives an assert.
const (
	AssertPass        = "pass"
	AssertFail        = "fail"
	AssertTimeout     = "timeout"     // ran out of time: the data set counts it as failing
	AssertEnvironment = "environment" // a module this python3 lacks: not a result
	AssertUnknown     = "unknown"     // the run never reported it: not a result
)

// RunAsserts runs one program that is not in the data set (an empty-body stub, say)
// against every assert of p in the judge, in the batches and under the limits --execute
// uses, and gives each assert's result. Nothing is compared with the recorded matrix.
func RunAsserts(ctx context.Context, judge ci.Judge, p *Problem, code string) ([]string, error) {
	if judge == nil {
		return nil, fmt.Errorf("run asserts on %s: no judge", p.TaskID)
	}
	one := &Problem{TaskID: p.TaskID, Coders: []Coder{{ID: "program", Source: "program", Code: code}}, Tests: p.Tests}
	rep := &ExecReport{ByClass: map[string]int{}}
	results, err := execution{ExecOptions{Judge: judge}, rep}.runBatches(ctx, 0, one, []program{{code: code, coders: []int{0}}})
	if err != nil {
		return nil, fmt.Errorf("run asserts on %s: %w", p.TaskID, err)
	}
	out := make([]string, len(p.Tests))
	for t, c := range results[0] {
		out[t] = [...]string{AssertUnknown, AssertPass, AssertFail, AssertTimeout, AssertEnvironment}[c]
	}
	return out, nil
}
