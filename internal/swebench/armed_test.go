package swebench

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/tripwire"
)

// TestEveryArmedSympyTestFileCompiles lays the judge's wires and twins into every test
// module of a real sympy tree, each test with a twin, and compiles the result with
// Python: a twin copied wrong would stop a whole test file from importing, and with it
// every coder's verdict. sympy's tests hold the shapes that break a copy made line by
// line: strings continued past a backslash, lines joined by one, expected output in
// triple-quoted strings at column 0, decorators over several lines.
func TestEveryArmedSympyTestFileCompiles(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("Debian's python3 is not installed")
	}
	dir := corpusDir(t)
	c, err := LoadCorpus(dir, "sympy__sympy-24443")
	require.NoError(t, err)
	bases, err := OpenBases(filepath.Join(dir, "bases.git"))
	require.NoError(t, err)
	base, err := bases.Base(c.Instances[0])
	require.NoError(t, err)

	out := t.TempDir()
	files, twins, defs := 0, 0, 0
	for _, p := range base.Paths() {
		if name := filepath.Base(p); !strings.HasPrefix(name, "test_") || !strings.HasSuffix(name, ".py") {
			continue
		}
		content, _ := base.File(p)
		armed := tripwire.Arm(p, content, rand.New(rand.NewPCG(uint64(files), 1)), nil)
		for _, w := range armed.Wires {
			if w.Twin != "" {
				twins++
			}
		}
		defs += strings.Count("\n"+string(content), "\ndef test")
		dst := filepath.Join(out, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, armed.Content, 0o644))
		files++
	}
	require.Greater(t, files, 500, "sympy's test modules")
	assert.Empty(t, uncompiled(t, out), "armed test modules that do not compile")
	t.Logf("%d test modules armed, %d twins for %d module-level test functions", files, twins, defs)
	assert.Greater(t, twins, defs*95/100, "nearly every test gets a twin")
}

// uncompiled compiles every file under dir with Debian's python3 and lists those that do
// not compile, each with Python's error.
func uncompiled(t *testing.T, dir string) []string {
	t.Helper()
	script := `import os, sys
for d, _, names in os.walk(sys.argv[1]):
    for n in names:
        p = os.path.join(d, n)
        try:
            compile(open(p, encoding="utf-8").read(), p, "exec")
        except SyntaxError as e:
            print("%s: %s" % (os.path.relpath(p, sys.argv[1]), e))
`
	got, err := exec.Command("/usr/bin/python3", "-c", script, dir).CombinedOutput()
	require.NoError(t, err, "%s", got)
	if out := strings.TrimSpace(string(got)); out != "" {
		return strings.Split(out, "\n")
	}
	return nil
}
