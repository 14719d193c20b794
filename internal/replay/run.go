package replay

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// DefaultSeed is the baseline's seed (BASELINE.md).
const DefaultSeed = 20261122

// Config says what to replay. Every kind is drawn at every size once; each threshold is
// then applied to those same panels, so thresholds compare like with like.
type Config struct {
	Seed   int64
	Panels int // per problem, for each kind and size
	Kinds  []Kind
	Sizes  []int  // panel sizes K
	Rules  []Rule // thresholds
	// Resamples is how many bootstrap resamples of the problems bound each figure; 0
	// leaves the intervals out.
	Resamples int
}

// DefaultConfig is BASELINE.md's setting (K = 3, 5, 7 at threshold 0.6) widened for
// calibration to K = 9 and thresholds 0.5 to 0.8.
func DefaultConfig() Config {
	return Config{
		Seed:   DefaultSeed,
		Panels: 20,
		Kinds:  []Kind{Diverse, Random, Same("codet/codegen-16b"), Same("agentcoder/gpt-3.5-turbo-1106")},
		Sizes:  []int{3, 5, 7, 9},
		Rules:  []Rule{{50}, {60}, {70}, {80}},

		Resamples: 1000,
	}
}

func (c Config) validate() error {
	if c.Panels < 1 {
		return fmt.Errorf("panels per problem: %d, want at least 1", c.Panels)
	}
	if len(c.Kinds) == 0 || len(c.Sizes) == 0 || len(c.Rules) == 0 {
		return errors.New("need at least one panel kind, size and threshold")
	}
	if c.Resamples < 0 {
		return fmt.Errorf("bootstrap resamples: %d, want 0 or more", c.Resamples)
	}
	for _, k := range c.Sizes {
		if k < 2 {
			return fmt.Errorf("panel size %d: want at least 2", k)
		}
	}
	for _, r := range c.Rules {
		if err := r.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// Report is a whole replay: one row per kind, size and threshold that had any panel.
type Report struct {
	DataSet   string   `json:"data_set,omitempty"` // the data set's folder name, for titles
	Problems  int      `json:"problems"`
	Seed      int64    `json:"seed"`
	Panels    int      `json:"panels_per_problem"`
	SeedsUsed string   `json:"seeds"` // how panels were drawn, for a reader of the JSON
	Sizes     []int    `json:"sizes"`
	Kinds     []string `json:"kinds"`
	Rows      []Row    `json:"rows"`
	Resamples int      `json:"bootstrap_resamples"`
}

// The problem sets a row can be measured on.
const (
	// AllProblems: every problem that can have a panel of the row's kind and size.
	AllProblems = "all"
	// CommonProblems: the problems that can have a panel of the row's kind at every size
	// replayed, so that the sizes compare like with like. Only where the sets differ.
	CommonProblems = "common"
)

// Row is one kind, size and threshold.
type Row struct {
	Kind      string    `json:"kind"`
	K         int       `json:"k"`
	Threshold float64   `json:"threshold"`
	Set       string    `json:"problem_set"` // AllProblems or CommonProblems
	Problems  int       `json:"problems"`
	Panels    int       `json:"panels"`
	Figures   Figures   `json:"figures"`
	CI        Intervals `json:"ci95"`
	Spread    Spread    `json:"per_problem"`
	Counts    Counts    `json:"counts"`
}

// Find returns the row for kind, k and threshold (in percent) on all the problems that can
// have its panel, if the replay has it.
func (r *Report) Find(kind string, k, thresholdPct int) (Row, bool) {
	return r.FindOn(AllProblems, kind, k, thresholdPct)
}

// FindOn is Find on one problem set.
func (r *Report) FindOn(set, kind string, k, thresholdPct int) (Row, bool) {
	for _, row := range r.Rows {
		if row.Set == set && row.Kind == kind && row.K == k && int(row.Threshold*100+0.5) == thresholdPct {
			return row, true
		}
	}
	return Row{}, false
}

// Comparable is the row to set beside the kind's other sizes: on the common problems
// when the sizes' problem sets differ, else on all.
func (r *Report) Comparable(kind string, k, thresholdPct int) (Row, bool) {
	if row, ok := r.FindOn(CommonProblems, kind, k, thresholdPct); ok {
		return row, true
	}
	return r.Find(kind, k, thresholdPct)
}

// Run replays cfg on problems, telling progress (may be nil) as each kind and size starts.
func Run(ctx context.Context, problems []Problem, cfg Config, progress func(string)) (*Report, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("replay config: %w", err)
	}
	if progress == nil {
		progress = func(string) {}
	}
	rep := &Report{
		Problems:  len(problems),
		Seed:      cfg.Seed,
		Panels:    cfg.Panels,
		SeedsUsed: `CPython random.Random("<seed>/<kind>/<K>"), one per kind and size, problems in file order`,
		Sizes:     slices.Clone(cfg.Sizes),
		Resamples: cfg.Resamples,
	}
	boot := newResampler(uint64(cfg.Seed), cfg.Resamples)
	for _, kind := range cfg.Kinds {
		rep.Kinds = append(rep.Kinds, kind.String())
		bySize := map[int]Panels{}
		for _, k := range cfg.Sizes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			panels := Draw(problems, kind, k, cfg.Seed, cfg.Panels)
			drawn, withPanels := panels.count()
			progress(fmt.Sprintf("panel kind %s, K=%d: %d panels on %d problems", kind, k, drawn, withPanels))
			if drawn == 0 {
				continue
			}
			bySize[k] = panels
			rep.Rows = append(rep.Rows, evaluateRows(problems, panels, rowOf{AllProblems, kind, k}, cfg.Rules, boot)...)
		}
		common, differ := commonSet(problems, bySize)
		if !differ {
			continue
		}
		progress(fmt.Sprintf("panel kind %s: %d problems have a panel at every K; every K again on those", kind, len(common)))
		for _, k := range cfg.Sizes {
			if panels, ok := bySize[k]; ok {
				rep.Rows = append(rep.Rows, evaluateRows(problems, panels.only(common), rowOf{CommonProblems, kind, k}, cfg.Rules, boot)...)
			}
		}
	}
	return rep, nil
}

// rowOf names the rows of one problem set, kind and size.
type rowOf struct {
	set  string
	kind Kind
	k    int
}

// evaluateRows evaluates one kind and size's panels at every threshold.
func evaluateRows(problems []Problem, panels Panels, of rowOf, rules []Rule, boot *resampler) []Row {
	var out []Row
	for _, rule := range rules {
		c := Evaluate(problems, panels, rule)
		out = append(out, Row{
			Kind: of.kind.String(), K: of.k, Threshold: rule.Threshold(), Set: of.set,
			Problems: c.Problems, Panels: c.Panels, Figures: c.Figures(), Counts: c,
			CI: boot.intervals(c.PerProblem), Spread: spread(problems, c.PerProblem),
		})
	}
	return out
}

// commonSet is the problems that have panels at every drawn size, and whether some size
// has panels on others too.
func commonSet(problems []Problem, bySize map[int]Panels) (map[int]bool, bool) {
	common, differ := map[int]bool{}, false
	for i := range problems {
		in, out := 0, 0
		for _, panels := range bySize {
			if len(panels[i]) > 0 {
				in++
			} else {
				out++
			}
		}
		switch {
		case in > 0 && out == 0:
			common[i] = true
		case in > 0:
			differ = true
		}
	}
	return common, differ
}

func (ps Panels) count() (drawn, problems int) {
	for _, p := range ps {
		drawn += len(p)
		if len(p) > 0 {
			problems++
		}
	}
	return drawn, problems
}

// only keeps the panels of the problems in keep.
func (ps Panels) only(keep map[int]bool) Panels {
	out := make(Panels, len(ps))
	for i, p := range ps {
		if keep[i] {
			out[i] = p
		}
	}
	return out
}
