package ci

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/citest"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// testdataTree reads a directory of testdata/deps as a tree.
func testdataTree(t *testing.T, name string) mapTree {
	t.Helper()
	root := filepath.Join("testdata", "deps", name)
	tree := mapTree{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		tree[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	require.NoError(t, err)
	return tree
}

// requireRegistry skips a test whose prepare downloads from a registry this machine
// cannot reach: what it proves needs the network.
func requireRegistry(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodHead, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil && os.Getenv("DIXIT_REQUIRE_NPM_REGISTRY") != "" && strings.HasPrefix(url, "https://registry.npmjs.org/") {
		t.Fatalf("the npm registry is unreachable (%v), and DIXIT_REQUIRE_NPM_REGISTRY (.ci/run) says these tests must run", err)
	}
	if err != nil {
		t.Skipf("the registry at %s is unreachable from here, so the prepare cannot download (%v)", url, err)
	}
	resp.Body.Close()
}

// depsJudge is a judge for a preset with its own cache directory, which starts empty
// unless given: the dependency cache is cold.
func depsJudge(t *testing.T, c Contract, cacheDir string) *Local {
	return depsJudgeIn(t, c, cacheDir, SandboxAuto)
}

func depsJudgeIn(t *testing.T, c Contract, cacheDir string, sb Sandbox) *Local {
	t.Helper()
	if cacheDir == "" {
		cacheDir = t.TempDir()
	}
	// Without bubblewrap, as root, the judge sets this process's umask to 077.
	citest.KeepUmask(t)
	l, err := NewLocal(LocalOptions{Contract: c, WorkDir: t.TempDir(), CacheDir: cacheDir, Parallel: 2, Sandbox: sb, Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

// goDepsContract is the Go preset with the build cache the package's tests share (a cold
// one costs ~30 s of standard library), and a dependency cache of the test's own.
func goDepsContract(t *testing.T) (Contract, string) {
	c, _ := languages.Preset("go")
	cache := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(sharedCache, "go-build"), filepath.Join(cache, "go-build")))
	return c, cache
}

const cmpTest = `package calc

import "testing"

func TestSame(t *testing.T) {
	if !Same([]int{1, 2}, []int{1, 2}) || Same([]int{1}, []int{2}) {
		t.Fatal("Same is wrong")
	}
}
`

func TestGoDependenciesArePreparedOnceThenBuiltOffline(t *testing.T) {
	requireRegistry(t, "https://proxy.golang.org/github.com/google/go-cmp/@v/list")
	for _, sb := range []Sandbox{SandboxAuto, SandboxNone} {
		t.Run(string(sb), func(t *testing.T) { goDependencies(t, sb) })
	}
}

func goDependencies(t *testing.T, sb Sandbox) {
	c, cache := goDepsContract(t)
	l := depsJudgeIn(t, c, cache, sb)
	tree := testdataTree(t, "go-cmp")
	job := func(coder string, tree mapTree) Job {
		return Job{Coder: coder, Tree: tree, Test: Test{ID: "same", Content: []byte(cmpTest)}}
	}
	// Two coders with the same go.mod share one prepare; a third whose go.mod moved to
	// another version of the module gets its own.
	vs, err := l.Run(context.Background(), 2, []Job{job("a", tree), job("b", tree.With("calc.go", tree["calc.go"]+"\n// b\n"))})
	require.NoError(t, err)
	for _, v := range vs {
		assert.Equal(t, Pass, v.Outcome, v.Output)
	}
	assert.Equal(t, 1, l.Stats().Prepares, "one go.mod, one prepare")
	t.Logf("cold prepare of go-cmp: %.2fs; jobs: %.2fs and %.2fs", l.Stats().PrepareSeconds, vs[0].Seconds, vs[1].Seconds)

	vs, err = l.Run(context.Background(), 1, []Job{job("c", testdataTree(t, "go-cmp-v7"))})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, 2, l.Stats().Prepares, "a coder that changed go.mod gets its own prepare")

	// A new judge on the same cache directory, while the first still uses it, finds
	// both prepared.
	again := depsJudgeIn(t, c, cache, sb)
	vs, err = again.Run(context.Background(), 1, []Job{job("a", tree)})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Zero(t, again.Stats().Prepares, "the dependency cache outlives the judge")
	t.Logf("warm (prepared by an earlier judge): job %.2fs", vs[0].Seconds)
}

func TestTestsCannotWriteOrDownloadDependencies(t *testing.T) {
	requireRegistry(t, "https://proxy.golang.org/github.com/google/go-cmp/@v/list")
	c, cache := goDepsContract(t)
	l := depsJudge(t, c, cache)
	requireBwrap(t, l)
	probe := `package calc

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	mod := os.Getenv("GOMODCACHE")
	if err := os.WriteFile(filepath.Join(mod, "planted"), []byte("x"), 0o644); err == nil {
		t.Fatal("wrote into the dependency cache at " + mod)
	}
	if err := os.WriteFile("node_modules_or_not", nil, 0o644); err != nil {
		t.Fatal("the tree itself must stay writable: ", err)
	}
	out, err := exec.Command("go", "mod", "download", "-x", "golang.org/x/exp@latest").CombinedOutput()
	if err == nil {
		t.Fatalf("a test downloaded a module: %s", out)
	}
}
`
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: testdataTree(t, "go-cmp"), Test: Test{ID: "w", Content: []byte(probe)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
}

func TestAFailingPrepareIsNotAFailingTest(t *testing.T) {
	c, cache := goDepsContract(t)
	l := depsJudge(t, c, cache)
	tree := testdataTree(t, "go-cmp")
	broken := tree.With("go.mod", "module example.com/calc\n\ngo 1.22\n\nrequire example.invalid/nothing v1.0.0\n", "go.sum", "")
	jobs := []Job{
		{Coder: "broken", Tree: broken, Test: Test{ID: "one", Content: []byte(cmpTest)}},
		{Coder: "broken", Tree: broken, Test: Test{ID: "two", Content: []byte(cmpTest)}},
	}
	vs, err := l.Run(context.Background(), 3, jobs)
	require.NoError(t, err)
	for _, v := range vs {
		assert.Equal(t, PrepareFailed, v.Outcome)
		assert.False(t, v.Passed())
		assert.Contains(t, v.Output, "example.invalid/nothing", "the output says what could not be had")
		assert.Contains(t, v.Output, "[dixit] prepare (go mod download, from go.mod, go.sum): the prepare failed")
		assert.Zero(t, v.Runs, "no test ran")
	}
	assert.Equal(t, 1, l.Stats().Prepares, "a failed prepare is reported for every job, and run once")
	hint := EnvironmentHint(c, vs[0])
	assert.Contains(t, hint, "needs example.invalid/nothing, which the prepare did not download", "the hint names the module the prepare could not get")
	vs[0].Output = "npm ERR! something else went wrong"
	assert.Contains(t, EnvironmentHint(c, vs[0]), "could not install the dependencies", "without a precise cause, the prepare's own hint")
}

// A module found only in vendor/ is not built from there: nothing checks vendor/
// against go.sum, so a coder's vendor/ could hold any code under any module's name. The
// prepare says which module it could not have, and the hint how to keep such a module.
func TestAVendoredModuleIsNotBuiltFromVendor(t *testing.T) {
	c, cache := goDepsContract(t)
	l := depsJudge(t, c, cache)
	test := "package hello\n\nimport \"testing\"\n\nfunc TestMessage(t *testing.T) {\n\tif Message() != \"hello, dixit\" {\n\t\tt.Fatal(Message())\n\t}\n}\n"
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: testdataTree(t, "go-vendored"), Test: Test{ID: "v", Content: []byte(test)}}})
	require.NoError(t, err)
	assert.Equal(t, PrepareFailed, vs[0].Outcome, "example.com/greet is only in vendor/: %s", vs[0].Output)
	assert.Contains(t, vs[0].Output, "example.com/greet")
	assert.Contains(t, EnvironmentHint(c, vs[0]), "replace example.com/greet => ./dir", "the hint says how to keep a module no proxy serves")
}

// A module go.mod replaces with a directory of the tree is prepared with that
// directory's go.mod (which names what it requires) and built from the tree.
func TestALocalReplaceIsPreparedAndBuilds(t *testing.T) {
	requireRegistry(t, "https://proxy.golang.org/github.com/google/go-cmp/@v/list")
	c, cache := goDepsContract(t)
	l := depsJudge(t, c, cache)
	test := "package hello\n\nimport \"testing\"\n\nfunc TestMessage(t *testing.T) {\n\tif Message() != \"hello, dixit\" {\n\t\tt.Fatal(Message())\n\t}\n}\n"
	tree := testdataTree(t, "go-replace")
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: tree, Test: Test{ID: "r", Content: []byte(test)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, 1, l.Stats().Prepares)

	// The replaced directory's go.mod is a manifest: a coder that changes it is prepared
	// anew, one that changes its code is not.
	moved := tree.With("greet/go.mod", tree["greet/go.mod"]+"\n// moved\n", "greet/greet.go", tree["greet/greet.go"]+"\n// b\n")
	vs, err = l.Run(context.Background(), 1, []Job{
		{Coder: "b", Tree: tree.With("greet/greet.go", tree["greet/greet.go"]+"\n// b\n"), Test: Test{ID: "r", Content: []byte(test)}},
	})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, 1, l.Stats().Prepares, "the code of the replaced module is not a manifest")
	vs, err = l.Run(context.Background(), 1, []Job{{Coder: "c", Tree: moved, Test: Test{ID: "r", Content: []byte(test)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, 2, l.Stats().Prepares, "the replaced module's go.mod is")
}

func TestNodeDependenciesComeFromTheLockfile(t *testing.T) {
	if exec.Command("npm", "--version").Run() != nil {
		t.Skip("npm is not installed here")
	}
	requireRegistry(t, "https://registry.npmjs.org/is-number")
	for _, sb := range []Sandbox{SandboxAuto, SandboxNone} {
		t.Run(string(sb), func(t *testing.T) { nodeDependencies(t, sb) })
	}
}

// nodeDependencies: with bubblewrap node_modules is mounted read-only over the tree's;
// without it, a link to the cache replaces it.
func nodeDependencies(t *testing.T, sb Sandbox) {
	c, _ := languages.Preset("node")
	l := depsJudgeIn(t, c, "", sb)
	tree := testdataTree(t, "node-is-number").With(
		// A coder's own node_modules is not what the test sees.
		"node_modules/is-number/index.js", "module.exports = () => true;\n",
		"node_modules/is-number/package.json", `{"name":"is-number","main":"index.js"}`)
	test := "const test = require('node:test');\nconst assert = require('node:assert');\nconst { double } = require('./calc.js');\n\n" +
		"test('doubles', () => { assert.strictEqual(double('21'), 42); });\n" +
		"test('refuses words', () => { assert.throws(() => double('abc')); });\n"
	vs, err := l.Run(context.Background(), 2, []Job{{Coder: "a", Tree: tree, Test: Test{ID: "d", Content: []byte(test)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, 1, l.Stats().Prepares)
	t.Logf("cold npm ci of is-number: %.2fs; job %.2fs", l.Stats().PrepareSeconds, vs[0].Seconds)
	vs, err = l.Run(context.Background(), 2, []Job{{Coder: "b", Tree: tree.With("calc.js", tree["calc.js"]+"\n"), Test: Test{ID: "d", Content: []byte(test)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, 1, l.Stats().Prepares, "another coder with the same lockfile is not prepared again")
	t.Logf("warm: job %.2fs", vs[0].Seconds)
}

// pythonWithPytest puts a python3 that has pytest first on PATH when the first one
// lacks it (pyenv's, here), or skips.
func pythonWithPytest(t *testing.T) {
	if exec.Command("python3", "-c", "import pytest").Run() == nil {
		return
	}
	if exec.Command("/usr/bin/python3", "-c", "import pytest").Run() != nil {
		t.Skip("no python3 with pytest here")
	}
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
}

func TestPythonPrepareMakesAVirtualEnvironmentOverTheSystemsPackages(t *testing.T) {
	// PyPI is not reachable from CI: the requirement (pytest) is a system package, which
	// the environment sees, so pip installs nothing.
	pythonWithPytest(t)
	c, _ := languages.Preset("python")
	l := depsJudge(t, c, "")
	test := "import os, sys\nfrom calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\n" +
		"def test_in_the_prepared_environment():\n    assert sys.prefix != sys.base_prefix, sys.prefix\n    assert os.environ['VIRTUAL_ENV'] == sys.prefix\n"
	vs, err := l.Run(context.Background(), 2, []Job{{Coder: "a", Tree: testdataTree(t, "python-system"), Test: Test{ID: "add", Content: []byte(test)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, 1, l.Stats().Prepares)
	t.Logf("venv and pip (nothing to download): %.2fs; job %.2fs", l.Stats().PrepareSeconds, vs[0].Seconds)
}

func TestAMissingPytestSaysWhichPythonAndWhatToInstall(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil || exec.Command(py, "-c", "import pytest").Run() == nil {
		// Make a python3 without pytest: a virtual environment that does not see the
		// system's packages.
		venv := filepath.Join(t.TempDir(), "venv")
		if out, err := exec.Command("python3", "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
			t.Skipf("cannot make a python3 without pytest: %v: %s", err, out)
		}
		t.Setenv("PATH", filepath.Join(venv, "bin")+":"+os.Getenv("PATH"))
	}
	c, _ := languages.Preset("python")
	l := depsJudge(t, c, "")
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "base", Tree: mapTree{"calc.py": "x = 1\n"}, Test: Test{ID: "t", Content: []byte("def test_x():\n    pass\n")}}})
	require.NoError(t, err)
	assert.Equal(t, PrepareFailed, vs[0].Outcome, "a missing runner is the environment's, not the test's")
	assert.Contains(t, vs[0].Output, "pytest is not importable by the python3 the judge found: /")
	assert.Contains(t, vs[0].Output, "-m pip install pytest")
}

func TestACodersInstallScriptDoesNotRunInThePrepare(t *testing.T) {
	if exec.Command("npm", "--version").Run() != nil {
		t.Skip("npm is not installed here")
	}
	requireRegistry(t, "https://registry.npmjs.org/is-number")
	c, _ := languages.Preset("node")
	l := depsJudge(t, c, "")
	tree := testdataTree(t, "node-is-number")
	// The prepare has the host's network: a script of the coder's would run with it.
	tree["package.json"] = `{"name":"calc","version":"1.0.0","private":true,` +
		`"scripts":{"preinstall":"echo ran > node_modules_marker; exit 1","postinstall":"exit 1"},"devDependencies":{"is-number":"^7.0.0"}}`
	test := "const test = require('node:test');\nconst { double } = require('./calc.js');\ntest('doubles', () => { if (double(2) !== 4) throw new Error('no'); });\n"
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: tree, Test: Test{ID: "d", Content: []byte(test)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, "the scripts would have failed the prepare: %s", vs[0].Output)
}

func TestToolchainPathNamesThePython(t *testing.T) {
	// pyenv's python3 comes first on this machine's PATH and lacks pytest; Debian's has it.
	if exec.Command("/usr/bin/python3", "-c", "import pytest").Run() != nil {
		t.Skip("/usr/bin/python3 has no pytest here")
	}
	c, _ := languages.Preset("python")
	c.ToolchainPath = "/usr/bin/python3"
	l := depsJudge(t, c, "")
	test := "import sys\n\ndef test_which():\n    assert sys.base_prefix == '/usr', sys.base_prefix\n"
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: testdataTree(t, "python-system"), Test: Test{ID: "w", Content: []byte(test)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
}

func TestDependencyCachesStayUnderTheLimitButNotThoseInUse(t *testing.T) {
	pythonWithPytest(t)
	c, _ := languages.Preset("python")
	cache := t.TempDir()
	judge := func(limit int64) *Local {
		l, err := NewLocal(LocalOptions{Contract: c, WorkDir: t.TempDir(), CacheDir: cache, CacheLimit: limit, Parallel: 1, Logger: quietLogger()})
		require.NoError(t, err)
		t.Cleanup(func() { l.Close() })
		return l
	}
	test := Test{ID: "add", Content: []byte("from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n")}
	run := func(l *Local, requirements string) {
		t.Helper()
		tree := testdataTree(t, "python-system").With("requirements.txt", requirements)
		vs, err := l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: tree, Test: test}})
		require.NoError(t, err)
		require.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	}
	caches := func() int {
		entries, _ := filepath.Glob(filepath.Join(cache, "deps", "*", ".dixit-prepared")) // deps' ready mark
		return len(entries)
	}

	first := judge(0)
	run(first, "pytest\n")
	first.Close() // its cache is no longer in use

	second := judge(1) // every byte is over the limit
	run(second, "pytest\n# two\n")
	assert.Equal(t, 1, caches(), "the first cache went, the one just prepared stays")

	third := judge(1)
	run(third, "pytest\n# three\n")
	assert.Equal(t, 2, caches(), "the second judge still uses its cache: it stays")
}

func TestAgentsCommandsSeeThePreparedDependencies(t *testing.T) {
	pythonWithPytest(t)
	c, _ := languages.Preset("python")
	l := depsJudge(t, c, "")
	requireBwrap(t, l)
	dir := t.TempDir()
	require.NoError(t, testdataTree(t, "python-system").WriteTo(dir))
	r, err := l.Exec(context.Background(), dir, "python3 -c 'import sys, pytest; print(sys.prefix)'", time.Minute)
	require.NoError(t, err)
	assert.Equal(t, 0, r.Exit, r.Output)
	assert.Equal(t, "/sandbox/deps/venv\n", r.Output, "the agent's python3 is the prepared environment's")
}

func TestAgentsCommandsAreToldWhenThePrepareFails(t *testing.T) {
	c, cache := goDepsContract(t)
	l := depsJudge(t, c, cache)
	requireBwrap(t, l)
	dir := t.TempDir()
	require.NoError(t, testdataTree(t, "go-cmp").With("go.mod", "module example.com/calc\n\ngo 1.22\n\nrequire example.invalid/nothing v1.0.0\n", "go.sum", "").WriteTo(dir))
	r, err := l.Exec(context.Background(), dir, "echo ran > ran.txt", time.Minute)
	require.NoError(t, err)
	assert.Equal(t, -1, r.Exit)
	assert.Contains(t, r.Note, "could not install the dependencies")
	assert.Contains(t, r.Output, "example.invalid/nothing")
	assert.NoFileExists(t, filepath.Join(dir, "ran.txt"))
}

func TestAgentsNodeCommandsRequireThePreparedModules(t *testing.T) {
	if exec.Command("npm", "--version").Run() != nil {
		t.Skip("npm is not installed here")
	}
	requireRegistry(t, "https://registry.npmjs.org/is-number")
	c, _ := languages.Preset("node")
	l := depsJudge(t, c, "")
	requireBwrap(t, l)
	dir := t.TempDir()
	require.NoError(t, testdataTree(t, "node-is-number").WriteTo(dir))
	r, err := l.Exec(context.Background(), dir, "node -e \"console.log(require('./calc.js').double('4'))\"", time.Minute)
	require.NoError(t, err)
	assert.Equal(t, 0, r.Exit, r.Output)
	assert.Equal(t, "8\n", r.Output)
	assert.NoDirExists(t, filepath.Join(dir, "node_modules"), "nothing is installed into the agent's directory")
}

func TestGoPrepareTakesWhatTheHostDownloadedFirst(t *testing.T) {
	requireRegistry(t, "https://proxy.golang.org/github.com/google/go-cmp/@v/list")
	// The host's module cache holds go-cmp; its proxy leads nowhere. (Not under /tmp,
	// which the sandbox replaces with its own.)
	host, err := os.MkdirTemp("/var/tmp", "dixit-host-modcache-")
	require.NoError(t, err)
	t.Cleanup(func() { sandbox.RemoveJobDir(host) })
	require.NoError(t, os.Chmod(host, 0o755))
	dl := exec.Command("go", "mod", "download", "github.com/google/go-cmp@v0.6.0")
	dl.Env = append(os.Environ(), "GOMODCACHE="+host, "GOFLAGS=-modcacherw")
	out, err := dl.CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Setenv("GOMODCACHE", host)
	t.Setenv("GOPROXY", "file:///nonexistent")
	c, cache := goDepsContract(t)
	l := depsJudge(t, c, cache)
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: testdataTree(t, "go-cmp"), Test: Test{ID: "same", Content: []byte(cmpTest)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
	assert.Equal(t, 1, l.Stats().Prepares)

	// A module cache closed to the lanes is passed over, not a failure.
	require.NoError(t, os.Chmod(host, 0o700))
	t.Setenv("GOPROXY", "https://proxy.golang.org")
	_, cache = goDepsContract(t)
	l = depsJudge(t, c, cache)
	vs, err = l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: testdataTree(t, "go-cmp"), Test: Test{ID: "same", Content: []byte(cmpTest)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
}

// test.requires is checked before any test runs: a module the python3 cannot import is
// the environment's failure, named with the python3 and where to get it; one it has
// passes unnoticed.
func TestRequiredPythonModulesAreCheckedFirst(t *testing.T) {
	pythonWithPytest(t)
	c, _ := languages.Preset("python")
	c.Requires = []string{"json", "dixit_no_such_module"}
	l := depsJudge(t, c, "")
	job := Job{Coder: "base", Tree: mapTree{"calc.py": "x = 1\n"}, Test: Test{ID: "t", Content: []byte("def test_x():\n    pass\n")}}
	vs, err := l.Run(context.Background(), 1, []Job{job})
	require.NoError(t, err)
	assert.Equal(t, PrepareFailed, vs[0].Outcome, "a missing module is the environment's, not the test's")
	assert.Contains(t, vs[0].Output, "the repository needs the Python module dixit_no_such_module (test.requires in dixit.yml), which the python3 the judge found (/")
	assert.Contains(t, EnvironmentHint(c, vs[0]), "test.requires names dixit_no_such_module, which the python3 the judge found (/")
	assert.Contains(t, EnvironmentHint(c, vs[0]), "apt-get install python3-dixit_no_such_module")

	c.Requires = []string{"json"}
	vs, err = depsJudge(t, c, "").Run(context.Background(), 1, []Job{job})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
}

// TestAMissingToolIsNamedInOurWords: a prepare whose command the judge lacks is told
// which manifest needs what, not its own script back.
func TestAMissingToolIsNamedInOurWords(t *testing.T) {
	if _, err := exec.LookPath("bun"); err == nil {
		t.Skip("bun is installed here: nothing is missing")
	}
	if exec.Command("node", "--version").Run() != nil {
		t.Skip("node is not installed here")
	}
	c, _ := languages.Preset("node")
	c.Prepare = "bun install --frozen-lockfile"
	c.Manifests = append(c.Manifests, "bun.lock")
	l := depsJudge(t, c, "")
	tree := mapTree{"package.json": `{"name":"calc","private":true}`, "bun.lock": "{}\n", "calc.js": "exports.x = 1;\n"}
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "base", Tree: tree, Test: Test{ID: "t", Content: []byte("require('node:test')('x', () => {});\n")}}})
	require.NoError(t, err)
	assert.Equal(t, PrepareFailed, vs[0].Outcome, vs[0].Output)
	want := "bun.lock needs bun, which the judge does not have: install it on the judge's PATH, or change test.prepare in dixit.yml"
	assert.Contains(t, vs[0].Output, "[dixit] "+want)
	assert.Equal(t, want, EnvironmentHint(c, vs[0]))

	// pnpm's lockfile in a format the judge cannot place, and no packageManager: the
	// judge provides no pnpm.
	if _, err := exec.LookPath("pnpm"); err == nil {
		return
	}
	c, _ = languages.Preset("node")
	l = depsJudge(t, c, "")
	tree = mapTree{"package.json": `{"name":"calc","private":true}`, "pnpm-lock.yaml": "lockfileVersion: '99.0'\n", "calc.js": "exports.x = 1;\n"}
	vs, err = l.Run(context.Background(), 1, []Job{{Coder: "base", Tree: tree, Test: Test{ID: "t", Content: []byte("require('node:test')('x', () => {});\n")}}})
	require.NoError(t, err)
	assert.Equal(t, PrepareFailed, vs[0].Outcome, vs[0].Output)
	hint := EnvironmentHint(c, vs[0])
	assert.True(t, strings.HasPrefix(hint, "pnpm-lock.yaml needs pnpm, which the judge does not have: name its version in package.json's packageManager"), hint)
	assert.NotContains(t, hint, "--frozen-lockfile", "the prepare script is not quoted back")
	assert.Less(t, len(hint), 300)
}
