package ci

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// gitTree is a commit of a local repository, written with git archive.
type gitTree struct{ repo, rev string }

func (g gitTree) Hash() string { return g.rev }

func (g gitTree) WriteTo(dir string) error {
	cmd := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", g.repo, g.rev, dir)
	cmd.Stderr = os.Stderr
	return cmd.Run()
}

// TestSuiteMeasureThisRepository runs this repository's own suite, restricted to what a
// change of the files in DIXIT_SUITE_MEASURE (comma-separated) affects, twice, and logs
// the figures. It takes minutes: only on request.
func TestSuiteMeasureThisRepository(t *testing.T) {
	changed := os.Getenv("DIXIT_SUITE_MEASURE")
	if changed == "" {
		t.Skip("set DIXIT_SUITE_MEASURE to changed files (internal/logkey/logkey.go) to measure this repository's suite")
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	require.NoError(t, err)
	c, _ := languages.Preset("go")
	c.Timeout = 6 * time.Second // a package gets a minute
	l, err := NewLocal(LocalOptions{Contract: c, WorkDir: t.TempDir(), CacheDir: sharedCache, Parallel: 1, Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	tree := gitTree{repo: strings.TrimSpace(string(top)), rev: "HEAD"}
	ctx := context.Background()

	start := time.Now()
	only, err := l.Affected(ctx, SuiteJob{Tree: tree}, strings.Split(changed, ","))
	require.NoError(t, err)
	t.Logf("affected packages (%v): %v", time.Since(start).Round(time.Millisecond), only)
	rs, err := l.RunSuite(ctx, 2, []SuiteJob{{Coder: "base", Tree: tree, Only: only}})
	require.NoError(t, err)
	r, set := rs[0], NewRegressionSet(rs[0])
	t.Logf("outcome %s: %d tests, regression set %d, flaky %d, %.1fs for 2 runs", r.Outcome, len(r.Tests), len(set.Tests), len(set.Flaky), r.Seconds)
	for _, name := range slices.Sorted(maps.Keys(r.Tests)) {
		if r.Tests[name] != Pass {
			t.Logf("  %s (passed %d of %d) %s", name, r.Passed[name], r.Runs, r.Messages[name])
		}
	}
}
