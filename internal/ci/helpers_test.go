package ci

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/citest"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// sharedCache is one Go build cache for the package's tests. It outlives the test
// process (DIXIT_CI_TEST_CACHE overrides where): a cold cache costs ~30 s of compiling
// the standard library, paid once by warmUp before the parallel tests start.
var sharedCache string

func TestMain(m *testing.M) {
	sharedCache = os.Getenv("DIXIT_CI_TEST_CACHE")
	if sharedCache == "" {
		sharedCache = filepath.Join(os.TempDir(), "dixit-ci-test-cache")
	}
	// A test re-run as an unprivileged user (internal/testuser) runs one test: compiling
	// the standard library into its own cold cache first would only cost time.
	if os.Getenv("DIXIT_TEST_AS_NOBODY") == "" {
		if err := warmUp(); err != nil {
			fmt.Fprintln(os.Stderr, "warm-up:", err)
		}
	}
	os.Exit(m.Run())
}

// warmUp builds one trivial job so the standard library is compiled once, not by every
// parallel job of the first test.
func warmUp() error {
	c, _ := languages.Preset("go")
	work, err := os.MkdirTemp("", "dixit-ci-warm-")
	if err != nil {
		return err
	}
	defer sandbox.RemoveJobDir(work)
	l, err := NewLocal(LocalOptions{Contract: c, WorkDir: work, CacheDir: sharedCache, Parallel: 1, Logger: quietLogger()})
	if err != nil {
		return err
	}
	defer l.Close()
	_, err = l.Run(context.Background(), 1, []Job{{Coder: "warm", Tree: goModule(),
		Test: Test{ID: "warm", Content: goTest("", "func TestWarm(t *testing.T) {}\n")}}})
	return err
}

// mapTree is a Tree from a map of slash paths to contents.
type mapTree = citest.MapTree

// failingTree cannot be written: the judge's own failure.
type failingTree struct{}

func (failingTree) Hash() string             { return "broken" }
func (failingTree) WriteTo(dir string) error { return fmt.Errorf("disk on fire") }

// goModule is a tiny coder tree; its own test must never reach the judge's build.
func goModule() mapTree {
	return mapTree{
		"go.mod":     "module example.com/x\n\ngo 1.22\n",
		"x.go":       "package x\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n",
		"x_test.go":  "package x\n\nimport \"testing\"\n\nfunc TestCoderOwn(t *testing.T) { t.Fatal(\"coder test ran\") }\n",
		"sub/y.go":   "package sub\n",
		"sub/README": "not excluded\n",
	}
}

// goTest wraps a test body in a file of package x with the given imports.
func goTest(imports, body string) []byte {
	var b strings.Builder
	b.WriteString("package x\n\nimport (\n\t\"testing\"\n")
	for _, imp := range strings.Fields(imports) {
		fmt.Fprintf(&b, "\t%q\n", imp)
	}
	b.WriteString(")\n\n")
	b.WriteString(body)
	return []byte(b.String())
}

func quietLogger() *slog.Logger { return citest.QuietLogger() }

// newGoJudge is a Local for the Go preset with a short timeout and the shared cache.
func newGoJudge(t *testing.T, timeout time.Duration, edit func(*LocalOptions)) *Local {
	t.Helper()
	c, ok := languages.Preset("go")
	require.True(t, ok)
	c.Timeout = timeout
	opts := LocalOptions{Contract: c, WorkDir: t.TempDir(), CacheDir: sharedCache, Logger: quietLogger()}
	if edit != nil {
		edit(&opts)
	}
	l, err := NewLocal(opts)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

func requireBwrap(t *testing.T, l *Local) {
	t.Helper()
	if !l.sb.Bubblewrap() {
		t.Skip("bubblewrap is unavailable here: this isolation property is not provided (CI has bwrap)")
	}
}

// processWithArg reports whether any host process has arg in its command line.
func processWithArg(arg string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(data), arg) {
			return true
		}
	}
	return false
}
