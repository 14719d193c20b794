package swebench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goodLine is a valid instances.jsonl line; bad lines are made from it.
func goodLine(id string) map[string]any {
	return map[string]any{
		"instance_id": id, "repo": "demo/calc", "base_commit": "0123", "version": "1.0",
		"gold_patch": "diff --git a/x b/x\n", "gold_test_patch": "diff --git a/y b/y\n",
		"fail_to_pass": []string{"test_add"}, "pass_to_pass": []string{"test_mul", "TestMul::test_zero", "test_param[1]"},
		"test_files": []string{"calc/tests/test_calc.py"}, "python": "3.11",
		"base_ref": "refs/bases/" + id, "base_tree": strings.Repeat("a", 40),
	}
}

func writeLines(t *testing.T, lines ...any) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for _, l := range lines {
		if s, ok := l.(string); ok {
			b.WriteString(s + "\n")
			continue
		}
		data, err := json.Marshal(l)
		require.NoError(t, err)
		b.Write(append(data, '\n'))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "instances.jsonl"), []byte(b.String()), 0o644))
	return dir
}

func TestLoadCorpusReadsGoodLines(t *testing.T) {
	dir := writeLines(t, goodLine("demo__calc-1"), "", goodLine("demo__calc-2"))
	c, err := LoadCorpus(dir)
	require.NoError(t, err)
	require.Len(t, c.Instances, 2)
	assert.Equal(t, "demo__calc-2", c.Instances[1].ID)
	c, err = LoadCorpus(dir, "demo__calc-2")
	require.NoError(t, err)
	require.Len(t, c.Instances, 1)
	_, err = LoadCorpus(dir, "demo__calc-3")
	assert.ErrorContains(t, err, `no instance "demo__calc-3"`)
}

// Every hostile line is refused with an error naming the file and the line.
func TestLoadCorpusRefusesHostileLines(t *testing.T) {
	with := func(k string, v any) map[string]any {
		l := goodLine("demo__calc-1")
		l[k] = v
		return l
	}
	cases := []struct {
		name string
		line any
		want string
	}{
		{"not json", `{"instance_id": "demo__calc-1",`, "not a JSON object"},
		{"two values", `{} {}`, "more than one JSON value"},
		{"id escaping", with("instance_id", "../../etc__x-1"), "is not an id"},
		{"id with a slash", with("instance_id", "demo__calc/x-1"), "is not an id"},
		{"id empty", with("instance_id", ""), "is not an id"},
		{"wrong base ref", with("base_ref", "refs/bases/other"), "base_ref"},
		{"tree id", with("base_tree", "HEAD"), "base_tree"},
		{"version", with("version", "1.2; rm -rf /"), "version"},
		{"test file escaping", with("test_files", []string{"../outside/test_x.py"}), "is not a clean relative .py path"},
		{"test file absolute", with("test_files", []string{"/etc/test_x.py"}), "is not a clean relative .py path"},
		{"test file in .git", with("test_files", []string{".git/hooks/test_x.py"}), "is not a clean relative .py path"},
		{"test name with a space", with("fail_to_pass", []string{"test_x; rm -rf /"}), "is not a test function's name"},
		{"test name with a newline", with("pass_to_pass", []string{"test_x\n-p evil"}), "is not a test function's name"},
		{"test listed twice", with("pass_to_pass", []string{"test_add"}), "listed twice"},
		{"no F2P", with("fail_to_pass", []string{}), "fail_to_pass is empty"},
		{"wrong type", with("fail_to_pass", "test_add"), "not a JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeLines(t, goodLine("demo__calc-0"), tc.line)
			_, err := LoadCorpus(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Join(dir, "instances.jsonl")+":2:")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	dir := writeLines(t, goodLine("demo__calc-1"), goodLine("demo__calc-1"))
	_, err := LoadCorpus(dir)
	assert.ErrorContains(t, err, "appears twice")
}

// writePatches writes coders/<id>/ and testers/<id>/ with the given indexes and diffs.
func writePatches(t *testing.T, dir, id string, coders map[string]any, coderDiffs map[string]string, testers map[string]any, testerDiffs map[string]string) {
	t.Helper()
	for _, part := range []struct {
		sub   string
		index any
		diffs map[string]string
	}{{"coders", coders, coderDiffs}, {"testers", map[string]any{"testers": testers, "dropped": []any{}}, testerDiffs}} {
		d := filepath.Join(dir, part.sub, id)
		require.NoError(t, os.MkdirAll(d, 0o755))
		data, err := json.Marshal(part.index)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(d, "sources.json"), data, 0o644))
		for name, diff := range part.diffs {
			require.NoError(t, os.WriteFile(filepath.Join(d, name+".diff"), []byte(diff), 0o644))
		}
	}
}

func TestLoadPatchesChecksEveryEntry(t *testing.T) {
	const diff = "diff --git a/calc/__init__.py b/calc/__init__.py\n--- a/calc/__init__.py\n+++ b/calc/__init__.py\n@@ -1 +1 @@\n-a\n+b\n"
	coder := func(extra map[string]any) map[string]any {
		m := map[string]any{"source": "agentless-gpt4o", "sha256": sha256Hex([]byte(diff)), "files": []string{"calc/__init__.py"}}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tester := func(extra map[string]any) map[string]any {
		m := map[string]any{"source": "itl-gpt4o-full", "applies_with": "git-apply", "touched_tests": []string{"test_x"}, "sha256": sha256Hex([]byte(diff)),
			"normalised": "appended the missing final newline"} // a note, as the corpus writes it
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	good := map[string]string{"a-1": diff}
	cases := []struct {
		name         string
		coders       map[string]any
		coderDiffs   map[string]string
		testers      map[string]any
		testerDiffs  map[string]string
		want, inFile string
	}{
		{"ok", map[string]any{"a-1": coder(nil)}, good, map[string]any{"a-1": tester(nil)}, good, "", ""},
		{"hash mismatch", map[string]any{"a-1": coder(map[string]any{"sha256": strings.Repeat("0", 64)})}, good, map[string]any{"a-1": tester(nil)}, good, "sources.json records", "coders/demo__calc-1/a-1.diff"},
		{"missing diff", map[string]any{"a-1": coder(nil), "a-2": coder(nil)}, good, map[string]any{"a-1": tester(nil)}, good, "no such file", "coders/demo__calc-1/a-2.diff"},
		{"diff without entry", map[string]any{"a-1": coder(nil)}, map[string]string{"a-1": diff, "a-9": diff}, map[string]any{"a-1": tester(nil)}, good, "no entry in sources.json: a-9", "coders/demo__calc-1"},
		{"name escaping", map[string]any{"../../x": coder(nil)}, good, map[string]any{"a-1": tester(nil)}, good, "is not a plain file name", "coders/demo__calc-1/sources.json"},
		{"duplicate of nothing", map[string]any{"a-1": coder(map[string]any{"duplicate_of": "a-7"})}, good, map[string]any{"a-1": tester(nil)}, good, "not another coder", "coders/demo__calc-1/sources.json"},
		{"label", map[string]any{"a-1": coder(map[string]any{"published_label": "maybe"})}, good, map[string]any{"a-1": tester(nil)}, good, "published_label", "coders/demo__calc-1/sources.json"},
		{"bad json", map[string]any{"a-1": "not an object"}, good, map[string]any{"a-1": tester(nil)}, good, "not the expected JSON", "coders/demo__calc-1/sources.json"},
		{"tester applies_with", map[string]any{"a-1": coder(nil)}, good, map[string]any{"a-1": tester(map[string]any{"applies_with": "sh -c"})}, good, "applies_with", "testers/demo__calc-1/sources.json"},
		{"tester touched name", map[string]any{"a-1": coder(nil)}, good, map[string]any{"a-1": tester(map[string]any{"touched_tests": []string{"x or y"}})}, good, "is not a test function's name", "testers/demo__calc-1/sources.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeLines(t, goodLine("demo__calc-1"))
			writePatches(t, dir, "demo__calc-1", tc.coders, tc.coderDiffs, tc.testers, tc.testerDiffs)
			c, err := LoadCorpus(dir)
			require.NoError(t, err)
			err = c.LoadPatches(c.Instances[0])
			if tc.want == "" {
				require.NoError(t, err)
				require.Len(t, c.Instances[0].Coders, 1)
				assert.Equal(t, "a-1", c.Instances[0].Coders[0].Name)
				assert.Equal(t, []string{"test_x"}, c.Instances[0].Tests[0].TouchedTests)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), filepath.Join(dir, tc.inFile))
		})
	}
}

func TestNaturalOrder(t *testing.T) {
	keys := sortedKeys(map[string]int{"a-10": 0, "a-2": 0, "a-1": 0, "b": 0, "a-02x": 0})
	assert.Equal(t, []string{"a-1", "a-2", "a-02x", "a-10", "b"}, keys, fmt.Sprint(keys))
}
