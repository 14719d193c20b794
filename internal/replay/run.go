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
	}
}

func (c Config) validate() error {
	if c.Panels < 1 {
		return fmt.Errorf("panels per problem: %d, want at least 1", c.Panels)
	}
	if len(c.Kinds) == 0 || len(c.Sizes) == 0 || len(c.Rules) == 0 {
		return errors.New("need at least one panel kind, size and threshold")
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
	Problems  int      `json:"problems"`
	Seed      int64    `json:"seed"`
	Panels    int      `json:"panels_per_problem"`
	SeedsUsed string   `json:"seeds"` // how panels were drawn, for a reader of the JSON
	Sizes     []int    `json:"sizes"`
	Kinds     []string `json:"kinds"`
	Rows      []Row    `json:"rows"`
}

// Row is one kind, size and threshold.
type Row struct {
	Kind      string  `json:"kind"`
	K         int     `json:"k"`
	Threshold float64 `json:"threshold"`
	Problems  int     `json:"problems"`
	Panels    int     `json:"panels"`
	Figures   Figures `json:"figures"`
	Counts    Counts  `json:"counts"`
}

// Find returns the row for kind, k and threshold (in percent), if the replay has it.
func (r *Report) Find(kind string, k, thresholdPct int) (Row, bool) {
	for _, row := range r.Rows {
		if row.Kind == kind && row.K == k && int(row.Threshold*100+0.5) == thresholdPct {
			return row, true
		}
	}
	return Row{}, false
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
	}
	for _, kind := range cfg.Kinds {
		rep.Kinds = append(rep.Kinds, kind.String())
		for _, k := range cfg.Sizes {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			panels := Draw(problems, kind, k, cfg.Seed, cfg.Panels)
			drawn, withPanels := 0, 0
			for _, ps := range panels {
				drawn += len(ps)
				if len(ps) > 0 {
					withPanels++
				}
			}
			progress(fmt.Sprintf("panel kind %s, K=%d: %d panels on %d problems", kind, k, drawn, withPanels))
			if drawn == 0 {
				continue
			}
			for _, rule := range cfg.Rules {
				c := Evaluate(problems, panels, rule)
				rep.Rows = append(rep.Rows, Row{
					Kind: kind.String(), K: k, Threshold: rule.Threshold(),
					Problems: c.Problems, Panels: c.Panels, Figures: c.Figures(), Counts: c,
				})
			}
		}
	}
	return rep, nil
}
