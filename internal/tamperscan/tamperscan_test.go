package tamperscan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile is a coder's tree from the judge's hostile suite (internal/ci/testdata/hostile),
// every file new, the judge's test left out.
func hostile(t *testing.T, name string) Change {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "ci", "testdata", "hostile", "coder_"+name+".txtar"))
	require.NoError(t, err)
	var c Change
	for path, content := range archive(string(data)) {
		if path != "TEST" {
			c = append(c, NewFile(path, content))
		}
	}
	return c
}

// where is a finding as a reviewer reads it: path:line what.
func where(f Finding) string { return fmt.Sprintf("%s:%d %s", f.Path, f.Line, f.Found) }

func wheres(s Scan) []string {
	var out []string
	for _, f := range s.Findings {
		out = append(out, where(f))
	}
	return out
}

// The tricks of issue 32 (and the older ones of the hostile suite) each leave a finding
// that names the file and the line a reviewer opens first, and the strongest comes first.
func TestHostileChangesAreFoundByFileAndLine(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		first   string   // the first place to look
		also    []string // further findings, in any order
	}{
		{"go_stack_forge", `x.go:17 a test's name looked for`, []string{`x.go:18 the runner's report words (\x16)`, "x.go:19 syscall.Exit", "x.go:13 runtime.CallersFrames"}},
		{"go_reexec_relay", "relay.go:17 the runner's report words (--- FAIL)", []string{"relay.go:20 syscall.Exit", "relay.go:14 os.Args[0]"}},
		{"go_patch_fail", `patch.go:4 "debug/elf"`, []string{"patch.go:30 syscall.Mprotect", "patch.go:33 a write through unsafe.Pointer"}},
		{"go_vendor_testify", "vendor/:0 a vendor/ directory", nil},
		{"exit0_in_init", "cheat.go:5 os.Exit in init", nil},
		{"argv_skip_all", "cheat.go:5 a write to os.Args", nil},
		{"testmain_hijack", "cheat.go:9 testing.Main", []string{"cheat.go:11 os.Exit in init", `cheat.go:5 an import of "testing" outside a test file`}},
		{"py_atexit_strip", "calc.py:1 atexit", []string{"calc.py:9 JUnit report words (--junit)", "calc.py:17 os._exit"}},
		{"py_runner_shadow", "pytest.py:0 a module named like the test runner", nil},
		{"py_plugin_autoload", "forge-1.0.dist-info/entry_points.txt:0 a plugin's entry points", []string{"forgeplugin.py:1 pytest in code that is not a test"}},
		{"py_patch_runtest", "calc.py:1 _pytest", nil},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			s := hostile(t, tc.fixture).Scan()
			got := wheres(s)
			require.NotEmpty(t, got)
			assert.Equal(t, tc.first, got[0], "all: %q", got)
			assert.Empty(t, s.Findings[0].Honest, "the first place to look is one honest code rarely has")
			for _, want := range tc.also {
				assert.Contains(t, got, want)
			}
			for _, f := range s.Findings {
				assert.NotEmpty(t, f.Why, where(f))
			}
		})
	}
}

// Honest changes say nothing, or only what a reviewer reads as honest: a logger reading
// its caller is a finding that says so.
func TestHonestChangesFindNothingOrSayWhy(t *testing.T) {
	plain := Change{
		NewFile("go.mod", "module example.com/x\n\ngo 1.22\n"),
		NewFile("x.go", "package x\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"),
		NewFile("cmd/x/main.go", "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() {\n\tif len(os.Args) < 2 {\n\t\tfmt.Fprintln(os.Stderr, \"usage: x N\")\n\t\tos.Exit(2)\n\t}\n}\n"),
		NewFile("x_test.go", "package x\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n"),
		NewFile("calc.py", "import logging\n\nlog = logging.getLogger(__name__)\n\n\ndef add(a, b):\n    log.debug('add %s %s', a, b)\n    return a + b\n"),
		NewFile("tests/test_calc.py", "import pytest\nfrom calc import add\n\n\n@pytest.mark.parametrize('a', [1, 2])\ndef test_add(a):\n    assert add(a, 0) == a\n"),
	}
	assert.Empty(t, plain.Scan().Findings)

	testify := Change{
		NewFile("go.mod", "module example.com/x\n\ngo 1.22\n\nrequire github.com/stretchr/testify v1.9.0\n"),
		NewFile("go.sum", "github.com/stretchr/testify v1.9.0 h1:HtqpIVDClZ4nwg75+f6Lvsy/wHu+3BoSGCbBAcpTsTg=\n"),
		NewFile("x.go", "package x\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"),
		NewFile("x_test.go", "package x\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/assert\"\n)\n\nfunc TestAdd(t *testing.T) { assert.Equal(t, 5, Add(2, 3)) }\n"),
	}
	assert.Empty(t, testify.Scan().Findings)

	logger := Change{NewFile("logger.go", `package x

import (
	"fmt"
	"log/slog"
	"runtime"
)

// Debug logs msg with the file and line of its caller.
func Debug(msg string) {
	_, file, line, _ := runtime.Caller(1)
	slog.Debug(msg, "at", fmt.Sprintf("%s:%d", file, line))
}
`)}
	s := logger.Scan()
	require.Len(t, s.Findings, 1, "%q", wheres(s))
	f := s.Findings[0]
	assert.Equal(t, "logger.go:11 runtime.Caller", where(f))
	assert.Contains(t, f.Honest, "this file also logs")
	assert.Equal(t, "_, file, line, _ := runtime.Caller(1)", f.Text)
}

// A changed file is scanned on the lines the change adds, numbered as in the new file;
// what it keeps or deletes is not the coder's doing.
func TestADiffIsScannedOnItsAddedLines(t *testing.T) {
	diff := `diff --git a/calc.py b/calc.py
index 1111111..2222222 100644
--- a/calc.py
+++ b/calc.py
@@ -1,5 +1,7 @@
 import os
-import atexit
+import sys
 
 def add(a, b):
-    return a + b
+    sys.settrace(None)
+    os._exit(0)
+    return a - b
diff --git a/old.py b/old.py
deleted file mode 100644
index 3333333..0000000
--- a/old.py
+++ /dev/null
@@ -1 +0,0 @@
-import atexit
diff --git a/sitecustomize.py b/sitecustomize.py
new file mode 100644
index 0000000..4444444
--- /dev/null
+++ b/sitecustomize.py
@@ -0,0 +1 @@
+print("hello")
`
	c, err := ParseDiff(diff)
	require.NoError(t, err)
	require.Len(t, c, 2, "the deleted file adds nothing")
	assert.Equal(t, []Line{{2, "import sys"}, {5, "    sys.settrace(None)"}, {6, "    os._exit(0)"}, {7, "    return a - b"}}, c[0].Added)
	got := wheres(c.Scan())
	assert.ElementsMatch(t, []string{"calc.py:5 sys.settrace", "calc.py:6 os._exit", "sitecustomize.py:0 a site hook"}, got,
		"the deleted atexit lines are no finding")

	plainDiff := "--- a/x/conftest.py\t2026-01-01\n+++ b/x/conftest.py\t2026-01-01\n@@ -0,0 +1 @@\n+import builtins\n"
	c, err = ParseDiff(plainDiff)
	require.NoError(t, err)
	require.Len(t, c, 1)
	assert.Equal(t, "x/conftest.py", c[0].Path, "diff -u's first component is stripped, as git apply does")
	assert.ElementsMatch(t, []string{"x/conftest.py:1 builtins", "x/conftest.py:0 a conftest.py"}, wheres(c.Scan()))

	_, err = ParseDiff("@@ -1 +1 @@\n+x\n")
	assert.Error(t, err, "a hunk without a file")
}

// os.Exit is a finding only in init: a program's main ends with it honestly.
func TestOsExitCountsOnlyInInit(t *testing.T) {
	c := Change{NewFile("a.go", "package a\n\nimport \"os\"\n\nfunc init() {\n\tif os.Getenv(\"X\") == \"\" {\n\t\tos.Exit(0)\n\t}\n}\n\nfunc Quit() { os.Exit(1) }\n"),
		NewFile("b.go", "package a\n\nimport \"os\"\n\nfunc init() { os.Exit(0) }\n\nfunc Quit2() { os.Exit(1) }\n")}
	assert.Equal(t, []string{"a.go:7 os.Exit in init", "b.go:5 os.Exit in init"}, wheres(c.Scan()))

	// Lines the change did not add may close init: the context is unknown, so no finding.
	gap := Change{{Path: "c.go", Added: []Line{{1, "func init() {"}, {9, "\tos.Exit(0)"}}}}
	assert.Empty(t, gap.Scan().Findings)
}

// Whatever a coder adds, a scan stays short: a vendored tree is one finding, a pattern
// found on many lines of a file is one that counts the rest, and past the cap a count.
func TestAScanStaysShort(t *testing.T) {
	var c Change
	for i := range 40 {
		c = append(c, NewFile(fmt.Sprintf("vendor/m/f%d.go", i), "package m\n"))
	}
	c = append(c, NewFile("hooks.py", strings.Repeat("import atexit\n", 5)))
	s := c.Scan()
	assert.Equal(t, []string{"hooks.py:1 atexit", "vendor/:0 a vendor/ directory"}, wheres(s))
	assert.Equal(t, 39, s.Findings[1].Repeats)
	assert.Equal(t, 4, s.Findings[0].Repeats)

	var many Change
	for i := range maxFindings + 5 {
		many = append(many, NewFile(fmt.Sprintf("p%02d/sitecustomize.py", i), ""))
	}
	s = many.Scan()
	assert.Len(t, s.Findings, maxFindings)
	assert.Equal(t, 5, s.More)

	long := Change{NewFile("a.py", "import atexit  # "+strings.Repeat("x", 500))}
	assert.Len(t, []rune(long.Scan().Findings[0].Text), maxText)

	assert.NotNil(t, Change(nil).Scan().Findings, "scanned and clean is an empty list, not none")
}

// Comments mention these names honestly; only //go:linkname acts from one.
func TestCommentsAreNoFindingButLinkname(t *testing.T) {
	c := Change{NewFile("a.go", "package a\n\n// runtime.Callers would be wrong here; os.Args = nil too.\n//go:linkname fail testing.(*common).Fail\nfunc fail()\n"),
		NewFile("b.py", "# atexit is not used\nx = 1\n")}
	assert.Equal(t, []string{"a.go:4 //go:linkname"}, wheres(c.Scan()))
}

// The files the judge leaves out of a run reach no runner: the session scans without them.
func TestWithoutLeavesOutTheFilesNamed(t *testing.T) {
	c := Change{NewFile("conftest.py", "import atexit\n"), NewFile("calc.py", "import atexit\n")}
	got := c.Without(func(path string) bool { return path == "conftest.py" }).Scan()
	assert.Equal(t, []string{"calc.py:1 atexit"}, wheres(got))
}
