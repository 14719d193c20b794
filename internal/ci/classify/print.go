package classify

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/ci"
)

// Write writes r as results.json to name, creating its directory.
func (r Results) Write(name string) error {
	data, err := r.Marshal()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, data, 0o644)
}

// Print says on w, for a person, how many tests pass and each test's verdict; name is
// where the results were written.
func (r Results) Print(w io.Writer, name string) {
	passed := 0
	for _, t := range r.Tests {
		if t.Outcome == ci.Pass {
			passed++
		}
	}
	fmt.Fprintf(w, "coder %s, tree %s: %d of %d tests pass (%d reruns, %s, %.1f s); verdicts in %s\n",
		r.Coder, r.Tree, passed, len(r.Tests), r.Reruns, r.Isolation, r.Seconds, name)
	for _, t := range r.Tests {
		switch t.Outcome {
		case ci.Pass, ci.BuildFailed, ci.PrepareFailed: // no run of the test took place to fail
			fmt.Fprintf(w, "  %-24s %s\n", t.ID, t.Outcome)
		default:
			fmt.Fprintf(w, "  %-24s %s at run %d\n", t.ID, t.Outcome, t.FailedRun)
		}
	}
}
