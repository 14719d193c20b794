package contract

import (
	"fmt"
	"strings"
)

// The reports a contract can name (Contract.Report).
const (
	ReportTest2JSON = "test2json"
	ReportJUnit     = "junit"
	ReportTAP       = "tap"
	ReportNone      = "none"
)

// reportPlaceholder in Run is where the runner writes its report.
const reportPlaceholder = "{report}"

// reportVar is the wrapper's shell variable holding the path {report} stands for. The
// wrapper sets it before each run, to a file outside the tree that it sends to the judge
// after the run; it is double-quoted, so a path with spaces stays one word.
const reportVar = `"$dixit_report"`

// CheckReport says what is wrong with a contract's report setting, in the words of
// dixit.yml: an unknown format, a format that must be written to {report} but is not,
// or {report} with no format to read it as.
func (c Contract) CheckReport() error {
	named := strings.Contains(c.Run, reportPlaceholder)
	switch c.Report {
	case ReportTest2JSON:
		if !named && !strings.Contains(c.Run, "-test.v=test2json") {
			return fmt.Errorf("report test2json reads what a Go test binary prints with -test.v=test2json: " +
				"add that flag to run, or write go test -json to {report}")
		}
	case ReportJUnit, ReportTAP:
		if !named {
			return fmt.Errorf("report %s is read from a file: put %s in run where the runner writes it (for example --junitxml=%s)",
				c.Report, reportPlaceholder, reportPlaceholder)
		}
	case "", ReportNone:
		if named {
			return fmt.Errorf("run writes a report to %s but report is %q: name its format (test2json, junit or tap)",
				reportPlaceholder, c.Report)
		}
	default:
		return fmt.Errorf("unknown report %q: want test2json, junit, tap or none", c.Report)
	}
	return nil
}

// Proven reports whether the contract's runs need a report to pass.
func (c Contract) Proven() bool { return c.Report != "" && c.Report != ReportNone }

// ReportFromOutput reports whether a run's report is read from its output (the framing
// lines of a Go test binary's -test.v=test2json mode) rather than from {report}.
func (c Contract) ReportFromOutput() bool {
	return c.Report == ReportTest2JSON && !strings.Contains(c.Run, reportPlaceholder)
}
