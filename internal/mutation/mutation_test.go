package mutation_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/mutation"
)

const clamp = `package clamp

// Clamp limits x to [lo, hi].
func Clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}
`

func clampFiles() []gitstate.File {
	return []gitstate.File{
		{Path: "go.mod", Content: []byte("module example.com/clamp\n\ngo 1.22\n")},
		{Path: "clamp.go", Content: []byte(clamp)},
		{Path: "clamp_test.go", Content: []byte("package clamp\n\nfunc helper() int { return 1 + 2 }\n")},
	}
}

// gremlins' default operators on Clamp: each comparison gets its boundary and its
// negation; the coder's test file is not mutated.
func TestGenerateClamp(t *testing.T) {
	contract, _ := languages.Preset("go")
	mutants, err := mutation.Generate(clampFiles(), contract.Private)
	require.NoError(t, err)
	var ids []string
	for _, m := range mutants {
		ids = append(ids, m.ID+" "+m.From+"→"+m.To)
	}
	assert.Equal(t, []string{
		"clamp.go:5:7:CONDITIONALS_BOUNDARY <→<=",
		"clamp.go:5:7:CONDITIONALS_NEGATION <→>=",
		"clamp.go:8:7:CONDITIONALS_BOUNDARY >→>=",
		"clamp.go:8:7:CONDITIONALS_NEGATION >→<=",
	}, ids)
}

// A mutant that would not compile is not a fault: a + joining strings stays, a + adding
// numbers becomes -, and a unary minus becomes +.
func TestGenerateSkipsMutantsThatDoNotTypeCheck(t *testing.T) {
	src := "package p\n\nfunc F(s string, n int) (string, int) { return s + \"!\", -n + 1 }\n"
	mutants, err := mutation.Generate([]gitstate.File{{Path: "p.go", Content: []byte(src)}}, nil)
	require.NoError(t, err)
	var ops []string
	for _, m := range mutants {
		ops = append(ops, m.Operator+" "+m.From+"→"+m.To)
	}
	assert.Equal(t, []string{"INVERT_NEGATIVES -→+", "ARITHMETIC_BASE +→-"}, ops)
}

// The real judge on Clamp's mutants: the hidden tests kill the two negations; the two
// boundary mutants are equivalent (x <= lo returns lo == x), so no test can kill them.
// A suite that only checks a value below the range kills one negation; a wrong test,
// failing on Clamp itself, kills nothing.
func TestRunClampWithTheJudge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Go in the judge")
	}
	contract, _ := languages.Preset("go")
	contract.Timeout = 0
	local, err := ci.NewLocal(ci.LocalOptions{Contract: contract, WorkDir: t.TempDir(),
		CacheDir: filepath.Join(os.TempDir(), "dixit-test-gocache"), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	defer local.Close()
	hidden := readTests(t, "../../examples/bench/clamp/hidden")
	below := ci.Test{ID: "below", Content: []byte("package clamp\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {\n\tif Clamp(-3, 0, 10) != 0 {\n\t\tt.Fatal(0)\n\t}\n}\n")}
	wrong := ci.Test{ID: "wrong", Content: []byte("package clamp\n\nimport \"testing\"\n\nfunc TestW(t *testing.T) {\n\tif Clamp(10, 0, 10) != 9 {\n\t\tt.Fatal(9)\n\t}\n}\n")}
	rep, err := mutation.Run(context.Background(), mutation.Options{Judge: local, Reruns: 1, Private: contract.Private}, clampFiles(),
		[]mutation.Suite{{Name: "hidden", Tests: hidden}, {Name: "weak", Tests: []ci.Test{below}}, {Name: "wrong", Tests: []ci.Test{wrong}}})
	require.NoError(t, err)
	assert.Equal(t, 4, rep.Mutants)
	got := map[string][2]int{}
	for _, s := range rep.Suites {
		got[s.Suite] = [2]int{s.Used, s.Killed}
	}
	assert.Equal(t, map[string][2]int{"hidden": {3, 2}, "weak": {1, 1}, "wrong": {0, 0}}, got)
	assert.Equal(t, "the hidden suite kills 2 of 4 mutants of this patch (50 %)", rep.Suites[0].Sentence())
	assert.Equal(t, []string{"clamp.go:5:7:CONDITIONALS_BOUNDARY", "clamp.go:8:7:CONDITIONALS_BOUNDARY"}, rep.Suites[0].Survivors)
}

func readTests(t *testing.T, dir string) []ci.Test {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []ci.Test
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out = append(out, ci.Test{ID: e.Name()[:len(e.Name())-len("_test.go")], Content: data})
	}
	return out
}

// judgeNever fails the test if the judge is asked anything.
type judgeNever struct{ t *testing.T }

func (j judgeNever) Run(context.Context, int, []ci.Job) ([]ci.Verdict, error) {
	j.t.Error("the judge was asked to build, with no mutant to judge")
	return nil, nil
}

// Code with nothing to mutate (here Python) costs no build, and every suite scores n/a.
func TestNoMutantsNoBuilds(t *testing.T) {
	files := []gitstate.File{{Path: "calc.py", Content: []byte("def add(a, b):\n    return a + b\n")}}
	rep, err := mutation.Run(context.Background(), mutation.Options{Judge: judgeNever{t}}, files,
		[]mutation.Suite{{Name: "vetted", Tests: []ci.Test{{ID: "t", Content: []byte("x")}}}})
	require.NoError(t, err)
	assert.Zero(t, rep.Mutants)
	_, ok := rep.Suites[0].Rate()
	assert.False(t, ok)
	assert.Contains(t, rep.Suites[0].Sentence(), "no mutant to kill")
}
