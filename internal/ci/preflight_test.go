package ci

import (
	"testing"

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

func TestFailingTestsNamesThemOnce(t *testing.T) {
	assert.Equal(t, []string{"TestA", "TestB/sub"}, FailingTests("=== RUN TestA\n--- FAIL: TestA (0.00s)\n    --- FAIL: TestB/sub (0.00s)\n--- FAIL: TestA (0.00s)\n"))
	assert.Equal(t, []string{"test_base.py::test_something"}, FailingTests("F.\n=== short test summary info ===\nFAILED test_base.py::test_something - AssertionError\n"))
	assert.Equal(t, []string{"adds"}, FailingTests("✔ subtracts (0.5ms)\n✖ adds (1.2ms)\n"))
}
