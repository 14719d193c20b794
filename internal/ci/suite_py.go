package ci

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io/fs"
	"strings"
)

// pythonReport is where pytest writes a run's JUnit XML.
const pythonReport = suiteRunDir + "/report.xml"

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
func pythonSuiteRun(p suitePlan) string {
	cmd := "python3 -m pytest -q -p no:cacheprovider --continue-on-collection-errors -o junit_family=xunit1 --rootdir=."
	if p.config != "" {
		cmd += " -c " + shellQuote(p.config)
	}
	cmd += " --junitxml=" + pythonReport
	for _, o := range p.only {
		cmd += " " + shellQuote(o)
	}
	return `[ -d src ] && export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
` + cmd
}

// pythonSuiteRead names each JUnit test case as pytest's node id: "file::Class::name"
// from xunit1's file attribute and the classname, or the module's file alone for a
// module that could not be collected.
func pythonSuiteRead(src string, _ suitePlan) ([]suiteCase, string, error) {
	data, err := readSuiteFile(src, pythonReport)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "pytest wrote no report: it could not start, or its arguments are wrong", nil
	}
	if err != nil {
		return nil, "pytest's report could not be read: " + err.Error(), nil
	}
	var root xmlNode
	if err := xml.NewDecoder(bytes.NewReader(data)).Decode(&root); err != nil {
		return nil, "pytest's report is not whole JUnit XML: " + err.Error(), nil
	}
	return junitCases(root, pythonName), "", nil
}

// junitCases lists a JUnit document's test cases, named by name, each failing one
// with its failure's first line.
func junitCases(n xmlNode, name func(xmlNode) string) []suiteCase {
	if n.XMLName.Local != "testcase" {
		var cases []suiteCase
		for _, c := range n.Nodes {
			cases = append(cases, junitCases(c, name)...)
		}
		return cases
	}
	c := suiteCase{name: name(n), outcome: junitOutcome(n)}
	for _, child := range n.Nodes {
		if child.XMLName.Local == "skipped" && child.attr("type") == "pytest.xfail" && c.outcome == "skip" {
			c.outcome = "xfail"
		}
		if l := child.XMLName.Local; l == "failure" || l == "error" {
			c.message = firstLine(child.attr("message"))
			break
		}
	}
	return []suiteCase{c}
}

// pythonName is a pytest JUnit test case's node id.
func pythonName(n xmlNode) string {
	return pythonNodeID(n.attr("file"), n.attr("classname"), n.attr("name"))
}

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
