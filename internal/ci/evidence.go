package ci

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"sync"

	"github.com/dixit-bot/dixit/internal/ci/reports"
)

// missingReport is why a run that exited 0 without any report is not a pass.
const missingReport = "the test report is missing: the code under test may have ended the process early"

// evidence judges the runs of one invocation on their runner's reports, each as soon as
// its report is complete, and keeps only the judgement: a thousand reruns hold one
// report in memory at a time. Reports arrive from the output (a Go test binary's framing
// lines, split into runs at the wrapper's separator) or from the wrapper's report pipe
// (the file the runner wrote to {report}, sent in base64 after each run).
type evidence struct {
	format     string // ReportTest2JSON, ReportJUnit or ReportTAP
	fromOutput bool
	expect     expectation

	mu       sync.Mutex
	cur      []byte           // the report being received
	over     bool             // cur outgrew reports.MaxReport
	broken   bool             // a line of a file report did not decode
	unread   bool             // the wrapper could not read the report file
	unframe  reports.Unframer // output: the framing lines
	ended    int              // output: runs whose separator was seen
	block    int              // pipe: the run whose report is arriving, 0 when none
	problems map[int]string
}

func newEvidence(c Contract, expect expectation) *evidence {
	return &evidence{format: c.Report, fromOutput: c.ReportFromOutput(), expect: expect, problems: map[int]string{}}
}

// FromOutput reports whether the runs' reports come in their output (sandbox.Reports).
func (e *evidence) FromOutput() bool { return e.fromOutput }

// Output takes a run's output as it arrives and keeps its framing lines.
func (e *evidence) Output(p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.unframe.Feed(p, e.keep)
}

// EndRun closes a run's output at the wrapper's separator and judges its report.
func (e *evidence) EndRun() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.unframe.End(e.keep)
	e.ended++
	e.record(e.ended, e.judge(e.ended))
}

// record keeps run's judgement.
func (e *evidence) record(run int, problem string) { e.problems[run] = problem }

// Failed says whether run's report showed it did not pass, once it has been judged
// (sandbox.Stopper): the sandbox then stops the reruns there.
func (e *evidence) Failed(run int) (failed, known bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	problem, known := e.problems[run]
	return problem != "", known
}

// StartBlock begins the report of run (an "R run" line on the report pipe).
func (e *evidence) StartBlock(run int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.block, e.cur, e.over, e.broken, e.unread = run, e.cur[:0], false, false, false
}

// BlockLine takes one base64 line of the report that is arriving.
func (e *evidence) BlockLine(line string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.block == 0 {
		return
	}
	b, err := base64.StdEncoding.DecodeString(line)
	if err != nil {
		e.broken = true
		return
	}
	e.keep(b)
}

// BlockUnread notes that the wrapper found the report but could not send it.
func (e *evidence) BlockUnread() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.unread = e.block != 0
}

// EndBlock judges the report that arrived. A second report for the same run can only
// come from the code under test (it can reach the pipe): the run then proves nothing.
func (e *evidence) EndBlock() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.block == 0 {
		return
	}
	problem := e.judge(e.block)
	if _, seen := e.problems[e.block]; seen {
		problem = "the test report arrived twice: something other than the test runner wrote it"
	}
	e.record(e.block, problem)
	e.block = 0
}

func (e *evidence) keep(b []byte) {
	if len(e.cur)+len(b) > reports.MaxReport {
		e.over = true
		return
	}
	e.cur = append(e.cur, b...)
}

// judge says why the report received so far, of run, does not prove a pass ("" when it
// does), and starts afresh.
func (e *evidence) judge(run int) string {
	defer func() { e.cur, e.over, e.broken, e.unread = e.cur[:0], false, false, false }()
	switch {
	case e.unread:
		return "the test report could not be read in the sandbox (it is unreadable, or base64 from coreutils is missing there)"
	case e.over:
		return fmt.Sprintf("the test report is larger than %d bytes", reports.MaxReport)
	case e.broken:
		return "the test report did not arrive whole"
	case len(bytes.TrimSpace(e.cur)) == 0:
		return missingReport
	}
	var r reports.Run
	switch e.format {
	case ReportTest2JSON:
		if e.fromOutput {
			r = reports.Framing(e.cur)
		} else {
			r = reports.Test2JSON(e.cur)
		}
	case ReportJUnit:
		r = reports.JUnit(e.cur)
	case ReportTAP:
		r = reports.TAP(e.cur)
	default:
		return fmt.Sprintf("unknown report format %q", e.format)
	}
	return e.expect.problem(r, run)
}

// firstProblem returns the first of runs whose report does not prove a pass, with why;
// run 0 when every run is proven.
func (e *evidence) firstProblem(runs int) (int, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k := 1; k <= runs; k++ {
		problem, ok := e.problems[k]
		if !ok {
			problem = missingReport
		}
		if problem != "" {
			return k, problem
		}
	}
	// Only the wrapper prints the separator, once per run; more of them means the code
	// under test printed it to pass off its own output as a run's.
	if e.fromOutput && e.ended > runs {
		return runs, "the output holds more run separators than there were runs: the code under test printed the judge's own"
	}
	return 0, ""
}
