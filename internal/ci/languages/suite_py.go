package languages

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/reports"
)

// pythonReport is where pytest writes a run's JUnit XML.
const pythonReport = SuiteRunDir + "/report.xml"

// pythonConfigs are the files pytest takes its settings from, in its own order of
// preference, each with the section that makes it pytest's.
var pythonConfigs = []struct{ name, section string }{
	{"pytest.ini", ""}, {".pytest.ini", ""},
	{"pyproject.toml", "[tool.pytest.ini_options]"},
	{"tox.ini", "[pytest]"}, {"setup.cfg", "[tool:pytest]"},
}

// pythonSuiteRun runs the suite under pytest with the project importable (its src/
// layout too). A module that fails to import is reported as such while the others run
// (--continue-on-collection-errors); xunit1 reports name each test's file.
func pythonSuiteRun(p SuitePlan) string {
	cmd := "python3 -m pytest -q -p no:cacheprovider --continue-on-collection-errors -o junit_family=xunit1 --rootdir=."
	if p.Config != "" {
		cmd += " -c " + shellQuote(p.Config)
	}
	cmd += " --junitxml=" + pythonReport
	for _, o := range p.Only {
		cmd += " " + shellQuote(o)
	}
	return `[ -d src ] && export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
` + cmd
}

// pythonSuiteRead names each JUnit test case as pytest's node id: "file::Class::name"
// from xunit1's file attribute and the classname, or the module's file alone for a
// module that could not be collected.
func pythonSuiteRead(src string, _ SuitePlan) ([]SuiteCase, string, error) {
	data, err := readSuiteFile(src, pythonReport)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "pytest wrote no report: it could not start, or its arguments are wrong", nil
	}
	if err != nil {
		return nil, "pytest's report could not be read: " + err.Error(), nil
	}
	cases, err := reports.JUnitCases(data)
	if err != nil {
		return nil, "pytest's report is not whole JUnit XML: " + err.Error(), nil
	}
	return junitCases(cases, pythonName), "", nil
}

// junitCases names a JUnit document's test cases with name, each failing one with its
// failure's first line.
func junitCases(cases []reports.Case, name func(reports.Case) string) []SuiteCase {
	var out []SuiteCase
	for _, c := range cases {
		out = append(out, SuiteCase{Name: name(c), Outcome: c.Outcome, Message: FirstLine(c.Message)})
	}
	return out
}

// pythonName is a pytest JUnit test case's node id.
func pythonName(c reports.Case) string { return pythonNodeID(c.File, c.Class, c.Name) }

// pythonNodeID rebuilds "tests/test_x.py::TestC::test_m" from file "tests/test_x.py",
// classname "tests.test_x.TestC" and name "test_m".
func pythonNodeID(file, classname, name string) string {
	if file == "" {
		return classname + "::" + name
	}
	if classname == "" { // the module itself: a collection error
		return file
	}
	module := strings.ReplaceAll(strings.TrimSuffix(file, ".py"), "/", ".")
	id := file
	if rest, ok := strings.CutPrefix(classname, module); ok && rest != "" {
		id += strings.ReplaceAll(rest, ".", "::")
	}
	return id + "::" + name
}

// pythonSuite runs the tree's tests in one pytest session, with the settings of the
// tests' tree.
func pythonSuite(contract.Contract) Suite {
	return Suite{Run: pythonSuiteRun, Read: pythonSuiteRead, Scope: testFileScope, Settings: pythonSettings}
}

// pythonSettings copies the tests tree's pytest settings into the suite's directory
// under their own name (pytest reads a file by its name), or names none (/dev/null).
func pythonSettings(base, src string) (string, error) {
	for _, c := range pythonConfigs {
		data, err := os.ReadFile(filepath.Join(base, c.name))
		if err != nil || (c.section != "" && !strings.Contains(string(data), c.section)) {
			continue
		}
		rel := path.Join(SuiteDir, c.name)
		if err := contract.PlaceFile(src, rel, data); err != nil {
			return "", fmt.Errorf("copy the base's %s: %w", c.name, err)
		}
		return rel, nil
	}
	return "/dev/null", nil
}
