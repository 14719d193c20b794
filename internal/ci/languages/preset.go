package languages

import (
	"time"

	"github.com/dixit-bot/dixit/internal/ci/contract"
)

// goPreset builds the package the test is in with go test -c and runs one test there,
// in the package's directory as go test does.
func goPreset() contract.Contract {
	return contract.Contract{
		Path:  "dixit_{id}_test.go",
		Paths: []string{"**/*_test.go"},
		// The coder's own tests are not part of the judge's build: they could fail to
		// compile, or define a TestMain that decides the outcome.
		Exclude: []string{"*_test.go"},
		// -ldflags=-w skips DWARF, which only debuggers read: linking is ~30% faster.
		Build: "go test -c -ldflags=-w -o {dir}/dixit.test ./{dir}",
		// Downloads every module go.mod requires, checked against go.sum. The build reads
		// them from there, never from the tree's vendor/, which nothing checks: a
		// coder's vendor/ could hold a stub of the assertion library the test imports.
		Prepare:   "go mod download",
		Manifests: []string{"go.mod", "go.sum"},
		// -test.paniconexit0 turns an early os.Exit(0) into a failure, as go test does;
		// -test.v=test2json makes the binary frame a line about each test, which the
		// judge reads: exiting 0 is not enough to pass.
		Run:    "cd {dir} && ./dixit.test -test.count=1 -test.paniconexit0 -test.v=test2json",
		Report: contract.ReportTest2JSON,
		// The probe's output is read by people and the differential parser: no framing.
		Probe:     "cd {dir} && ./dixit.test -test.count=1 -test.paniconexit0",
		Timeout:   60 * time.Second,
		Toolchain: "go",
	}
}

// pythonPreset runs one test file under pytest, with JUnit XML as the evidence.
func pythonPreset() contract.Contract {
	return contract.Contract{
		Path:  "test_dixit_{id}.py",
		Paths: []string{"**/test_*.py", "**/*_test.py"},
		// A coder's conftest.py or test files could rewrite outcomes; -c /dev/null
		// ignores its pytest configuration for the same reason.
		Exclude: []string{"test_*.py", "*_test.py", "conftest.py"},
		Run:     pythonPath + `python3 -m pytest -q -p no:cacheprovider -c /dev/null --rootdir=. -o "pythonpath=$dixit_path" --junitxml={report} {path}`,
		// A virtual environment that sees the system's packages, with the project's
		// requirements installed over them.
		Prepare:   pythonPrepare,
		Manifests: []string{"pyproject.toml", "requirements*.txt"},
		Report:    contract.ReportJUnit,
		// -s lets the probe's prints through instead of capturing them.
		Probe:     pythonPath + `python3 -m pytest -q -s -p no:cacheprovider -c /dev/null --rootdir=. -o "pythonpath=$dixit_path" {path}`,
		Timeout:   60 * time.Second,
		Toolchain: "python",
	}
}

// nodePreset runs one test file under node --test, with TAP as the evidence.
func nodePreset() contract.Contract {
	return contract.Contract{
		Path:    "dixit_{id}.test.js",
		Paths:   []string{"**/*.test.js", "**/*.test.mjs"},
		Exclude: []string{"*.test.js", "*.test.mjs", "*.spec.js"},
		// Readable results on stdout, and TAP for the judge in {report}.
		Run: "node --test --test-reporter=spec --test-reporter-destination=stdout " +
			"--test-reporter=tap --test-reporter-destination={report} {path}",
		Prepare:   nodePrepare,
		Manifests: nodeManifests,
		Report:    contract.ReportTAP,
		// The runner would rewrite console.log lines as TAP comments; the file alone prints
		// them as they are.
		Probe:     "node {path}",
		Timeout:   60 * time.Second,
		Toolchain: "node",
	}
}

// pythonPath makes the project importable from a test anywhere in the tree, its root and
// (in a src/ layout) src/, without letting the tree choose the runner: the working
// directory is kept off sys.path at start-up (PYTHONSAFEPATH, Python 3.11's -P), so a
// pytest.py in the tree is not what "python3 -m pytest" runs, and the tree's directories
// join sys.path through pytest's own pythonpath setting, after pytest has loaded. Plugins
// are not auto-loaded from installed entry points, where a *.dist-info in the tree could
// add one; a contract that needs a plugin names it (test.env: PYTEST_PLUGINS).
const pythonPath = `export PYTHONSAFEPATH=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1; dixit_path="$PWD"; [ -d src ] && dixit_path="$PWD/src $PWD"; `

// pythonPrepare makes the virtual environment: the requirements files as they are, and
// from pyproject.toml the project's dependencies and its test, tests, testing and dev
// extras and dependency groups (not the project itself: the prepare sees only its
// manifests, and the tests import the tree).
//
// The environment gets no pip of its own (ensurepip costs seconds): the system's pip,
// which it sees, installs into it.
const pythonPrepare = `python3 -m venv --system-site-packages --without-pip venv || exit 1
set --
for f in requirements*.txt; do [ -f "$f" ] && set -- "$@" -r "$f"; done
if [ -f pyproject.toml ]; then
	venv/bin/python -c '
import sys, tomllib
d = tomllib.load(open("pyproject.toml", "rb"))
p = d.get("project", {})
reqs = list(p.get("dependencies", []))
for group in ("test", "tests", "testing", "dev"):
	reqs += p.get("optional-dependencies", {}).get(group, [])
	reqs += [r for r in d.get("dependency-groups", {}).get(group, []) if isinstance(r, str)]
print("\n".join(reqs))' >pyproject-requirements.txt || exit 1
	set -- "$@" -r pyproject-requirements.txt
fi
[ "$#" -eq 0 ] || venv/bin/python -m pip install "$@"`

// nodePrepare installs node_modules from the lockfile with the package manager it
// belongs to (the judge provides pnpm and yarn: nodeTools); without one, npm resolves
// package.json. Install scripts do not run: the prepare has the host's network, and
// package.json is the coder's to write. Yarn 2 and later install node_modules, not
// Plug'n'Play: the judge mounts node_modules into the tree.
const nodePrepare = `if [ -f pnpm-lock.yaml ]; then pnpm install --frozen-lockfile --ignore-scripts
elif [ -f yarn.lock ]; then case "$(yarn --version)" in
	1.*) yarn install --frozen-lockfile --ignore-scripts --non-interactive ;;
	*) YARN_NODE_LINKER=node-modules YARN_ENABLE_TELEMETRY=0 yarn install --immutable --mode=skip-build ;;
	esac
elif [ -f package-lock.json ] || [ -f npm-shrinkwrap.json ]; then npm ci --ignore-scripts
else npm install --no-package-lock --ignore-scripts
fi`

var nodeManifests = []string{"package.json", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock"}

// typescriptPreset runs one TypeScript test file under node --test with tsx as the
// loader (node before 22.6 cannot strip types itself): the project lists tsx among its
// devDependencies, and its lockfile pins it.
func typescriptPreset() contract.Contract {
	c := nodePreset()
	c.Path = "dixit_{id}.test.ts"
	c.Paths = []string{"**/*.test.ts", "**/*.test.mts"}
	c.Exclude = []string{"*.test.ts", "*.spec.ts", "*.test.js", "*.test.mjs", "*.spec.js"}
	c.Run = "node --import tsx --test --test-reporter=spec --test-reporter-destination=stdout " +
		"--test-reporter=tap --test-reporter-destination={report} {path}"
	c.Probe = "node --import tsx {path}"
	c.Toolchain = "typescript"
	return c
}

// rustPreset builds one integration test (tests/) with cargo, offline, after cargo
// fetch, and runs the test binary with libtest's JUnit output as the evidence.
func rustPreset() contract.Contract {
	return contract.Contract{
		Path:  "tests/dixit_{id}.rs",
		Paths: []string{"tests/*.rs"},
		// The crate's own integration tests; its unit tests live inside its sources.
		Exclude: []string{"tests/*.rs"},
		// cargo reads a package only with a target: the prepare, which sees the manifests
		// alone, gives each one an empty library.
		Prepare: `for m in $(find . -name Cargo.toml); do d=$(dirname "$m"); mkdir -p "$d/src" && touch "$d/src/lib.rs" || exit 1; done; cargo fetch`,
		// Cargo.lock pins the versions; without it cargo fetch resolves them.
		Manifests: []string{"Cargo.toml", "Cargo.lock", "*/Cargo.toml", "crates/*/Cargo.toml"},
		Build: "cargo test --offline --no-run --test {name} --message-format=json-render-diagnostics >.dixit-build.json && " +
			`cp "$(sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' .dixit-build.json | tail -n 1)" dixit.test`,
		// libtest's JUnit format is unstable: RUSTC_BOOTSTRAP lets a stable test binary
		// write it. The readable names go to stdout from the report itself.
		Run:       `RUSTC_BOOTSTRAP=1 ./dixit.test --test-threads=1 -Z unstable-options --format junit >{report}; s=$?; cat {report}; exit $s`,
		Report:    contract.ReportJUnit,
		Probe:     "./dixit.test --nocapture --test-threads=1",
		Timeout:   60 * time.Second,
		Toolchain: "rust",
	}
}

// javaPreset compiles the project's sources with javac and one JUnit 5 test class, and
// runs it with the JUnit Platform console launcher, whose XML report is the evidence.
// It needs no build tool: the launcher comes from Debian's junit5 package.
func javaPreset() contract.Contract {
	return contract.Contract{
		Path:    "DixitTest_{id}.java",
		Paths:   []string{"**/*Test.java", "**/*Tests.java"},
		Exclude: []string{"*Test.java", "*Tests.java", "*IT.java"},
		Build: `find . -name '*.java' ! -path './src/test/*' ! -path './{path}' >"$TMPDIR/sources" && ` +
			`mkdir -p .dixit/main .dixit/test && ` +
			`{ ! [ -s "$TMPDIR/sources" ] || javac -nowarn -encoding UTF-8 -d .dixit/main @"$TMPDIR/sources"; } && ` +
			`javac -nowarn -encoding UTF-8 -d .dixit/test -cp ".dixit/main:$JUNIT_CONSOLE" {path}`,
		Run: `java -jar "$JUNIT_CONSOLE" --disable-banner --details=tree --fail-if-no-tests ` +
			`--class-path .dixit/test:.dixit/main --scan-class-path .dixit/test --reports-dir "$TMPDIR/junit"; ` +
			`s=$?; cat "$TMPDIR"/junit/TEST-*.xml >{report} 2>/dev/null; exit $s`,
		Report:    contract.ReportJUnit,
		Timeout:   60 * time.Second,
		Toolchain: "java",
	}
}

// mavenPreset compiles the project with Maven and runs one JUnit 5 test class with
// surefire, whose XML report is the evidence. Maven runs offline against a repository
// that already holds the project's plugins and dependencies ($MAVEN_REPO): Debian's
// /usr/share/maven-repo by default (Maven Central is not reachable from the judge's CI,
// so no prepare downloads into one). One class per test file.
func mavenPreset() contract.Contract {
	mvn := `mvn -B -o -Dmaven.repo.local="$MAVEN_REPO"`
	return contract.Contract{
		Path:  "src/test/java/DixitTest_{id}.java",
		Paths: []string{"src/test/java/**/*Test.java", "src/test/java/**/*Tests.java"},
		// The coder's own tests, and any build output it committed (a report there would
		// be read as the run's).
		Exclude: []string{"*Test.java", "*Tests.java", "*IT.java", "*TestCase.java", "target"},
		Build:   mvn + " -q test-compile",
		Run: "rm -rf target/surefire-reports; " + mvn + ` surefire:test -Dtest='DixitTest*,{name}' -DfailIfNoTests=false -DtrimStackTrace=false; ` +
			`s=$?; cat target/surefire-reports/TEST-*.xml >{report} 2>/dev/null; exit $s`,
		Report:    contract.ReportJUnit,
		Timeout:   60 * time.Second,
		Toolchain: "maven",
	}
}
