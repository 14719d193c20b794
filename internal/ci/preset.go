package ci

import "time"

// goPreset builds the package at the repository root with go test -c and runs one test.
func goPreset() Contract {
	return Contract{
		Path: "dixit_{id}_test.go",
		// The coder's own tests are not part of the judge's build: they could fail to
		// compile, or define a TestMain that decides the outcome.
		Exclude: []string{"*_test.go"},
		// -ldflags=-w skips DWARF, which only debuggers read: linking is ~30% faster.
		Build: "go test -c -ldflags=-w -o dixit.test .",
		// -test.paniconexit0 turns an early os.Exit(0) into a failure, as go test does;
		// -test.v=test2json makes the binary frame a line about each test, which the
		// judge reads: exiting 0 is not enough to pass.
		Run:    "./dixit.test -test.count=1 -test.paniconexit0 -test.v=test2json",
		Report: ReportTest2JSON,
		// The probe's output is read by people and the differential parser: no framing.
		Probe:     "./dixit.test -test.count=1 -test.paniconexit0",
		Timeout:   60 * time.Second,
		Toolchain: "go",
	}
}

// pythonPreset runs one test file under pytest, with JUnit XML as the evidence.
func pythonPreset() Contract {
	return Contract{
		Path: "test_dixit_{id}.py",
		// A coder's conftest.py or test files could rewrite outcomes; -c /dev/null
		// ignores its pytest configuration for the same reason.
		Exclude: []string{"test_*.py", "*_test.py", "conftest.py"},
		Run:     "python3 -m pytest -q -p no:cacheprovider -c /dev/null --rootdir=. --junitxml={report} test_dixit_{id}.py",
		Report:  ReportJUnit,
		// -s lets the probe's prints through instead of capturing them.
		Probe:     "python3 -m pytest -q -s -p no:cacheprovider -c /dev/null --rootdir=. test_dixit_{id}.py",
		Timeout:   60 * time.Second,
		Toolchain: "python",
	}
}

// nodePreset runs one test file under node --test, with TAP as the evidence.
func nodePreset() Contract {
	return Contract{
		Path:    "dixit_{id}.test.js",
		Exclude: []string{"*.test.js", "*.test.mjs", "*.spec.js"},
		// Readable results on stdout, and TAP for the judge in {report}.
		Run: "node --test --test-reporter=spec --test-reporter-destination=stdout " +
			"--test-reporter=tap --test-reporter-destination={report} dixit_{id}.test.js",
		Report: ReportTAP,
		// The runner would rewrite console.log lines as TAP comments; the file alone prints
		// them as they are.
		Probe:     "node dixit_{id}.test.js",
		Timeout:   60 * time.Second,
		Toolchain: "node",
	}
}
