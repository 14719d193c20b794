package classify

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/gitstate"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}
func TestBatchRoundTripAndContracts(t *testing.T) {
	tests := demoTests(t)
	contract := []byte(`{"preset": "go", "timeout": "30s"}`)
	data, err := NewBatch("semver-1", "b-1", 20, contract, tests)
	require.NoError(t, err)
	name := filepath.Join(t.TempDir(), "batch.json")
	require.NoError(t, os.WriteFile(name, data, 0o644))
	b, got, err := ReadBatch(name)
	require.NoError(t, err)
	assert.Equal(t, tests, got)
	assert.Equal(t, "b-1", b.Batch)
	assert.Equal(t, 20, b.Reruns)

	c, err := ContractFromJSON(b.Contract)
	require.NoError(t, err)
	want, _ := languages.Preset("go")
	want.Timeout = c.Timeout
	assert.Equal(t, want, c)
	assert.Equal(t, "30s", c.Timeout.String())

	yamlForm, err := ContractFromJSON([]byte("preset: go\ntimeout: 30s\n"))
	require.NoError(t, err)
	assert.Equal(t, c, yamlForm)

	fromConfig, reruns, err := ContractFromConfig(filepath.Join("..", "..", "..", "examples", "semver", "dixit.yml"))
	require.NoError(t, err)
	assert.Equal(t, c, fromConfig)
	assert.Equal(t, 20, reruns)

	for _, bad := range []struct{ section, want string }{
		{`{"preset": "cobol"}`, "unknown preset"},
		{`{"preset": "go", "timeuot": "3s"}`, `unknown key "timeuot" in test; did you mean "timeout"?`},
		{`{"path": "../x_{id}_test.go", "run": "true"}`, "test.path"},
		{``, "empty"},
	} {
		_, err := ContractFromJSON([]byte(bad.section))
		assert.ErrorContains(t, err, bad.want, bad.section)
	}

	_, err = NewBatch("r", "b", 1, nil, []ci.Test{{ID: "x", Content: []byte{0xff}}})
	assert.ErrorContains(t, err, "not UTF-8")
	_, err = NewBatch("r", "b", 1, nil, []ci.Test{{ID: "a", Content: nil}, {ID: "a"}})
	assert.ErrorContains(t, err, "appears twice")
	_, err = NewBatch("r", "b", 1, nil, []ci.Test{{ID: "../x"}})
	assert.ErrorContains(t, err, "test id")

	for _, bad := range []struct{ doc, want string }{
		{`{"schema": "dixit.batch/v2", "batch": "b", "tests": []}`, `schema "dixit.batch/v2"`},
		{`{"schema": "dixit.batch/v1", "batch": "b", "tests": [], "extra": 1}`, `unknown field "extra"`},
		{`{"schema": "dixit.batch/v1", "batch": "b c", "tests": []}`, `batch "b c"`},
		{`{"schema": "dixit.batch/v1", "batch": "b", "tests": []}`, "0 tests"},
		{`{"schema": "dixit.batch/v1", "batch": "b", "tests": [{"id": "a", "content": ""}]} {}`, "trailing data"},
	} {
		require.NoError(t, os.WriteFile(name, []byte(bad.doc), 0o644))
		_, _, err := ReadBatch(name)
		assert.ErrorContains(t, err, bad.want, bad.doc)
	}
}

func TestDirTestsNamesTestsByFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"b.go": "b", "a_test.go": "a", "sub/ignored.go": "x"})
	tests, err := DirTests(dir)
	require.NoError(t, err)
	assert.Equal(t, []ci.Test{{ID: "a_test", Content: []byte("a")}, {ID: "b", Content: []byte("b")}}, tests)

	writeFiles(t, dir, map[string]string{"b.py": "again"})
	_, err = DirTests(dir)
	assert.ErrorContains(t, err, `test id "b" appears twice`)
}

// A judge that cannot start gives results.json with an error and no verdicts, which a
// backend reads as ErrJudgeFailed.
func TestClassifyReportsAJudgeFailure(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"x.go": "package x\n"})
	tree, err := gitstate.ReadDir(dir)
	require.NoError(t, err)
	c, _ := languages.Preset("go")
	tests := []ci.Test{{ID: "t1", Content: []byte("package x\n")}}
	res, err := Classify(context.Background(), Options{Batch: "b", Coder: "amber", Tree: tree, Tests: tests,
		Reruns: 3, Contract: c, Sandbox: "nonsense"})
	require.ErrorContains(t, err, `unknown sandbox "nonsense"`)
	data, err := res.Marshal()
	require.NoError(t, err)
	parsed, err := ParseResults(data)
	require.NoError(t, err)
	err = parsed.Validate(Expect{Batch: "b", Coder: "amber", Tree: tree.Hash(), Reruns: 3, Tests: tests})
	require.ErrorIs(t, err, ErrJudgeFailed)
	assert.Contains(t, err.Error(), "unknown sandbox")

	_, err = Classify(context.Background(), Options{Batch: "b", Coder: "amber", Tree: tree, Tests: tests, Reruns: 0, Contract: c})
	assert.ErrorContains(t, err, "reruns 0")
}

// With a verdict cache, a runner kept between workflow runs judges a job once: the
// second classification of the same tree and test answers from the verdict the first
// one wrote, and gives the same results.
func TestClassifyAnswersFromAVerdictCache(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a Go test in the sandbox")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"go.mod": "module x\n\ngo 1.21\n", "x.go": "package x\n\nfunc One() int { return 1 }\n"})
	tree, err := gitstate.ReadDir(dir)
	require.NoError(t, err)
	c, _ := languages.Preset("go")
	tests := []ci.Test{{ID: "t1", Content: []byte("package x\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {\n\tif One() != 1 {\n\t\tt.Fatal()\n\t}\n}\n")}}
	verdicts := t.TempDir()
	classifyOnce := func() Results {
		res, err := Classify(context.Background(), Options{Batch: "b", Coder: "amber", Tree: tree, Tests: tests,
			Reruns: 2, Contract: c, WorkDir: t.TempDir(), Verdicts: verdicts})
		require.NoError(t, err)
		require.Len(t, res.Tests, 1)
		return res
	}
	first := classifyOnce()
	assert.Equal(t, ci.Pass, first.Tests[0].Outcome)
	written, err := filepath.Glob(filepath.Join(verdicts, "*.json"))
	require.NoError(t, err)
	require.Len(t, written, 1, "the verdict is kept")
	before, err := os.Stat(written[0])
	require.NoError(t, err)

	second := classifyOnce()
	assert.Equal(t, first.Tests, second.Tests)
	after, err := os.Stat(written[0])
	require.NoError(t, err)
	assert.Equal(t, before.ModTime(), after.ModTime(), "answered from the cache, not judged again")
}
