package ci

import (
	"context"
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// language is one ecosystem the judge knows: the contract `preset:` in dixit.yml names,
// and the toolchain `toolchain:` names (what the sandbox mounts from the host, found
// there by asking the host's own tools). Adding a language is one row here, its preset
// and toolchain functions, and their tests.
type language struct {
	name   string
	preset func() Contract
	// toolchain asks the host where the toolchain is: bin is the command to ask (the
	// contract's ToolchainPath), or "" for the first of its name on PATH.
	toolchain func(ctx context.Context, bin string) (sandbox.Toolchain, error)
	// runner, when set, is a shell command proving that what the contract's run needs is
	// there, in the sandbox with the tree's prepared dependencies, before any verdict:
	// on failure its output names what is missing and where to install it.
	runner func(c Contract) string
}

// languages is the table, in the order errors list them.
func languages() []language {
	return []language{
		{name: "go", preset: goPreset, toolchain: goToolchain},
		{name: "python", preset: pythonPreset, toolchain: pythonToolchain, runner: pythonRunner},
		{name: "node", preset: nodePreset, toolchain: nodeToolchain},
		{name: "typescript", preset: typescriptPreset, toolchain: nodeToolchain, runner: typescriptRunner},
		{name: "rust", preset: rustPreset, toolchain: rustToolchain},
		{name: "java", preset: javaPreset, toolchain: javaToolchain, runner: javaRunner},
		{name: "maven", preset: mavenPreset, toolchain: mavenToolchain, runner: mavenRunner},
	}
}

// Languages lists the names `preset:` and `toolchain:` accept.
func Languages() []string {
	var names []string
	for _, l := range languages() {
		names = append(names, l.name)
	}
	return names
}

// LanguageList is Languages for an error message: "go, python or node".
func LanguageList() string {
	names := Languages()
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Preset returns the working contract of a language the judge knows.
func Preset(name string) (Contract, bool) {
	for _, l := range languages() {
		if l.name == name {
			return l.preset(), true
		}
	}
	return Contract{}, false
}

// discoverToolchain asks the host where a language's toolchain lives; "" is none (the
// run command needs nothing from the host beyond the sandbox's base).
func discoverToolchain(ctx context.Context, name, bin string) (sandbox.Toolchain, error) {
	if name == "" {
		return sandbox.Toolchain{Check: "true"}, nil
	}
	for _, l := range languages() {
		if l.name == name {
			return l.toolchain(ctx, bin)
		}
	}
	return sandbox.Toolchain{}, fmt.Errorf("unknown toolchain %q (want %s or empty)", name, LanguageList())
}

// runnerCheck is the check of the contract's toolchain for what its run needs, or "".
func runnerCheck(c Contract) string {
	for _, l := range languages() {
		if l.name == c.Toolchain && l.runner != nil {
			return l.runner(c)
		}
	}
	return ""
}

// pythonRunner proves pytest importable when the run uses it, and otherwise says which
// python3 the judge found and what to install there.
func pythonRunner(c Contract) string {
	if !strings.Contains(c.Run, "pytest") {
		return ""
	}
	return `cd "$TMPDIR" || exit 1
python3 -c 'import pytest' 2>/dev/null && exit 0
python3 -c '
import sys
venv = " in a virtual environment over " + sys.base_prefix if sys.prefix != sys.base_prefix else ""
print("pytest is not importable by the python3 the judge found: %s (Python %s%s)." % (sys.executable, sys.version.split()[0], venv))'
echo "The test contract runs pytest. Install it for that python3 ($(command -v python3) -m pip install pytest; Debian's /usr/bin/python3: apt-get install python3-pytest), list pytest in the project's requirements*.txt or pyproject.toml test extras (the judge's prepare installs them), or name a python3 that has it in test.toolchain_path (such as /usr/bin/python3)."
exit 1`
}

// typescriptRunner proves the loader the preset runs node with resolvable from the tree.
func typescriptRunner(c Contract) string {
	if !strings.Contains(c.Run, "--import tsx") {
		return ""
	}
	return `node -e 'require.resolve("tsx/package.json")' 2>/dev/null && exit 0
echo "the typescript preset runs node --import tsx (node $(node --version) cannot strip types itself), and tsx is not installed: add tsx to the project's devDependencies and its lockfile (npm install -D tsx), which the judge's prepare installs"
exit 1`
}

// javaRunner proves the JUnit Platform console launcher there.
func javaRunner(Contract) string {
	return `[ -f "$JUNIT_CONSOLE" ] && exit 0
echo "the java preset runs JUnit 5 with the JUnit Platform console launcher, which is not at $JUNIT_CONSOLE: install Debian's junit5 package (apt-get install junit5), or set test.env.JUNIT_CONSOLE in dixit.yml to the path of junit-platform-console-standalone.jar"
exit 1`
}

// mavenRunner proves the offline repository there.
func mavenRunner(Contract) string {
	return `[ -d "$MAVEN_REPO" ] && exit 0
echo "the maven preset runs Maven offline against the repository at $MAVEN_REPO, which is not there: install Debian's packaged plugins (apt-get install maven libmaven-compiler-plugin-java libmaven-resources-plugin-java libsurefire-java junit5), or set test.env.MAVEN_REPO in dixit.yml to a local repository that holds the project's plugins and dependencies"
exit 1`
}
