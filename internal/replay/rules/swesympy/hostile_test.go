package swesympy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadRefusesBrokenMatrices(t *testing.T) {
	rows := func(m obj) obj { return m["rows"].(obj) }
	coders := func(m obj) []any { return m["coders"].([]any) }
	tests := func(m obj) []any { return m["tests"].([]any) }
	cases := []struct {
		name   string
		change func(m obj)
		want   string
	}{
		{"unknown field", func(m obj) { m["extra"] = 1 }, `unknown field "extra"`},
		{"no tests", func(m obj) { delete(m, "tests") }, "missing or empty field(s): tests"},
		{"empty id", func(m obj) { m["instance_id"] = "" }, "missing or empty field(s): instance_id"},
		{"short row", func(m obj) { rows(m)["a0"] = []string{"pass"} }, "rows.a0 has 1 cells for 5 tests"},
		{"unknown cell", func(m obj) { rows(m)["a2"].([]string)[1] = "PASS" }, `rows.a2[1] is "PASS": want pass, fail or env`},
		{"no row for a coder", func(m obj) { delete(rows(m), "d1") }, `rows has no row "d1"`},
		{"no gold row", func(m obj) { delete(rows(m), "gold") }, `rows has no row "gold"`},
		{"a row for nobody", func(m obj) { rows(m)["zz"] = []string{"pass", "pass", "pass", "pass", "pass"} }, "rows.zz: no coder of that name"},
		{"two coders of one name", func(m obj) { coders(m)[1].(obj)["name"] = "a0" }, "coders[1].name a0 is taken"},
		{"a coder named gold", func(m obj) { coders(m)[0].(obj)["name"] = "gold" }, "coders[0].name gold is taken"},
		{"resolved but does not apply", func(m obj) { coders(m)[0].(obj)["applies"] = false }, "coders[0] (a0): resolved but does not apply"},
		{"resolved is a string", func(m obj) { coders(m)[2].(obj)["resolved"] = "yes" }, "coders.resolved of type bool"},
		{"resolved missing", func(m obj) { delete(coders(m)[2].(obj), "resolved") }, "coders[2] (a2).resolved missing"},
		{"another format", func(m obj) { m["format"] = "swe-matrix/9" }, `format "swe-matrix/9": this reader knows swe-matrix/1, swe-matrix/2, swe-matrix/3`},
		{"no label check", func(m obj) { delete(m, "label_check") }, "missing or empty field(s): label_check"},
		{"label check without gold", func(m obj) { delete(m["label_check"].(obj), "gold_passes") }, "missing or empty field(s): label_check.gold_passes"},
		{"label env on no tree", func(m obj) { m["label_env"] = []any{obj{"tree": "zz", "test": "t", "reason": ""}} }, `label_env[0].tree "zz" is no row`},
		{"no source", func(m obj) { delete(coders(m)[3].(obj), "source") }, "coders[3] (a3).source missing or empty"},
		{"no sha", func(m obj) { coders(m)[3].(obj)["patch_sha256"] = "" }, "coders[3] (a3).patch_sha256 missing or empty"},
		{"resolved-only flag missing", func(m obj) { delete(coders(m)[5].(obj), "resolved_only_source") }, "coders[5] (m0).resolved_only_source missing"},
		{"duplicate of nobody", func(m obj) { coders(m)[1].(obj)["duplicate_of"] = "zz" }, "coders[1] (a1).duplicate_of names zz"},
		{"label failures not a list", func(m obj) { coders(m)[2].(obj)["label_failures"] = obj{} }, "coders[2] (a2).label_failures is not a list"},
		{"odd published label", func(m obj) { coders(m)[4].(obj)["published_label"] = "maybe" }, `coders[4] (d1).published_label "maybe"`},
		{"test duplicate of a later test", func(m obj) { tests(m)[0].(obj)["duplicate_of"] = "copilot-basic" }, "tests[0] (itl-gpt4o-full).duplicate_of names copilot-basic, which is no earlier test"},
		{"runnable missing", func(m obj) { delete(tests(m)[4].(obj), "runnable") }, "tests[4] (copilot-basic).runnable missing"},
		{"two tests of one name", func(m obj) { tests(m)[1].(obj)["name"] = "itl-gpt4o-full" }, "tests[1].name itl-gpt4o-full is also tests[0]'s"},
		{"env cell on no tree", func(m obj) { m["env_cells"] = []any{obj{"tree": "zz", "test": "t", "reason": ""}} }, `env_cells[0].tree "zz" is no row`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := first()
			c.change(m)
			dir := t.TempDir()
			b, err := json.Marshal(m)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "sympy__sympy-1.json"), b, 0o644))
			_, err = LoadDir(context.Background(), dir, Options{})
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Join(dir, "sympy__sympy-1.json")+": ", "the error names the file")
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func TestLoadRefusesBrokenFiles(t *testing.T) {
	dir := t.TempDir()
	b, err := json.Marshal(first())
	require.NoError(t, err)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	p := write("sympy__sympy-1.json", b[:len(b)/2])
	_, err = LoadFile(p, Options{}, &Notes{})
	assert.ErrorContains(t, err, p+": truncated JSON (a file still being written?)")

	p = write("sympy__sympy-1.json", append(append([]byte{}, b...), b...))
	_, err = LoadFile(p, Options{}, &Notes{})
	assert.ErrorContains(t, err, p+": more than one JSON value")

	require.NoError(t, os.Remove(p))
	p = write("sympy__sympy-9.json", b)
	_, err = LoadFile(p, Options{}, &Notes{})
	assert.ErrorContains(t, err, p+": instance_id is sympy__sympy-1, not the file's name")

	_, err = LoadDir(context.Background(), t.TempDir(), Options{})
	assert.ErrorContains(t, err, "no *.json file in")
}
