package ci

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
)

// xmlNode is any XML element, kept whole.
type xmlNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Nodes   []xmlNode  `xml:",any"`
}

func (n xmlNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// parseJUnit reads a JUnit XML report as pytest (--junitxml) and node (the junit
// reporter) write it: <testsuites> or <testsuite> around <testcase> elements, each
// failing with a <failure> or <error> child, or skipped with a <skipped> one. A report
// cut short does not parse, so a parsed root is a complete report.
func parseJUnit(data []byte) runnerReport {
	var root xmlNode
	if err := xml.NewDecoder(bytes.NewReader(data)).Decode(&root); err != nil {
		return runnerReport{damaged: fmt.Sprintf("not a whole JUnit XML document (%v)", err)}
	}
	if l := root.XMLName.Local; l != "testsuites" && l != "testsuite" {
		return runnerReport{damaged: fmt.Sprintf("its root element is <%s>, not <testsuites> or <testsuite>", l)}
	}
	r := runnerReport{complete: true}
	junitWalk(root, &r)
	return r
}

func junitWalk(n xmlNode, r *runnerReport) {
	if n.XMLName.Local == "testcase" {
		r.tests = append(r.tests, testResult{name: n.attr("name"), outcome: junitOutcome(n)})
		return
	}
	for _, c := range n.Nodes {
		junitWalk(c, r)
	}
	if n.XMLName.Local != "testsuite" {
		return
	}
	name := n.attr("name")
	r.suites = append(r.suites, name)
	// A suite's counts must agree with its cases: one that counts a failure or a skip
	// its cases do not show proves nothing either.
	for _, count := range []struct{ attr, outcome string }{
		{"failures", "fail"}, {"errors", "fail"}, {"skipped", "skip"},
	} {
		if k, err := strconv.Atoi(n.attr(count.attr)); err == nil && k > 0 {
			r.tests = append(r.tests, testResult{name: "test suite " + name, outcome: count.outcome})
		}
	}
}

// junitOutcome is a test case's result from its children.
func junitOutcome(n xmlNode) string {
	outcome := "pass"
	for _, c := range n.Nodes {
		switch c.XMLName.Local {
		case "failure", "error":
			return "fail"
		case "skipped":
			outcome = "skip"
		}
	}
	return outcome
}
