package ci

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A coder that changes what a golden-file test checks and rewrites the golden file to
// match is still caught: testdata comes from the base with the tests.
func TestSuiteGoldenFilesComeFromTheBase(t *testing.T) {
	l := newGoJudge(t, 30*time.Second, nil)
	ctx := context.Background()
	base := mapTree{
		"go.mod":                       "module example.com/golden\n\ngo 1.22\n",
		"render/render.go":             "package render\n\n// Title renders a title.\nfunc Title(s string) string { return \"# \" + s }\n",
		"render/render_test.go":        "package render\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestTitle(t *testing.T) {\n\twant, err := os.ReadFile(\"testdata/title.golden\")\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n\tif got := Title(\"x\"); got != string(want) {\n\t\tt.Fatalf(\"Title = %q, want %q\", got, want)\n\t}\n}\n",
		"render/testdata/title.golden": "# x",
	}
	rs, err := l.RunSuite(ctx, 1, []SuiteJob{{Coder: "base", Tree: base}})
	require.NoError(t, err)
	set := NewRegressionSet(rs[0])
	require.Equal(t, []string{"example.com/golden/render.TestTitle"}, set.Tests, rs[0].Output)

	cheat := base.With(
		"render/render.go", "package render\n\n// Title renders a title.\nfunc Title(s string) string { return \"## \" + s }\n",
		"render/testdata/title.golden", "## x",
	)
	extra := base.With("render/testdata/more.golden", "new data the coder's own tests read")
	rs, err = l.RunSuite(ctx, 1, []SuiteJob{{Coder: "cheat", Tree: cheat, Tests: base}, {Coder: "extra", Tree: extra, Tests: base}})
	require.NoError(t, err)
	regs := Regressions(set, rs[0])
	require.Len(t, regs, 1, rs[0].Output)
	assert.Contains(t, regs[0].Reason, `Title = "## x", want "# x"`)
	assert.Empty(t, Regressions(set, rs[1]), "a coder may add testdata of its own")
}
