package ci

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"sync"
)

// maxReport bounds one run's report as the judge holds it; a larger one proves nothing.
const maxReport = 1 << 20

// missingReport is why a run that exited 0 without any report is not a pass.
const missingReport = "the test report is missing: the code under test may have ended the process early"

// framingByte starts each line a Go test binary writes about its tests under
// -test.v=test2json (^V).
const framingByte = 0x16

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
	cur      []byte // the report being received
	over     bool   // cur outgrew maxReport
	broken   bool   // a line of a file report did not decode
	unread   bool   // the wrapper could not read the report file
	framing  bool   // output: inside a framing line
	ended    int    // output: runs whose separator was seen
	block    int    // pipe: the run whose report is arriving, 0 when none
	problems map[int]string
}

func newEvidence(c Contract, expect expectation) *evidence {
	return &evidence{format: c.Report, fromOutput: c.reportFromOutput(), expect: expect, problems: map[int]string{}}
}

// output takes a run's output as it arrives and keeps its framing lines, without the
// framing byte. A framing line runs from ^V to the end of the line; the test binary
// writes one even after output that does not end in a newline.
func (e *evidence) output(p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for len(p) > 0 {
		if !e.framing {
			i := bytes.IndexByte(p, framingByte)
			if i < 0 {
				return
			}
			e.framing, p = true, p[i+1:]
			continue
		}
		j := bytes.IndexAny(p, "\n\x16")
		if j < 0 {
			e.keep(p)
			return
		}
		e.keep(p[:j])
		e.keep([]byte{'\n'})
		e.framing = p[j] == framingByte
		p = p[j+1:]
	}
}

// endRun closes a run's output at the wrapper's separator and judges its report.
func (e *evidence) endRun() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.framing {
		e.keep([]byte{'\n'})
		e.framing = false
	}
	e.ended++
	e.problems[e.ended] = e.judge()
}

// startBlock begins the report of run (an "R run" line on the report pipe).
func (e *evidence) startBlock(run int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.block, e.cur, e.over, e.broken, e.unread = run, e.cur[:0], false, false, false
}

// blockLine takes one base64 line of the report that is arriving.
func (e *evidence) blockLine(line string) {
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

// blockUnread notes that the wrapper found the report but could not send it.
func (e *evidence) blockUnread() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.unread = e.block != 0
}

// endBlock judges the report that arrived. A second report for the same run can only
// come from the code under test (it can reach the pipe): the run then proves nothing.
func (e *evidence) endBlock() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.block == 0 {
		return
	}
	problem := e.judge()
	if _, seen := e.problems[e.block]; seen {
		problem = "the test report arrived twice: something other than the test runner wrote it"
	}
	e.problems[e.block], e.block = problem, 0
}

func (e *evidence) keep(b []byte) {
	if len(e.cur)+len(b) > maxReport {
		e.over = true
		return
	}
	e.cur = append(e.cur, b...)
}

// judge says why the report received so far does not prove a pass ("" when it does),
// and starts afresh.
func (e *evidence) judge() string {
	defer func() { e.cur, e.over, e.broken, e.unread = e.cur[:0], false, false, false }()
	switch {
	case e.unread:
		return "the test report could not be read in the sandbox (it is unreadable, or base64 from coreutils is missing there)"
	case e.over:
		return fmt.Sprintf("the test report is larger than %d bytes", maxReport)
	case e.broken:
		return "the test report did not arrive whole"
	case len(bytes.TrimSpace(e.cur)) == 0:
		return missingReport
	}
	var r runnerReport
	switch e.format {
	case ReportTest2JSON:
		if e.fromOutput {
			r = parseFraming(e.cur)
		} else {
			r = parseTest2JSON(e.cur)
		}
	case ReportJUnit:
		r = parseJUnit(e.cur)
	case ReportTAP:
		r = parseTAP(e.cur)
	default:
		return fmt.Sprintf("unknown report format %q", e.format)
	}
	return e.expect.problem(r)
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
