package eval_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/eval"
)

func TestLoadBundledBenchmark(t *testing.T) {
	b, err := eval.Load(bench)
	require.NoError(t, err)
	require.Len(t, b.Tasks, 1)
	task := b.Tasks[0]
	assert.Equal(t, "clamp", task.Name)
	assert.Equal(t, []string{"dixit", "critics", "tdg", "blind", "single"}, task.Protocols())
	assert.Len(t, task.Hidden, 3)
	hidden, err := eval.HiddenTests(task)
	require.NoError(t, err)
	assert.Equal(t, "hidden_above", hidden[0].ID)
}

// Every layout error names the path at fault.
func TestLayoutErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(t *testing.T, dir string)
		want string // after the benchmark's directory
	}{
		{"no task", func(t *testing.T, dir string) { rm(t, dir, "clamp") }, "no task directory"},
		{"stray file", func(t *testing.T, dir string) { write(t, dir, "notes.txt", "x") }, "notes.txt: expected a directory per task"},
		{"bad task name", func(t *testing.T, dir string) { mv(t, dir, "clamp", "Clamp") }, "Clamp: task names are lower-case"},
		{"no hidden tests", func(t *testing.T, dir string) { rm(t, dir, "clamp/hidden") }, "clamp/hidden: the hidden tests' directory"},
		{"empty hidden", func(t *testing.T, dir string) {
			rm(t, dir, "clamp/hidden")
			require.NoError(t, os.Mkdir(filepath.Join(dir, "clamp/hidden"), 0o755))
		}, "clamp/hidden: no hidden test"},
		{"hidden subdirectory", func(t *testing.T, dir string) {
			require.NoError(t, os.Mkdir(filepath.Join(dir, "clamp/hidden/more"), 0o755))
		}, "clamp/hidden/more: not a regular file"},
		{"empty hidden test", func(t *testing.T, dir string) { write(t, dir, "clamp/hidden/x_test.go", "") }, "clamp/hidden/x_test.go: must hold 1 byte"},
		{"same hidden id", func(t *testing.T, dir string) { write(t, dir, "clamp/hidden/above.go", "package clamp") }, `clamp/hidden/above_test.go: same test id "hidden_above"`},
		{"no reference", func(t *testing.T, dir string) { rm(t, dir, "clamp/reference") }, "clamp/reference: "},
		{"no spec", func(t *testing.T, dir string) { rm(t, dir, "clamp/spec.md") }, "clamp/spec.md: "},
		{"unknown entry", func(t *testing.T, dir string) { write(t, dir, "clamp/solution.go", "x") }, "clamp/solution.go: unexpected entry"},
		{"unknown protocol", func(t *testing.T, dir string) { mv(t, dir, "clamp/protocols/single", "clamp/protocols/solo") }, "clamp/protocols/solo: expected a directory named after a protocol"},
		{"protocol twice", func(t *testing.T, dir string) {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "clamp/protocols/dixit"), 0o755))
		}, "clamp/protocols/dixit: the task's own dixit.yml"},
		{"dixit.yml names another protocol", func(t *testing.T, dir string) {
			mv(t, dir, "clamp/protocols/blind", "clamp/protocols/x")
			mv(t, dir, "clamp/protocols/single", "clamp/protocols/blind")
		}, "clamp/protocols/blind: dixit.yml says protocol: single, but the directory is for blind"},
		{"stray entry in an agent set", func(t *testing.T, dir string) { write(t, dir, "clamp/protocols/tdg/spec.md", "x") }, "clamp/protocols/tdg/spec.md: unexpected entry"},
		{"agents without dixit.yml", func(t *testing.T, dir string) { rm(t, dir, "clamp/dixit.yml") }, "clamp/coders: agents without a dixit.yml"},
		{"bad dixit.yml", func(t *testing.T, dir string) {
			write(t, dir, "clamp/protocols/tdg/dixit.yml", "protocol: tdg\nnope: 1\n")
		}, "clamp/protocols/tdg: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyBench(t)
			tc.edit(t, dir)
			_, err := eval.Load(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "benchmark "+dir+": ")
			assert.Contains(t, err.Error(), filepath.FromSlash(tc.want))
		})
	}
}

// A population that does not hold together is refused before anything runs, naming
// the task, the protocol and where its agents are.
func TestPrepareChecksThePopulation(t *testing.T) {
	dir := copyBench(t)
	write(t, dir, "clamp/protocols/single/dixit.yml", "protocol: single\ncoders: 2\ntesters: 0\n")
	b, err := eval.Load(dir)
	require.NoError(t, err)
	_, err = eval.Prepare(b.Tasks[0], "single", filepath.Join(t.TempDir(), "pop"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "task clamp, protocol single (agents from "+filepath.Join(dir, "clamp/protocols/single")+")")
	assert.Contains(t, err.Error(), "dixit.yml says coders: 2, but coders/ holds 1")
}

// The run id follows the population's content and the hidden tests.
func TestPrepareRunIDFollowsContent(t *testing.T) {
	dir := copyBench(t)
	id := func() string {
		b, err := eval.Load(dir)
		require.NoError(t, err)
		id, err := eval.Prepare(b.Tasks[0], "single", filepath.Join(t.TempDir(), "pop"))
		require.NoError(t, err)
		return id
	}
	first := id()
	assert.Regexp(t, `^eval-clamp-single-[0-9a-f]{8}$`, first)
	assert.Equal(t, first, id())
	write(t, dir, "clamp/hidden/more_test.go", "package clamp\n")
	assert.NotEqual(t, first, id())
}

func rm(t *testing.T, dir, rel string) {
	require.NoError(t, os.RemoveAll(filepath.Join(dir, rel)))
}

func mv(t *testing.T, dir, from, to string) {
	require.NoError(t, os.Rename(filepath.Join(dir, from), filepath.Join(dir, to)))
}

func write(t *testing.T, dir, rel, content string) {
	require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644))
}
