package ci

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTamperedConftestKept runs coder_py_conftest_skip with a contract that keeps a
// coder's conftest.py, as a repository whose tests need their conftest may: the conftest
// skips every test, the judge's own checks with them, and the verdict is tampered where an
// exit status would have said pass. An honest conftest beside it changes nothing.
func TestTamperedConftestKept(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sandboxed pytest jobs")
	}
	contract := cheatContract(t, "python")
	contract.Exclude = slices.DeleteFunc(slices.Clone(contract.Exclude), func(p string) bool { return p == "conftest.py" })
	var cheat coderCheat
	for _, c := range loadCoderCheats(t) {
		if c.name == "py_conftest_skip" {
			cheat = c
		}
	}
	require.NotEmpty(t, cheat.files, "testdata/hostile/coder_py_conftest_skip.txtar")
	tree, test := coderBase("python")
	skipping := tree.With()
	for name, content := range cheat.files {
		skipping[name] = content
	}
	honest := tree.With("conftest.py", "import pytest\n\n\n@pytest.fixture\ndef answer():\n    return 42\n")
	jobs := []Job{
		{Coder: "honest", Tree: honest, Test: Test{ID: "honest", Content: []byte(test)}},
		{Coder: "skipper", Tree: skipping, Test: Test{ID: "skipper", Content: cheat.test}},
	}
	vs := runCheats(t, contract, SandboxAuto, 2, jobs)
	assert.Equal(t, Pass, vs[0].Outcome, "an honest conftest: %s", vs[0].Output)
	assert.Equal(t, Tampered, vs[1].Outcome, vs[1].Output)
	assert.Contains(t, vs[1].Output, "was skipped: something in the process decides which tests run")
	before := runCheats(t, exitStatusOnly(contract), SandboxAuto, 2, jobs[1:])
	assert.Equal(t, Pass, before[0].Outcome, "the cheat fools an exit status: %s", before[0].Output)
}

// TestAHostileTestTampersEveryCoder is the case the protocol must blame on the test: a
// test that ends its own process with exit status 0 stops the judge's checks too, on
// every coder alike, so every verdict is tampered (internal/orchestrate then rejects the
// test instead of counting the coders out).
func TestAHostileTestTampersEveryCoder(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs sandboxed Go jobs")
	}
	l := newGoJudge(t, hostileTimeout, nil)
	test := goTest("syscall", "func TestAdd(t *testing.T) {\n\tif Add(2, 3) == 5 {\n\t\tsyscall.Exit(0)\n\t}\n\tt.Fatal(\"Add(2, 3) != 5\")\n}\n")
	other := goModule().With("x.go", "package x\n\n// Add adds, in another way.\nfunc Add(a, b int) int { return b + a }\n")
	jobs := []Job{{Coder: "a", Tree: goModule(), Test: Test{ID: "t1", Content: test}}, {Coder: "b", Tree: other, Test: Test{ID: "t1", Content: test}}}
	vs, err := l.Run(t.Context(), 2, jobs)
	require.NoError(t, err)
	for i, v := range vs {
		assert.Equal(t, Tampered, v.Outcome, "coder %s: %s", jobs[i].Coder, v.Output)
	}
}
