package languages

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/reports"
)

// vitestReport is where vitest writes a suite run's JUnit XML.
const vitestReport = SuiteRunDir + "/vitest.xml"

// usesVitest reports whether the contract runs its tests with vitest: then the
// repository's own tests are vitest's too, and node --test cannot run them.
func usesVitest(c contract.Contract) bool {
	return strings.Contains(c.Run, "vitest")
}

// vitestSuiteRun runs the test files in one vitest process, JUnit XML for the judge.
// The test files are the base's; the vitest configuration is the tree's, so a coder
// could change what it runs there (test.exclude can name vitest.config.* to take the
// base's instead).
func vitestSuiteRun(p SuitePlan) string {
	var b strings.Builder
	b.WriteString("vitest run --reporter=default --reporter=junit --outputFile.junit=" + vitestReport)
	for _, u := range p.Units {
		b.WriteString(" " + shellQuote(u.Name))
	}
	return b.String()
}

// vitestSuiteRead names each test case "file::describe > name", as vitest's JUnit
// report gives them (classname is the file).
func vitestSuiteRead(src string, _ SuitePlan) ([]SuiteCase, string, error) {
	data, err := readSuiteFile(src, vitestReport)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "vitest wrote no report: it could not start, or found no test file", nil
	}
	if err != nil {
		return nil, "vitest's report could not be read: " + err.Error(), nil
	}
	cases, err := reports.JUnitCases(data)
	if err != nil {
		return nil, "vitest's report is not whole JUnit XML: " + err.Error(), nil
	}
	return junitCases(cases, func(c reports.Case) string { return c.Class + "::" + c.Name }), "", nil
}
