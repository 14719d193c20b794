package replay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// ExecContract is the judge's python contract as --execute uses it: the preset, with
// pytest told to print one progress character per test and nothing else.
func ExecContract() ci.Contract {
	c, _ := languages.Preset("python")
	c.Env = maps.Clone(pytestEnv)
	// The harness's tests are read back by position in pytest's progress line; the
	// judge's tripwires would add tests of their own to it. The recorded programs are
	// data being re-run, not coders with a stake in the verdict.
	c.SkipTripwires = true
	return c
}

// ExecOptions say how to run the recorded code again.
type ExecOptions struct {
	Judge ci.Judge
	// Reruns is how many times a job that confirms a disagreement runs (the judge's
	// reruns: it passes only if every run passes).
	Reruns int
	// MaxConfirm caps the confirming jobs, which run one cell each; 0 means 500.
	MaxConfirm int
	Progress   func(string) // may be nil
}

// The classes of a disagreement between the judge and the recorded matrix.
const (
	ClassFlaky       = "flaky"       // the cell's result changed between executions
	ClassTimeout     = "timeout"     // an execution ran out of time on the assert
	ClassStable      = "stable"      // every execution here gives the other answer
	ClassEnvironment = "environment" // the judge could not run the cell: never a result
	ClassUnconfirmed = "unconfirmed" // over the MaxConfirm cap
)

// ExecReport is the agreement of the judge with the recorded pass matrix.
type ExecReport struct {
	Problems int     `json:"problems"`
	Coders   int     `json:"coders"`
	Programs int     `json:"programs"` // distinct programs executed (identical coders share one)
	Jobs     int     `json:"jobs"`     // judge jobs, confirming ones included
	Reruns   int     `json:"reruns"`
	Seconds  float64 `json:"seconds"`

	Cells       int `json:"cells"`       // compared: recorded and executed
	Agree       int `json:"agree"`       // the first execution gives the recorded result
	AgreeAfter  int `json:"agree_after"` // … or a confirming one does
	Environment int `json:"environment"` // cells the environment kept from running: not compared
	Timeouts    int `json:"timeouts"`    // cells that ran out of time here (counted as failing, as recorded)

	ByClass       map[string]int `json:"by_class"`
	Disagreements []Disagreement `json:"disagreements"`
	EnvironmentAt []string       `json:"environment_at,omitempty"` // what the judge said, per failed job

	confirmed int // confirming jobs so far, against MaxConfirm
}

// Disagreement is one cell where the judge and the matrix differ.
type Disagreement struct {
	TaskID   string `json:"task_id"`
	Coder    string `json:"coder"`
	Test     string `json:"test"`
	Assert   string `json:"assert"`
	Recorded bool   `json:"recorded_pass"`
	First    string `json:"first"`   // the batch execution: pass, fail or timeout
	Confirm  string `json:"confirm"` // the confirming job's verdict
	Class    string `json:"class"`
}

// Execute runs every recorded program of problems against every recorded assert in the
// judge's sandbox and compares each cell with the recorded matrix.
func Execute(ctx context.Context, problems []Problem, opts ExecOptions) (*ExecReport, error) {
	if opts.Judge == nil {
		return nil, fmt.Errorf("execute: no judge")
	}
	opts.Reruns = max(opts.Reruns, 1)
	if opts.MaxConfirm == 0 {
		opts.MaxConfirm = 500
	}
	if opts.Progress == nil {
		opts.Progress = func(string) {}
	}
	start := time.Now()
	rep := &ExecReport{Reruns: opts.Reruns, ByClass: map[string]int{}}
	for i := range problems {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t0, agree, cells := time.Now(), rep.Agree, rep.Cells
		if err := (execution{opts, rep}).problem(ctx, i, &problems[i]); err != nil {
			return nil, err
		}
		opts.Progress(fmt.Sprintf("execute %s: %d coders × %d asserts, %d of %d cells agree (%.1f s)",
			problems[i].TaskID, len(problems[i].Coders), len(problems[i].Tests), rep.Agree-agree, rep.Cells-cells, time.Since(t0).Seconds()))
	}
	rep.Problems = len(problems)
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// program is one distinct coder program of a problem and the coders that wrote it.
type program struct {
	code   string
	coders []int
}

func programs(p *Problem) []program {
	var out []program
	at := map[string]int{}
	for c, coder := range p.Coders {
		i, ok := at[coder.Code]
		if !ok {
			i = len(out)
			at[coder.Code] = i
			out = append(out, program{code: coder.Code})
		}
		out[i].coders = append(out[i].coders, c)
	}
	return out
}

// execution is one Execute call: its options and the report it fills.
type execution struct {
	opts ExecOptions
	rep  *ExecReport
}

func (e execution) problem(ctx context.Context, pi int, p *Problem) error {
	rep := e.rep
	progs := programs(p)
	rep.Coders += len(p.Coders)
	rep.Programs += len(progs)
	if len(p.Tests) == 0 {
		return nil
	}
	results, err := e.runBatches(ctx, pi, p, progs)
	if err != nil {
		return err
	}
	var disagree []pending
	for g, prog := range progs {
		for t, got := range results[g] {
			if got == cellUnknown || got == cellEnvironment {
				rep.Environment += len(prog.coders)
				continue
			}
			if got == cellTimeout {
				rep.Timeouts += len(prog.coders)
			}
			for _, c := range prog.coders {
				rep.Cells++
				if (got == cellPass) == p.Pass[c][t] {
					rep.Agree++
					rep.AgreeAfter++
					continue
				}
				disagree = append(disagree, pending{prog: g, coder: c, test: t, first: got})
			}
		}
	}
	return e.confirm(ctx, pi, p, progs, disagree)
}

// memTree is a coder's tree: its program alone.
type memTree struct{ code string }

func (m memTree) Hash() string {
	sum := sha256.Sum256([]byte(m.code))
	return hex.EncodeToString(sum[:])
}

func (m memTree) WriteTo(dir string) error {
	return os.WriteFile(filepath.Join(dir, solutionFile), []byte(m.code), 0o644)
}

// envFailure keeps what the judge said when it could not run a job, for the report.
func envFailure(rep *ExecReport, where string, detail string) {
	detail = strings.TrimSpace(detail)
	if len(detail) > 300 {
		detail = "…" + detail[len(detail)-300:]
	}
	if len(rep.EnvironmentAt) < 20 {
		rep.EnvironmentAt = append(rep.EnvironmentAt, where+": "+detail)
	}
}

// CheckJudge runs one trivial program and assert through the judge, so that a machine
// where the runner cannot work stops before hours of jobs, with the judge's own hint.
func CheckJudge(ctx context.Context, j ci.Judge) error {
	jobs := []ci.Job{{Coder: "check", Tree: memTree{"def f():\n    return 1\n"},
		Test: ci.Test{ID: "check", Content: harness([]string{"assert f() == 1"})}}}
	vs, err := j.Run(ctx, 1, jobs)
	if err != nil {
		return fmt.Errorf("the judge failed on a trivial job: %w", err)
	}
	if !vs[0].Passed() {
		return fmt.Errorf("a trivial assert did not pass in the judge (%s): %s\n%s",
			vs[0].Outcome, ci.EnvironmentHint(ExecContract(), vs[0]), strings.TrimSpace(vs[0].Output))
	}
	return nil
}
