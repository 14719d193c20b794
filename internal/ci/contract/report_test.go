package contract

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckReport(t *testing.T) {
	cases := []struct {
		c    Contract
		want string // "" when valid
	}{
		{Contract{Run: "./dixit.test -test.v=test2json", Report: ReportTest2JSON}, ""},
		{Contract{Run: "go test -json . > {report}", Report: ReportTest2JSON}, ""},
		{Contract{Run: "go test -json .", Report: ReportTest2JSON}, "add that flag to run"},
		{Contract{Run: "pytest --junitxml={report}", Report: ReportJUnit}, ""},
		{Contract{Run: "pytest", Report: ReportJUnit}, "put {report} in run"},
		{Contract{Run: "make test", Report: ""}, ""},
		{Contract{Run: "make test", Report: ReportNone}, ""},
		{Contract{Run: "prove --archive {report}", Report: ReportNone}, "name its format"},
		{Contract{Run: "make test", Report: "xunit"}, `unknown report "xunit"`},
	}
	for _, c := range cases {
		err := c.c.CheckReport()
		if c.want == "" {
			assert.NoError(t, err, c.c.Run)
		} else if assert.Error(t, err, c.c.Run) {
			assert.Contains(t, err.Error(), c.want)
		}
	}
}
