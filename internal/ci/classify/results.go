// Package classify is what a GitHub Actions runner executes for Dixit: it runs a batch of
// candidate tests against one coder's tree with the local judge (internal/ci) and writes
// the verdicts to results.json. It also reads results.json back, strictly, for the
// backend that downloads it as a workflow artifact, and holds the workflow template and
// the static check that keeps workflows locked down.
package classify

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"time"
	"unicode/utf8"

	"github.com/dixit-bot/dixit/internal/ci"
)

// Schema names the version of results.json. A reader refuses any other value: a new
// version gets a new name, never a silent change.
const Schema = "dixit.classify/v1"

// MaxResultsSize caps results.json. 256 tests with 8 KiB of output each fit in 2 MiB.
const MaxResultsSize = 8 << 20

// MaxTests caps the tests of one batch.
const MaxTests = 256

// Results is results.json: one coder's tree against a batch of tests.
type Results struct {
	Schema    string    `json:"schema"`              // always Schema
	Run       string    `json:"run,omitempty"`       // the Dixit run id, echoed from the input
	Batch     string    `json:"batch"`               // the batch id, echoed from the input
	Coder     string    `json:"coder"`               // the coder's name, echoed from the input
	Tree      string    `json:"tree"`                // git tree hash of the tree that was judged
	Reruns    int       `json:"reruns"`              // runs per test (early stop at the first failure)
	Isolation string    `json:"isolation,omitempty"` // "bwrap", or "none: …" saying what holds without it; empty when the judge never started
	Bot       string    `json:"bot,omitempty"`       // version of the bot that judged
	Started   time.Time `json:"started"`
	Seconds   float64   `json:"seconds"` // wall time, judge setup included
	// Error is set when the judge itself failed (the sandbox could not start, the disk is
	// full...). Then Tests is empty: an error is never a test failure, and the job is to be
	// retried.
	Error string       `json:"error,omitempty"`
	Tests []TestResult `json:"tests"`
}

// TestResult is the verdict for one test.
type TestResult struct {
	ID      string     `json:"id"`
	SHA256  string     `json:"sha256"`  // of the test file's content, as judged
	Outcome ci.Outcome `json:"outcome"` // pass, fail, timeout, over_limit, build_failed, prepare_failed or tampered
	Runs    int        `json:"runs"`    // runs started: reruns for a pass, 0 for build_failed and prepare_failed
	// FailedRun is the run (1-based) that failed, for fail, timeout, over_limit and
	// tampered; 0 for pass, build_failed and prepare_failed.
	FailedRun int     `json:"failed_run,omitempty"`
	Seconds   float64 `json:"seconds"`          // build and runs of this test
	Output    string  `json:"output,omitempty"` // tail of the failing run's or build's output
}

// Verdict turns a result back into the judge's verdict.
func (t TestResult) Verdict() ci.Verdict {
	return ci.Verdict{Outcome: t.Outcome, Runs: t.Runs, Output: t.Output, Seconds: t.Seconds}
}

// resultFrom turns the judge's verdict into a result.
func resultFrom(test ci.Test, v ci.Verdict) TestResult {
	r := TestResult{ID: test.ID, SHA256: ContentHash(test.Content), Outcome: v.Outcome, Runs: v.Runs,
		Seconds: round3(v.Seconds), Output: v.Output}
	if v.Outcome != ci.Pass && v.Outcome != ci.BuildFailed && v.Outcome != ci.PrepareFailed {
		r.FailedRun = v.Runs
	}
	return r
}

// ContentHash is the hex SHA-256 of a test's content, as results.json records it.
func ContentHash(content []byte) string {
	h := sha256.Sum256(content)
	return hex.EncodeToString(h[:])
}

// ErrJudgeFailed marks results.json files that report a judge failure rather than
// verdicts: the job is to be retried and nothing counts against a coder.
var ErrJudgeFailed = errors.New("the judge failed on the runner")

var (
	idPattern   = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$`)
	namePattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$`)
	treePattern = regexp.MustCompile(`^[0-9a-f]{40}$`)
	hexSHA256   = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// ReadResults reads at most MaxResultsSize bytes of results.json, parses it and checks it
// against what was asked. It is what a backend calls on a downloaded artifact.
func ReadResults(r io.Reader, want Expect) (Results, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxResultsSize+1))
	if err != nil {
		return Results{}, fmt.Errorf("results.json: %w", err)
	}
	res, err := ParseResults(data)
	if err != nil {
		return Results{}, err
	}
	return res, res.Validate(want)
}

// ParseResults decodes results.json strictly and checks that it is consistent in itself:
// size cap, no unknown fields, no trailing data, the schema version, known outcomes,
// unique test ids, and runs and failed_run that agree with each outcome.
func ParseResults(data []byte) (Results, error) {
	if len(data) > MaxResultsSize {
		return Results{}, fmt.Errorf("results.json: larger than %d bytes", MaxResultsSize)
	}
	if !utf8.Valid(data) {
		return Results{}, errors.New("results.json: not valid UTF-8")
	}
	// The schema is checked first, on its own, so that a file of another version says so
	// instead of failing on the first field it does not know.
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Results{}, fmt.Errorf("results.json: invalid JSON: %w", err)
	}
	if head.Schema == nil {
		return Results{}, fmt.Errorf("results.json: no schema field (want %q)", Schema)
	}
	if *head.Schema != Schema {
		return Results{}, fmt.Errorf("results.json: schema %q, want %q", *head.Schema, Schema)
	}
	var res Results
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return Results{}, fmt.Errorf("results.json: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Results{}, errors.New("results.json: trailing data after the object")
	}
	if err := res.check(); err != nil {
		return Results{}, fmt.Errorf("results.json: %w", err)
	}
	return res, nil
}

// check is ParseResults' consistency check.
func (r Results) check() error {
	switch {
	case r.Run != "" && !namePattern.MatchString(r.Run):
		return fmt.Errorf("run %q: want letters, digits, '.', '_' and '-'", r.Run)
	case !namePattern.MatchString(r.Batch):
		return fmt.Errorf("batch %q: want 1 to 100 letters, digits, '.', '_' and '-'", r.Batch)
	case !namePattern.MatchString(r.Coder):
		return fmt.Errorf("coder %q: want 1 to 100 letters, digits, '.', '_' and '-'", r.Coder)
	case r.Reruns < 1 || r.Reruns > 1000:
		return fmt.Errorf("reruns %d: want 1 to 1000", r.Reruns)
	case !finite(r.Seconds):
		return fmt.Errorf("seconds %v: want a finite number, at least 0", r.Seconds)
	case len(r.Bot) > 200 || len(r.Isolation) > 100 || len(r.Error) > ci.MaxOutput+200:
		return errors.New("bot, isolation or error is too long")
	case r.Tests == nil:
		return errors.New("tests: missing (want a list, empty when error is set)")
	}
	if r.Error != "" {
		if len(r.Tests) > 0 {
			return fmt.Errorf("error %q comes with %d verdicts: a failed judge gives none", r.Error, len(r.Tests))
		}
		if r.Tree != "" && !treePattern.MatchString(r.Tree) {
			return fmt.Errorf("tree %q: want a git tree hash (40 lower-case hex digits)", r.Tree)
		}
		return nil
	}
	if !treePattern.MatchString(r.Tree) {
		return fmt.Errorf("tree %q: want a git tree hash (40 lower-case hex digits)", r.Tree)
	}
	if r.Isolation == "" {
		return errors.New("isolation: missing")
	}
	if len(r.Tests) == 0 || len(r.Tests) > MaxTests {
		return fmt.Errorf("tests: %d verdicts, want 1 to %d", len(r.Tests), MaxTests)
	}
	seen := make(map[string]bool, len(r.Tests))
	for i, t := range r.Tests {
		if err := t.check(r.Reruns); err != nil {
			return fmt.Errorf("tests[%d] (%q): %w", i, t.ID, err)
		}
		if seen[t.ID] {
			return fmt.Errorf("tests[%d]: test %q appears twice", i, t.ID)
		}
		seen[t.ID] = true
	}
	return nil
}

// check says whether one verdict is consistent with its outcome and the reruns asked for.
func (t TestResult) check(reruns int) error {
	if !idPattern.MatchString(t.ID) {
		return errors.New("id: want 1 to 100 letters, digits, '.', '_' and '-', not first '.' or '-'")
	}
	if !hexSHA256.MatchString(t.SHA256) {
		return errors.New("sha256: want 64 lower-case hex digits")
	}
	if !finite(t.Seconds) {
		return fmt.Errorf("seconds %v: want a finite number, at least 0", t.Seconds)
	}
	if len(t.Output) > ci.MaxOutput+1024 {
		return fmt.Errorf("output: %d bytes, more than the judge keeps", len(t.Output))
	}
	switch t.Outcome {
	case ci.Pass:
		if t.Runs != reruns || t.FailedRun != 0 {
			return fmt.Errorf("pass after %d runs (failed_run %d): a pass runs all %d runs and none fails", t.Runs, t.FailedRun, reruns)
		}
	case ci.BuildFailed, ci.PrepareFailed:
		// A coder whose tree cannot be prepared gets this verdict alone: the batch's
		// other coders keep theirs.
		if t.Runs != 0 || t.FailedRun != 0 {
			return fmt.Errorf("%s with %d runs (failed_run %d): a failed build or prepare runs nothing", t.Outcome, t.Runs, t.FailedRun)
		}
	case ci.Fail, ci.Timeout, ci.OverLimit:
		if t.Runs < 1 || t.Runs > reruns || t.FailedRun != t.Runs {
			return fmt.Errorf("%s with runs %d and failed_run %d: want the failing run as the last of 1..%d", t.Outcome, t.Runs, t.FailedRun, reruns)
		}
	case ci.Tampered:
		// The judge's own checks may trip before the process reported a run start.
		if t.Runs < 0 || t.Runs > reruns || t.FailedRun != t.Runs {
			return fmt.Errorf("tampered with runs %d and failed_run %d: want the tampered run as the last of 0..%d", t.Runs, t.FailedRun, reruns)
		}
	default:
		return fmt.Errorf("outcome %q: want pass, fail, timeout, over_limit, build_failed, prepare_failed or tampered", t.Outcome)
	}
	return nil
}

func finite(f float64) bool { return f >= 0 && !math.IsInf(f, 0) && !math.IsNaN(f) }

// Expect is what a backend asked a runner for; Validate compares results.json with it.
type Expect struct {
	Run    string    // "" skips the check
	Batch  string    // required
	Coder  string    // required
	Tree   string    // git tree hash of the coder's commit; "" skips the check
	Reruns int       // required
	Tests  []ci.Test // every test of the batch, with its content
}

// Validate checks results that ParseResults accepted against what was asked: the same
// batch, coder, tree and reruns, and exactly one verdict for each test asked for, with the
// content that was sent. Results that report a judge failure give an error wrapping
// ErrJudgeFailed.
func (r Results) Validate(want Expect) error {
	switch {
	case want.Run != "" && r.Run != want.Run:
		return fmt.Errorf("results.json: run %q, want %q", r.Run, want.Run)
	case r.Batch != want.Batch:
		return fmt.Errorf("results.json: batch %q, want %q", r.Batch, want.Batch)
	case r.Coder != want.Coder:
		return fmt.Errorf("results.json: coder %q, want %q", r.Coder, want.Coder)
	}
	if r.Error != "" {
		return fmt.Errorf("%w (coder %s): %s", ErrJudgeFailed, r.Coder, r.Error)
	}
	switch {
	case want.Tree != "" && r.Tree != want.Tree:
		return fmt.Errorf("results.json: coder %s judged tree %s, want %s", r.Coder, r.Tree, want.Tree)
	case r.Reruns != want.Reruns:
		return fmt.Errorf("results.json: reruns %d, want %d", r.Reruns, want.Reruns)
	}
	asked := make(map[string]string, len(want.Tests))
	for _, t := range want.Tests {
		asked[t.ID] = ContentHash(t.Content)
	}
	for _, t := range r.Tests {
		sum, ok := asked[t.ID]
		if !ok {
			return fmt.Errorf("results.json: a verdict for test %q, which was not asked for", t.ID)
		}
		if t.SHA256 != sum {
			return fmt.Errorf("results.json: test %q was judged with content %s, want %s", t.ID, t.SHA256, sum)
		}
	}
	if len(r.Tests) != len(asked) {
		got := make(map[string]bool, len(r.Tests))
		for _, t := range r.Tests {
			got[t.ID] = true
		}
		for _, t := range want.Tests {
			if !got[t.ID] {
				return fmt.Errorf("results.json: no verdict for test %q", t.ID)
			}
		}
		return fmt.Errorf("results.json: %d verdicts for %d tests", len(r.Tests), len(asked))
	}
	return nil
}

// Verdicts returns the verdicts in the order of the tests given (those Validate checked).
func (r Results) Verdicts(tests []ci.Test) ([]ci.Verdict, error) {
	by := make(map[string]TestResult, len(r.Tests))
	for _, t := range r.Tests {
		by[t.ID] = t
	}
	out := make([]ci.Verdict, len(tests))
	for i, t := range tests {
		res, ok := by[t.ID]
		if !ok {
			return nil, fmt.Errorf("results.json: no verdict for test %q", t.ID)
		}
		out[i] = res.Verdict()
	}
	return out, nil
}

// Marshal encodes results as results.json (indented, newline-terminated).
func (r Results) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }
