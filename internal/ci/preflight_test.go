package ci

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/ci/languages"
)

func TestOwnTestsKeepTheTreesTestsAndRunThemAll(t *testing.T) {
	for _, name := range []string{"go", "python", "node"} {
		c, _ := languages.Preset(name)
		own, ok := c.OwnTests()
		assert.True(t, ok, name)
		assert.Empty(t, own.Exclude, name)
		assert.NotContains(t, own.Run, "{id}", "%s: the runner collects every test", name)
	}
	custom := Contract{Path: "t_{id}.py", Run: "python3 t_{id}.py --verbose"}
	_, ok := custom.OwnTests()
	assert.False(t, ok, "a run line that does not end with the test cannot be made to run them all")
}

func TestEnvironmentHintNamesWhatToInstall(t *testing.T) {
	goC, _ := languages.Preset("go")
	pyC, _ := languages.Preset("python")
	nodeC, _ := languages.Preset("node")
	for _, tc := range []struct {
		c    Contract
		v    Verdict
		want string
	}{
		{goC, Verdict{Outcome: BuildFailed, Output: "go: downloading github.com/google/go-cmp v0.6.0\ndep.go:3:8: module lookup disabled by GOPROXY=off"}, "github.com/google/go-cmp"},
		{goC, Verdict{Outcome: BuildFailed, Output: "x.go:3:8: no required module provides package golang.org/x/mod/semver; to add it:"}, "golang.org/x/mod/semver"},
		{pyC, Verdict{Outcome: Fail, Output: "/usr/bin/python3: No module named pytest"}, "pytest is not installed"},
		{pyC, Verdict{Outcome: Fail, Output: "E   ModuleNotFoundError: No module named 'requests'"}, "requests"},
		{nodeC, Verdict{Outcome: Fail, Output: "Error: Cannot find module 'lodash'"}, "lodash"},
		{goC, Verdict{Outcome: Timeout}, "no network"},
		{nodeC, Verdict{Outcome: PrepareFailed, Output: "dixit: 1: eval: pnpm: not found\n\n[dixit] pnpm-lock.yaml needs pnpm, which the judge does not have: install it\n"},
			"pnpm-lock.yaml needs pnpm, which the judge does not have: install it"},
		{nodeC, Verdict{Outcome: PrepareFailed, Output: "npm ERR! something"}, "(test.prepare) or find"},
	} {
		assert.Contains(t, EnvironmentHint(tc.c, tc.v), tc.want, tc.v.Output)
	}
	assert.NotContains(t, EnvironmentHint(nodeC, Verdict{Outcome: PrepareFailed}), "pnpm install", "a preset's prepare script is not quoted back")
}

// A hint is read at a glance at the end of a run: short, and it never quotes the prepare
// script back (dixit.yml has it; the judge's output, in the report, says what failed).
func TestEnvironmentHintIsShort(t *testing.T) {
	goC, _ := languages.Preset("go")
	nodeC, _ := languages.Preset("node")
	nodeC.Prepare = strings.Repeat("corepack enable && pnpm install --frozen-lockfile --prefer-offline; ", 8)
	for _, tc := range []struct {
		c Contract
		v Verdict
	}{
		{goC, Verdict{Outcome: BuildFailed, Output: "go: downloading github.com/google/go-cmp v0.6.0\n"}},
		{Contract{Run: "go test"}, Verdict{Outcome: BuildFailed, Output: "x.go:3:8: no required module provides package golang.org/x/mod/semver; to add it:"}},
		{nodeC, Verdict{Outcome: PrepareFailed, Output: "sh: 1: pnpm: not found"}},
		{nodeC, Verdict{Outcome: Fail, Output: "Error: Cannot find module 'lodash'"}},
		{goC, Verdict{Outcome: Timeout}},
		{goC, Verdict{Outcome: Fail}},
	} {
		hint := EnvironmentHint(tc.c, tc.v)
		assert.LessOrEqual(t, utf8.RuneCountInString(hint), 220, hint)
		assert.NotContains(t, hint, "corepack", "the prepare script is not quoted back")
	}
}

func TestFailingTestsNamesThemOnce(t *testing.T) {
	assert.Equal(t, []string{"TestA", "TestB/sub"}, FailingTests("=== RUN TestA\n--- FAIL: TestA (0.00s)\n    --- FAIL: TestB/sub (0.00s)\n--- FAIL: TestA (0.00s)\n"))
	assert.Equal(t, []string{"test_base.py::test_something"}, FailingTests("F.\n=== short test summary info ===\nFAILED test_base.py::test_something - AssertionError\n"))
	assert.Equal(t, []string{"adds"}, FailingTests("✔ subtracts (0.5ms)\n✖ adds (1.2ms)\n"))
}
