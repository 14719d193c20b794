package ci

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type gitTree struct{ dir, rev string }

func (g gitTree) Hash() string { return g.rev }
func (g gitTree) WriteTo(dir string) error {
	cmd := exec.Command("sh", "-c", "git -C "+g.dir+" archive "+g.rev+" | tar -x -C "+dir)
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

func TestSuiteMeasureDixit(t *testing.T) {
	if os.Getenv("DIXIT_MEASURE") == "" {
		t.Skip()
	}
	c, _ := Preset("go")
	c.Timeout = 6 * time.Second
	c.BuildTimeout = 10 * time.Minute
	l, err := NewLocal(LocalOptions{Contract: c, WorkDir: t.TempDir(), CacheDir: sharedCache, Parallel: 2, Logger: quietLogger()})
	require.NoError(t, err)
	defer l.Close()
	tree := gitTree{"/work/main", "HEAD"}
	ctx := context.Background()
	start := time.Now()
	only, err := l.Affected(ctx, SuiteJob{Tree: tree}, []string{os.Getenv("DIXIT_MEASURE")})
	require.NoError(t, err)
	t.Logf("affected %v in %v", only, time.Since(start))
	rs, err := l.RunSuite(ctx, 2, []SuiteJob{{Coder: "base", Tree: tree, Only: only}})
	require.NoError(t, err)
	r := rs[0]
	set := NewRegressionSet(r)
	t.Logf("outcome %s, %d tests, regression set %d, flaky %d, %.1fs; stats %+v", r.Outcome, len(r.Tests), len(set.Tests), len(set.Flaky), r.Seconds, l.Stats())
	fails := 0
	for n, o := range r.Tests {
		if o != Pass && fails < 15 {
			fails++
			t.Logf("  %s %s %s", o, n, r.Messages[n])
		}
	}
	js, _ := json.MarshalIndent(r, "", " ")
	os.WriteFile("/tmp/suite-measure.json", js, 0o644)
	if r.Outcome != Pass {
		os.WriteFile("/tmp/suite-measure.out", []byte(r.Output), 0o644)
	}
}
