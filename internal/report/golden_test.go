package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/orchestrate"
)

var update = flag.Bool("update", false, "rewrite the golden reports in testdata/golden")

// Each escalation reason has its golden PR body: a change to what a reviewer reads shows
// up as a diff of these files (go test ./internal/report -update rewrites them).
func TestGoldenReportPerEscalationReason(t *testing.T) {
	want := map[string]orchestrate.Outcome{
		"testers_exhausted":      orchestrate.TestersExhausted,
		"coders_stuck":           orchestrate.CodersStuck,
		"all_testers_hibernated": orchestrate.AllTestersHibernated,
		"budget_exhausted":       orchestrate.BudgetExhausted,
	}
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			s, res := f.play(t)
			require.Equal(t, want[f.name], res.Outcome, "the fixture reaches its reason")
			body := Render(s, res, Options{Preface: "Closes #7\n\n", Limit: PRLimit, FullReport: "https://github.com/o/r-dixit/blob/dixit/7-report/report.md"})
			path := filepath.Join("testdata", "golden", f.name+".md")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
			}
			golden, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./internal/report -update to create it")
			assert.Equal(t, string(golden), body)
		})
	}
}
