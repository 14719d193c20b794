package rules

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// DefaultSeed is the replay's seed (docs/replay.md), so both analyses start alike.
const DefaultSeed = 20261122

// Config says what to measure.
type Config struct {
	Seed      int64
	Panels    int    // drawn per instance for each K (issue 31: at least 20)
	Sizes     []int  // panel sizes K
	Rules     []Rule // keep rules; each brings its consensus and hybrid picks
	Resamples int    // bootstrap resamples of the instances; 0 leaves intervals out
}

// DefaultConfig is issue 31's setting: K = 3, 5, 7, 20 panels each, every rule, 1,000
// resamples.
func DefaultConfig() Config {
	return Config{Seed: DefaultSeed, Panels: 20, Sizes: []int{3, 5, 7}, Rules: slices.Clone(Rules), Resamples: 1000}
}

func (c Config) validate() error {
	if c.Panels < 1 {
		return fmt.Errorf("panels per instance: %d, want at least 1", c.Panels)
	}
	if len(c.Sizes) == 0 || len(c.Rules) == 0 {
		return errors.New("need at least one panel size and one keep rule")
	}
	if c.Resamples < 0 {
		return fmt.Errorf("bootstrap resamples: %d, want 0 or more", c.Resamples)
	}
	for _, k := range c.Sizes {
		if k < 2 {
			return fmt.Errorf("panel size %d: want at least 2", k)
		}
	}
	return nil
}

// Corpus is what to measure on: instances and how their panels are drawn.
type Corpus struct {
	Name      string // "humaneval", "swe-sympy"
	Kind      string // how panels are drawn, for the report: "pool", "diverse", …
	Instances []Instance
	// Draw draws n panels of k coders per instance; nil draws uniformly from each pool.
	Draw func(k int, seed int64, n int) Panels
	// HeldOut says which coders outside a panel the vet figures count (nil: all of them),
	// so that a corpus dominated by one weak source can be measured on the others too.
	HeldOut func(Coder) bool
	// Notes say what the loader left out and why; the report repeats them.
	Notes []string
}

// Run measures every rule and pick on c's panels, telling progress (may be nil).
func Run(ctx context.Context, c Corpus, cfg Config, progress func(string)) (*Report, error) {
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("rules config: %w", err)
	}
	if len(c.Instances) == 0 {
		return nil, fmt.Errorf("%s: no instances", c.Name)
	}
	for i := range c.Instances {
		if err := c.Instances[i].Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	if progress == nil {
		progress = func(string) {}
	}
	draw := c.Draw
	if draw == nil {
		draw = func(k int, seed int64, n int) Panels { return DrawUniform(c.Instances, k, seed, n) }
	}
	l := newLayout(cfg.Rules)
	prepared := make([]*prepared, len(c.Instances))
	for i := range c.Instances {
		prepared[i] = prepare(&c.Instances[i], c.HeldOut)
	}
	rep := &Report{Corpus: c.Name, Kind: c.Kind, SomeHeldOut: c.HeldOut != nil, Instances: len(c.Instances), Seed: cfg.Seed, PanelsPer: cfg.Panels,
		Resamples: cfg.Resamples, Rules: slices.Clone(cfg.Rules), Picks: slices.Clone(l.picks), Notes: slices.Clone(c.Notes)}
	// One set of resamples per corpus, whatever the panel kind: kinds compare on the same draws.
	weights := resamples(cfg.Seed, c.Name, len(c.Instances), cfg.Resamples)
	for _, k := range cfg.Sizes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		panels := draw(k, cfg.Seed, cfg.Panels)
		if len(panels) != len(c.Instances) {
			return nil, fmt.Errorf("%s: K=%d: panels for %d instances, have %d", c.Name, k, len(panels), len(c.Instances))
		}
		n, with := panels.count()
		progress(fmt.Sprintf("%s (%s), K=%d: %d panels on %d instances", c.Name, c.Kind, k, n, with))
		if n == 0 {
			rep.Skipped = append(rep.Skipped, fmt.Sprintf("K=%d: no instance has %d coders", k, k))
			continue
		}
		byBand := tally(l, prepared, panels)
		for b, band := range Bands {
			rep.Rows = append(rep.Rows, newRow(l, rowKey{k, band}, byBand[b], weights))
		}
	}
	return rep, nil
}

// tally adds every panel of every instance to its instance's vectors: byBand[b][i] is
// instance i's sum over its panels in band b.
func tally(l layout, prepared []*prepared, panels Panels) [][][]float64 {
	byBand := make([][][]float64, len(Bands))
	for b := range byBand {
		byBand[b] = make([][]float64, len(prepared))
		for i := range prepared {
			byBand[b][i] = make([]float64, l.size())
		}
	}
	for i, pr := range prepared {
		for _, panel := range panels[i] {
			if err := checkPanel(pr.in, panel); err != nil {
				panic("rules: " + err.Error()) // a Draw function's bug, not the data's
			}
			v := newPanelView(pr, panel)
			v.addTo(l, byBand[0][i], byBand[bandOf(v.correct, len(panel))][i])
		}
	}
	return byBand
}

func checkPanel(in *Instance, panel []int) error {
	seen := map[int]bool{}
	for _, c := range panel {
		if c < 0 || c >= len(in.Coders) || seen[c] {
			return fmt.Errorf("%s: panel %v is not a set of its coders", in.ID, panel)
		}
		seen[c] = true
	}
	return nil
}
