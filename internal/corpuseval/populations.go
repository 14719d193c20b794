package corpuseval

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/swebench"
	"github.com/dixit-bot/dixit/internal/swepop"
)

// Populations is bot eval --corpus DIR --populations OUT: each instance written as a
// scripted population (swepop), with the commands that run and vet it.
type Populations struct {
	Corpus    string
	Instances []string // empty: every instance
	Matrices  string   // where the pass matrices are, for the labels written beside
	Out       string
	Coders    int
	Testers   int // 0: every test patch the judge takes
	HeldOut   int
}

// Write writes the populations and prints, for each, the commands that run it and vet
// its held-out patches.
func (p Populations) Write(stdout io.Writer) error {
	if p.Coders < 3 || p.HeldOut < 0 {
		return fmt.Errorf("--coders takes 3 or more and --held-out 0 or more (got %d and %d)", p.Coders, p.HeldOut)
	}
	corpus, err := swebench.LoadCorpus(p.Corpus, p.Instances...)
	if err != nil {
		return err
	}
	bases, err := swebench.OpenBases(filepath.Join(p.Corpus, "bases.git"))
	if err != nil {
		return err
	}
	for _, inst := range corpus.Instances {
		if err := corpus.LoadPatches(inst); err != nil {
			return fmt.Errorf("%s: %w", inst.ID, err)
		}
		req := swepop.Request{Corpus: corpus, Bases: bases, Coders: p.Coders, Testers: p.Testers, HeldOut: p.HeldOut, Out: p.Out,
			Labels: swepop.Labels(filepath.Join(p.Matrices, inst.ID+".json"))}
		w, err := req.Write(inst)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %d coders, %d testers (%d test patches left out), %d held out\n  bot run --population %s\n",
			inst.ID, len(w.Coders), len(w.Testers), len(w.Left), len(w.HeldOut), w.Dir)
		for _, h := range w.HeldOut {
			fmt.Fprintf(stdout, "  bot vet --population %s --patch %s\n", w.Dir, filepath.Join(w.Dir, h))
		}
	}
	return nil
}
