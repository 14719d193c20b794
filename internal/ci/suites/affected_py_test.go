package suites

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// A change reaches the tests that import the changed module by name, directly or
// through other modules, and the tests beside it; not through a package's __init__.py,
// which in a big package imports everything.
func TestPythonAffectedFollowsImportsButNotPackageReexports(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"pkg/__init__.py":             "from .core import *\nfrom . import util\n",
		"pkg/core.py":                 "from pkg.util import helper  # the helper\n\ndef f():\n    return helper()\n",
		"pkg/util.py":                 "def helper():\n    return 1\n",
		"pkg/other.py":                "x = 1\n",
		"pkg/tests/__init__.py":       "",
		"pkg/tests/test_core.py":      "from pkg.core import f\n",
		"pkg/tests/test_other.py":     "from pkg import other\n",
		"pkg/sub/__init__.py":         "",
		"pkg/sub/mod.py":              "import os\n",
		"pkg/sub/tests/__init__.py":   "",
		"pkg/sub/tests/test_rel.py":   "from ...util import helper\n",
		"pkg/sub/tests/test_mod.py":   "from pkg.sub.mod import *\n",
		"tests/test_top.py":           "import pkg\n\ndef test():\n    '''\n    >>> from pkg.util import helper\n    '''\n",
		"tests/test_multi.py":         "from pkg.util import (\n    helper,\n    other_name,\n)\n",
		"tests/test_backslash.py":     "import os, \\\n    pkg.util as u\n",
		"tests/test_lazy.py":          "def test():\n    from pkg import util\n",
		".venv/lib/x/test_ignored.py": "import pkg.util\n",
		"src/lib2/__init__.py":        "",
		"src/lib2/thing.py":           "",
		"tests/test_src_layout.py":    "from lib2.thing import *\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	g, err := pythonImports(context.Background(), dir)
	require.NoError(t, err)
	c, _ := languages.Preset("python")

	assert.Equal(t, []string{
		"pkg/sub/tests/test_rel.py", // relative, three dots
		"pkg/tests/test_core.py",    // through pkg.core, which imports pkg.util
		"pkg/tests/test_other.py",   // beside pkg/util.py
		"tests/test_backslash.py",
		"tests/test_lazy.py", // an import inside a function still names the module
		"tests/test_multi.py",
	}, g.affectedTests([]string{"pkg/util.py"}, c.Private), "tests/test_top.py reaches pkg.util only through pkg/__init__.py, and only a docstring names it")

	assert.Equal(t, []string{"pkg/sub/tests/test_mod.py", "pkg/sub/tests/test_rel.py"}, g.affectedTests([]string{"pkg/sub/mod.py"}, c.Private), "test_rel.py sits beside it")
	assert.Equal(t, []string{"tests/test_src_layout.py"}, g.affectedTests([]string{"src/lib2/thing.py"}, c.Private), "a src/ layout imports without src")
	assert.Equal(t, []string{"tests/test_top.py"}, g.affectedTests([]string{"tests/test_top.py", "README.md"}, c.Private), "a changed test runs itself")
	assert.Equal(t, []string{}, g.affectedTests([]string{"docs/index.md"}, c.Private), "a change no test reaches runs nothing")
}
