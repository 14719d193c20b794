package deps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

func TestPrepareKeys(t *testing.T) {
	src := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(src, name), []byte(content), 0o644))
	}
	c, _ := languages.Preset("python")
	write("requirements.txt", "pytest\n")
	write("requirements-dev.txt", "ruff\n")
	write("calc.py", "x = 1\n")
	files, err := manifestFiles(src, c.Manifests)
	require.NoError(t, err)
	assert.Equal(t, []string{"requirements-dev.txt", "requirements.txt"}, files, "only manifests, each once")
	k1, err := depsKey(c, src, files)
	require.NoError(t, err)
	write("calc.py", "x = 2\n")
	k2, _ := depsKey(c, src, files)
	assert.Equal(t, k1, k2, "code changes keep the dependencies")
	write("requirements-dev.txt", "ruff\nmypy\n")
	k3, _ := depsKey(c, src, files)
	assert.NotEqual(t, k1, k3, "a changed manifest is prepared anew")
	c.Prepare += " --upgrade"
	k4, _ := depsKey(c, src, files)
	assert.NotEqual(t, k3, k4, "so is a changed prepare command")
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(src, "requirements-x.txt")))
	files, _ = manifestFiles(src, c.Manifests)
	assert.NotContains(t, strings.Join(files, " "), "requirements-x.txt", "a symbolic link is not a manifest")
}

func TestAMissingCommandIsNamedWithTheManifestThatNeedsIt(t *testing.T) {
	for out, want := range map[string]string{
		"dixit: 1: eval: pnpm: not found\n":          "pnpm",
		"bash: line 1: yarn: command not found\n":    "yarn",
		"sh: 1: bun: not found\n":                    "bun",
		"npm ERR! 404 Not Found - GET https://x/y\n": "",
	} {
		assert.Equal(t, want, missingCommand(sandbox.Result{Output: []byte(out)}), out)
	}
	assert.Contains(t, needs("pnpm", []string{"package.json", "pnpm-lock.yaml"}), "pnpm-lock.yaml needs pnpm, which the judge does not have: name its version in package.json's packageManager")
	assert.Contains(t, needs("uv", []string{"pyproject.toml"}), "the prepare runs uv, which the judge does not have: install it")
}
