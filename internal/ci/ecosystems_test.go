package ci

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// ecosystemJudge is a judge for a preset in the real sandbox, or a skip naming what the
// host lacks.
func ecosystemJudge(t *testing.T, preset string, needs ...[]string) *Local {
	t.Helper()
	for _, probe := range needs {
		if err := exec.Command(probe[0], probe[1:]...).Run(); err != nil {
			t.Skipf("%s preset not tested: %v fails here (%v)", preset, probe, err)
		}
	}
	c, ok := languages.Preset(preset)
	require.True(t, ok)
	return depsJudge(t, c, "")
}

// ecosystemCases runs a passing, a failing and a skipping test, each of which the
// coder's own failing test must not disturb.
func ecosystemCases(t *testing.T, l *Local, tree mapTree, pass, fail, skip string) []Verdict {
	t.Helper()
	jobs := []Job{
		{Coder: "a", Tree: tree, Test: Test{ID: "pass", Content: []byte(pass)}},
		{Coder: "a", Tree: tree, Test: Test{ID: "fail", Content: []byte(fail)}},
	}
	if skip != "" {
		jobs = append(jobs, Job{Coder: "a", Tree: tree, Test: Test{ID: "skip", Content: []byte(skip)}})
	}
	vs, err := l.Run(context.Background(), 2, jobs)
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, 2, vs[0].Runs)
	assert.Equal(t, Fail, vs[1].Outcome, vs[1].Output)
	if skip != "" {
		assert.Equal(t, Fail, vs[2].Outcome, "a skipped test checked nothing: %s", vs[2].Output)
	}
	return vs
}

func TestPresetRust(t *testing.T) {
	// crates.io is not reachable from CI: the crate has no dependencies, and cargo fetch
	// still runs (and must not need the network for that).
	l := ecosystemJudge(t, "rust", []string{"cargo", "--version"})
	vs := ecosystemCases(t, l, testdataTree(t, "rust-plain"),
		"use calc::double;\n\n#[test]\nfn doubles() {\n    assert_eq!(double(21), 42);\n}\n",
		"use calc::double;\n\n#[test]\nfn doubles_wrong() {\n    assert_eq!(double(21), 43);\n}\n",
		"#[test]\n#[ignore]\nfn ignored() {}\n\n#[test]\nfn runs() {}\n")
	assert.Contains(t, vs[1].Output, "doubles_wrong")
	assert.Equal(t, 1, l.Stats().Prepares, "cargo fetch ran once for the three jobs")
}

func TestPresetJava(t *testing.T) {
	// Maven Central is not reachable from CI: JUnit 5 comes from Debian's junit5 package.
	l := ecosystemJudge(t, "java", []string{"javac", "-version"},
		[]string{"test", "-f", "/usr/share/java/junit-platform-console-standalone.jar"})
	test := func(body string) string {
		return "import static org.junit.jupiter.api.Assertions.*;\n\nimport calc.Calc;\nimport org.junit.jupiter.api.*;\n\nclass DixitTest {\n" + body + "}\n"
	}
	vs := ecosystemCases(t, l, testdataTree(t, "java-plain"),
		test("    @Test\n    void twice() {\n        assertEquals(42, Calc.twice(21));\n    }\n"),
		test("    @Test\n    void twiceWrong() {\n        assertEquals(43, Calc.twice(21));\n    }\n"),
		test("    @Test\n    @Disabled\n    void skipped() {}\n\n    @Test\n    void runs() {}\n"))
	assert.Contains(t, vs[1].Output, "twiceWrong")
}

func TestPresetTypeScript(t *testing.T) {
	if exec.Command("npm", "--version").Run() != nil {
		t.Skip("npm is not installed here")
	}
	requireRegistry(t, "https://registry.npmjs.org/tsx")
	l := ecosystemJudge(t, "typescript", []string{"node", "--version"})
	head := "import { test } from 'node:test';\nimport assert from 'node:assert';\nimport { double } from './calc.ts';\n\n"
	tree := testdataTree(t, "ts-tsx").With("calc.spec.ts", "throw new Error('a coder test must be excluded');\n")
	ecosystemCases(t, l, tree,
		head+"test('doubles', () => { const n: number = double(21); assert.strictEqual(n, 42); });\n",
		head+"test('doubles wrong', () => { assert.strictEqual(double(21), 43); });\n",
		head+"test.skip('skipped', () => {});\ntest('runs', () => {});\n")
	t.Logf("npm ci of tsx (cold): %.2fs", l.Stats().PrepareSeconds)
}

func TestTypeScriptWithoutItsLoaderSaysWhatToAdd(t *testing.T) {
	l := ecosystemJudge(t, "typescript", []string{"node", "--version"})
	tree := mapTree{"package.json": `{"name":"calc","version":"1.0.0","private":true}`, "calc.ts": "export const x = 1;\n"}
	if os.Getenv("DIXIT_TEST_OFFLINE") == "" {
		requireRegistry(t, "https://registry.npmjs.org/tsx") // npm install resolves package.json
	}
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "base", Tree: tree, Test: Test{ID: "t", Content: []byte("import { test } from 'node:test';\ntest('x', () => {});\n")}}})
	require.NoError(t, err)
	assert.Equal(t, PrepareFailed, vs[0].Outcome)
	assert.Contains(t, vs[0].Output, "add tsx to the project's devDependencies")
}

func TestPresetMaven(t *testing.T) {
	// Maven Central is not reachable from CI: Maven runs offline against Debian's
	// packaged repository (compiler, resources and surefire plugins, JUnit 5).
	l := ecosystemJudge(t, "maven", []string{"mvn", "-v"},
		[]string{"test", "-d", "/usr/share/maven-repo/org/apache/maven/plugins/maven-surefire-plugin/2.22.3"},
		[]string{"test", "-d", "/usr/share/maven-repo/org/junit/jupiter/junit-jupiter-engine/5.9.2"})
	test := func(body string) string {
		return "import static org.junit.jupiter.api.Assertions.*;\n\nimport calc.Calc;\nimport org.junit.jupiter.api.*;\n\nclass DixitTest {\n" + body + "}\n"
	}
	vs := ecosystemCases(t, l, testdataTree(t, "maven-plain"),
		test("    @Test\n    void twice() {\n        assertEquals(42, Calc.twice(21));\n    }\n"),
		test("    @Test\n    void twiceWrong() {\n        assertEquals(43, Calc.twice(21));\n    }\n"),
		test("    @Test\n    @Disabled\n    void skipped() {}\n\n    @Test\n    void runs() {}\n"))
	assert.Contains(t, vs[1].Output, "twiceWrong")
}

// TestPnpmVitestProjectWithAViteConfig judges a real pnpm project with the default
// prepare: package.json names pnpm@10.34.9 (the judge installs it from npm, not the
// host), pnpm-lock.yaml pins vite and vitest, and vitest loads vite.config.ts, which
// vite bundles into node_modules/.vite-temp while node_modules stays read-only.
func TestPnpmVitestProjectWithAViteConfig(t *testing.T) {
	if exec.Command("npm", "--version").Run() != nil {
		t.Skip("npm is not installed here: the judge installs pnpm with it")
	}
	requireRegistry(t, "https://registry.npmjs.org/pnpm")
	c, ok := languages.Preset("typescript")
	require.True(t, ok)
	c.Run = "pnpm exec vitest run --reporter=default --reporter=junit --outputFile.junit={report} {path}"
	c.Report = ReportJUnit
	l := depsJudge(t, c, "")
	head := "import { test, expect } from 'vitest';\nimport { double } from './calc';\n\n"
	pass := head + "test('doubles', () => {\n  expect(double(21)).toBe(42);\n  expect(process.env.DIXIT_CONFIG).toBe('from vite.config.ts');\n});\n"
	if l.sb.Bubblewrap() {
		pass += "import { writeFileSync } from 'node:fs';\n" +
			"test('the dependencies are read-only', () => {\n  expect(() => writeFileSync('node_modules/vitest/package.json', '{}')).toThrow();\n});\n"
	}
	start := time.Now()
	vs := ecosystemCases(t, l, testdataTree(t, "ts-pnpm-vitest"), pass,
		head+"test('doubles wrong', () => { expect(double(21)).toBe(43); });\n", "")
	assert.Contains(t, vs[1].Output, "doubles wrong")
	assert.Equal(t, 1, l.Stats().Prepares, "one set of manifests, prepared once")
	t.Logf("pnpm@10.34.9 and pnpm install of vite and vitest (cold): %.1fs; the two jobs %.1fs, %.1fs; all %.1fs",
		l.Stats().PrepareSeconds, vs[0].Seconds, vs[1].Seconds, time.Since(start).Seconds())
}

// TestThePackageManagerIsInstalledOncePerVersion: two projects naming the same pnpm share
// one install of it, and an agent's command finds it; a version npm does not have is
// told in our words.
func TestThePackageManagerIsInstalledOncePerVersion(t *testing.T) {
	if exec.Command("npm", "--version").Run() != nil {
		t.Skip("npm is not installed here: the judge installs pnpm with it")
	}
	requireRegistry(t, "https://registry.npmjs.org/pnpm")
	c, _ := languages.Preset("node")
	cache := t.TempDir()
	l := depsJudge(t, c, cache)
	lock := "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n  excludeLinksFromLockfile: false\n\nimporters:\n\n  .: {}\n"
	project := func(name, pm string) mapTree {
		return mapTree{"package.json": `{"name":"` + name + `","version":"1.0.0","private":true,"packageManager":"` + pm + `"}`, "pnpm-lock.yaml": lock}
	}
	test := Test{ID: "t", Content: []byte("require('node:test')('runs', () => {});\n")}
	vs, err := l.Run(context.Background(), 1, []Job{
		{Coder: "a", Tree: project("a", "pnpm@10.34.9"), Test: test},
		{Coder: "b", Tree: project("b", "pnpm@10.34.9"), Test: test},
		{Coder: "c", Tree: project("c", "pnpm@99.99.99"), Test: test},
	})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, Pass, vs[1].Outcome, vs[1].Output)
	assert.Equal(t, 2, l.Stats().Prepares, "each set of manifests is prepared")
	tools, _ := filepath.Glob(filepath.Join(cache, "deps", "tool-*", ".dixit-prepared"))
	assert.Len(t, tools, 1, "pnpm@10.34.9 was installed once for both")
	assert.Equal(t, PrepareFailed, vs[2].Outcome, vs[2].Output)
	assert.Contains(t, EnvironmentHint(c, vs[2]), "package.json (packageManager) needs pnpm@99.99.99, which the judge could not install from the npm registry")

	// An agent's command in such a project finds the same pnpm.
	dir := t.TempDir()
	require.NoError(t, project("a", "pnpm@10.34.9").WriteTo(dir))
	r, err := l.Exec(context.Background(), dir, "pnpm --version", time.Minute)
	require.NoError(t, err)
	assert.Equal(t, "10.34.9\n", r.Output)
}

// TestYarnProjectsPrepareWithTheirYarn: yarn 4, named in packageManager, comes from npm
// as @yarnpkg/cli-dist and installs node_modules (not Plug'n'Play); yarn 1 is the
// lockfile's.
func TestYarnProjectsPrepareWithTheirYarn(t *testing.T) {
	if exec.Command("npm", "--version").Run() != nil {
		t.Skip("npm is not installed here: the judge installs yarn with it")
	}
	requireRegistry(t, "https://registry.npmjs.org/@yarnpkg%2fcli-dist")
	c, _ := languages.Preset("node")
	l := depsJudge(t, c, "")
	test := Test{ID: "d", Content: []byte("const test = require('node:test');\nconst assert = require('node:assert');\nconst { double } = require('./calc.js');\n\n" +
		"test('doubles', () => { assert.strictEqual(double('21'), 42); });\n")}
	vs, err := l.Run(context.Background(), 1, []Job{
		{Coder: "berry", Tree: testdataTree(t, "yarn-berry"), Test: test},
		{Coder: "classic", Tree: testdataTree(t, "yarn-classic"), Test: test},
	})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, Pass, vs[1].Outcome, vs[1].Output)
}
