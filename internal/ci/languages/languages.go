// Package languages is the judge's table of the ecosystems it knows, one row each: the
// contract `preset:` names in dixit.yml, the toolchain `toolchain:` names (found on the
// host by asking its own tools: what the sandbox mounts), the check that the runner a
// contract needs is there, and how a tree's own tests run as a suite and are read. Adding
// a language is a row here, its functions in this package, and their tests; nothing
// else of the judge knows one language from another.
package languages

import (
	"context"
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// language is one ecosystem the judge knows.
type language struct {
	name   string
	preset func() contract.Contract
	// toolchain asks the host where the toolchain is: bin is the command to ask (the
	// contract's ToolchainPath), or "" for the first of its name on PATH.
	toolchain func(ctx context.Context, bin string) (sandbox.Toolchain, error)
	// runner, when set, is a shell command proving that what the contract's run needs is
	// there, in the sandbox with the tree's prepared dependencies, before any verdict:
	// on failure its output names what is missing and where to install it.
	runner func(c contract.Contract) string
	// suite, when set, is how the contract runs a tree's own tests.
	suite func(c contract.Contract) Suite
}

// languages is the table, in the order errors list them.
func languages() []language {
	return []language{
		{name: "go", preset: goPreset, toolchain: goToolchain, suite: goSuite},
		{name: "python", preset: pythonPreset, toolchain: pythonToolchain, runner: pythonRunner, suite: pythonSuite},
		{name: "node", preset: nodePreset, toolchain: nodeToolchain, suite: nodeSuite},
		{name: "typescript", preset: typescriptPreset, toolchain: nodeToolchain, runner: typescriptRunner, suite: nodeSuite},
		{name: "rust", preset: rustPreset, toolchain: rustToolchain, suite: rustSuite},
		{name: "java", preset: javaPreset, toolchain: javaToolchain, runner: javaRunner, suite: javaSuite},
		{name: "maven", preset: mavenPreset, toolchain: mavenToolchain, runner: mavenRunner},
	}
}

// find is the row of a name, or nil.
func find(name string) *language {
	for _, l := range languages() {
		if l.name == name {
			return &l
		}
	}
	return nil
}

// Names lists the names `preset:` and `toolchain:` accept.
func Names() []string {
	var names []string
	for _, l := range languages() {
		names = append(names, l.name)
	}
	return names
}

// List is Names for an error message: "go, python or node".
func List() string {
	names := Names()
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Preset returns the working contract of a language the judge knows.
func Preset(name string) (contract.Contract, bool) {
	if l := find(name); l != nil {
		return l.preset(), true
	}
	return contract.Contract{}, false
}

// Toolchain asks the host where a language's toolchain lives; "" is none (the run
// command needs nothing from the host beyond the sandbox's base). bin is the command to
// ask (Contract.ToolchainPath), "" for the first of its name on PATH.
func Toolchain(ctx context.Context, name, bin string) (sandbox.Toolchain, error) {
	if name == "" {
		return sandbox.Toolchain{Check: "true"}, nil
	}
	if l := find(name); l != nil {
		return l.toolchain(ctx, bin)
	}
	return sandbox.Toolchain{}, fmt.Errorf("unknown toolchain %q (want %s or empty)", name, List())
}

// RunnerCheck is a shell command that proves the runner the contract's run needs is
// there, or "" when its toolchain has none to check.
func RunnerCheck(c contract.Contract) string {
	if l := find(c.Toolchain); l != nil && l.runner != nil {
		return l.runner(c)
	}
	return ""
}

// SuiteFor is how the contract's toolchain runs a tree's own tests; false when the judge
// cannot yet run them for it.
func SuiteFor(c contract.Contract) (Suite, bool) {
	if l := find(c.Toolchain); l != nil && l.suite != nil {
		return l.suite(c), true
	}
	return Suite{}, false
}

// pythonRunner proves pytest importable when the run uses it, and otherwise says which
// python3 the judge found and what to install there.
func pythonRunner(c contract.Contract) string {
	check := pythonRequires(c.Requires)
	if !strings.Contains(c.Run, "pytest") {
		return strings.TrimSuffix(check, "\n")
	}
	return check + `cd "$TMPDIR" || exit 1
python3 -c 'import pytest' 2>/dev/null && exit 0
python3 -c '
import sys
venv = " in a virtual environment over " + sys.base_prefix if sys.prefix != sys.base_prefix else ""
print("pytest is not importable by the python3 the judge found: %s (Python %s%s)." % (sys.executable, sys.version.split()[0], venv))'
echo "The test contract runs pytest. Install it for that python3 ($(command -v python3) -m pip install pytest; Debian's /usr/bin/python3: apt-get install python3-pytest), list pytest in the project's requirements*.txt or pyproject.toml test extras (the judge's prepare installs them), or name a python3 that has it in test.toolchain_path (such as /usr/bin/python3)."
exit 1`
}

// pythonRequires proves every module of test.requires importable, and otherwise names the
// first missing one, the python3 that lacks it and where to get it. The names are checked
// by config (dotted identifiers), so they are safe in the script.
func pythonRequires(modules []string) string {
	var b strings.Builder
	for _, m := range modules {
		fmt.Fprintf(&b, `(cd "$TMPDIR" && python3 -c 'import %[1]s') 2>/dev/null || { echo "the repository needs the Python module %[1]s (test.requires in dixit.yml), which the python3 the judge found ($(command -v python3)) cannot import: install it for that python3 (Debian: apt-get install python3-%[2]s; else $(command -v python3) -m pip install %[2]s), or name a python3 that has it in test.toolchain_path"; exit 1; }
`, m, strings.ToLower(strings.SplitN(m, ".", 2)[0]))
	}
	return b.String()
}

// typescriptRunner proves the loader the preset runs node with resolvable from the tree.
func typescriptRunner(c contract.Contract) string {
	if !strings.Contains(c.Run, "--import tsx") {
		return ""
	}
	return `node -e 'require.resolve("tsx/package.json")' 2>/dev/null && exit 0
echo "the typescript preset runs node --import tsx (node $(node --version) cannot strip types itself), and tsx is not installed: add tsx to the project's devDependencies and its lockfile (npm install -D tsx), which the judge's prepare installs"
exit 1`
}

// javaRunner proves the JUnit Platform console launcher there.
func javaRunner(contract.Contract) string {
	return `[ -f "$JUNIT_CONSOLE" ] && exit 0
echo "the java preset runs JUnit 5 with the JUnit Platform console launcher, which is not at $JUNIT_CONSOLE: install Debian's junit5 package (apt-get install junit5), or set test.env.JUNIT_CONSOLE in dixit.yml to the path of junit-platform-console-standalone.jar"
exit 1`
}

// mavenRunner proves the offline repository there.
func mavenRunner(contract.Contract) string {
	return `[ -d "$MAVEN_REPO" ] && exit 0
echo "the maven preset runs Maven offline against the repository at $MAVEN_REPO, which is not there: install Debian's packaged plugins (apt-get install maven libmaven-compiler-plugin-java libmaven-resources-plugin-java libsurefire-java junit5), or set test.env.MAVEN_REPO in dixit.yml to a local repository that holds the project's plugins and dependencies"
exit 1`
}
