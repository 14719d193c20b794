package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"
)

// runner runs runner.py, one process per problem.
type runner struct {
	python, script, scratch string
	log                     *slog.Logger
}

// result is what runner.py says of one problem.
type result struct {
	TaskID           string     `json:"task_id"`
	CanonicalLoads   bool       `json:"canonical_loads"`
	CanonicalHidden  bool       `json:"canonical_hidden"`
	Tests            []runTest  `json:"tests"`
	Coders           []runCoder `json:"coders"`
	SelfTests        selfTests  `json:"self_tests"`
	DistinctPrograms int        `json:"distinct_programs"`
	Seconds          float64    `json:"-"`
}

type runTest struct {
	Source         string  `json:"source"`
	Code           string  `json:"code"`
	NSamples       int     `json:"n_samples"`
	Correct        bool    `json:"correct"`
	CanonicalError *string `json:"canonical_error"`
}

type runCoder struct {
	ID             string `json:"id"`
	Source         string `json:"source"`
	Label          *bool  `json:"label_from_source"`
	Code           string `json:"code"`
	RemovedAsserts int    `json:"removed_asserts"`
	Parses         bool   `json:"parses"`
	Loads          bool   `json:"loads"`
	Row            []int8 `json:"row"`
	TestTimeouts   int    `json:"test_timeouts"`
	HiddenPass     bool   `json:"hidden_pass"`
	Killed         bool   `json:"killed"`
}

// selfTests counts the module-level asserts found in the coders' programs.
type selfTests struct {
	Found    int `json:"found"`
	Copies   int `json:"copies"`    // the same as an assert of MBPP's test_list
	OffEntry int `json:"off_entry"` // not calling the entry point
}

// all runs every problem, jobs at a time, and returns the results in problem order.
func (r runner) all(ctx context.Context, ps []*problem, jobs int) ([]result, error) {
	out := make([]result, len(ps))
	errs := make([]error, len(ps))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = r.one(ctx, ps[i])
			}
		}()
	}
	for i := range ps {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// one runs a problem. PYTHONHASHSEED is fixed as humaneval-replay's was: some programs
// return a set's order.
func (r runner) one(ctx context.Context, p *problem) (result, error) {
	in, err := json.Marshal(p)
	if err != nil {
		return result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, r.python, r.script)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = append(os.Environ(), "PYTHONHASHSEED=0", "MBPPBUILD_SCRATCH="+r.scratch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return result{}, fmt.Errorf("%s: runner.py: %w: %s", p.TaskID, err, stderr.String())
	}
	var res result
	if err := json.Unmarshal(b, &res); err != nil {
		return result{}, fmt.Errorf("%s: runner.py output: %w", p.TaskID, err)
	}
	res.Seconds = time.Since(start).Seconds()
	r.log.Info("ran", "task", p.TaskID, "coders", len(res.Coders), "tests", len(res.Tests), "seconds", res.Seconds)
	return res, nil
}
