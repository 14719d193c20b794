package ci

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// parseFraming reads the framing lines (^V already removed) that a Go test binary
// writes under -test.v=test2json: "=== RUN   TestX" when a test starts, "--- PASS: TestX
// (0.00s)" when it ends, and "PASS" or "FAIL" once every test has finished.
func parseFraming(lines []byte) runnerReport {
	var r runnerReport
	open := map[string]int{} // tests started and not yet finished
	for _, line := range strings.Split(string(lines), "\n") {
		line = strings.TrimRight(line, " \r")
		if line == "" {
			continue
		}
		if r.complete && !strings.HasPrefix(line, "=== NAME") {
			r.trailing = true
		}
		if line == "PASS" || line == "FAIL" {
			r.summary, r.complete = strings.ToLower(line), true
		} else if name, ok := strings.CutPrefix(line, "=== RUN   "); ok {
			r.started = append(r.started, name)
			open[name]++
		} else if t, ok := framedResult(line); ok {
			r.tests = append(r.tests, t)
			open[t.name]--
		}
	}
	for _, name := range r.started {
		if open[name] > 0 {
			r.unfinished = append(r.unfinished, name)
			open[name] = 0
		}
	}
	return r
}

// framedResult reads a "--- PASS: TestX (0.00s)" line.
func framedResult(line string) (testResult, bool) {
	for _, o := range []struct{ prefix, outcome string }{
		{"--- PASS: ", "pass"}, {"--- FAIL: ", "fail"}, {"--- SKIP: ", "skip"},
	} {
		if rest, ok := strings.CutPrefix(line, o.prefix); ok {
			if i := strings.LastIndex(rest, " ("); i >= 0 {
				rest = rest[:i]
			}
			return testResult{name: rest, outcome: o.outcome}, true
		}
	}
	return testResult{}, false
}

// test2jsonEvent is the part of a `go test -json` event the judge reads.
type test2jsonEvent struct {
	Action string
	Test   string
}

// parseTest2JSON reads the JSON events of `go test -json` or `go tool test2json`, one
// per line; the package's own pass or fail event closes the report.
func parseTest2JSON(data []byte) runnerReport {
	var r runnerReport
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev test2jsonEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			return runnerReport{damaged: fmt.Sprintf("line %d is not a test2json event", i+1)}
		}
		switch ev.Action {
		case "pass", "fail", "skip":
			if ev.Test == "" {
				r.summary, r.complete = ev.Action, true
				if ev.Action == "skip" { // a package without test files
					r.summary = ""
				}
				continue
			}
			r.tests = append(r.tests, testResult{name: ev.Test, outcome: ev.Action})
		}
	}
	return r
}
