package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Framing reads the framing lines (^V already removed) that a Go test binary
// writes under -test.v=test2json: "=== RUN   TestX" when a test starts, "--- PASS: TestX
// (0.00s)" when it ends, and "PASS" or "FAIL" once every test has finished.
func Framing(lines []byte) Run {
	var r Run
	open := map[string]int{} // tests started and not yet finished
	for _, line := range strings.Split(string(lines), "\n") {
		line = strings.TrimRight(line, " \r")
		if line == "" {
			continue
		}
		if r.Complete && !strings.HasPrefix(line, "=== NAME") {
			r.Trailing = true
		}
		if line == "PASS" || line == "FAIL" {
			r.Summary, r.Complete = strings.ToLower(line), true
		} else if name, ok := strings.CutPrefix(line, "=== RUN   "); ok {
			r.Started = append(r.Started, name)
			open[name]++
		} else if t, ok := framedResult(line); ok {
			r.Tests = append(r.Tests, t)
			open[t.Name]--
		}
	}
	for _, name := range r.Started {
		if open[name] > 0 {
			r.Unfinished = append(r.Unfinished, name)
			open[name] = 0
		}
	}
	return r
}

// framedResult reads a "--- PASS: TestX (0.00s)" line.
func framedResult(line string) (Result, bool) {
	for _, o := range []struct{ prefix, outcome string }{
		{"--- PASS: ", "pass"}, {"--- FAIL: ", "fail"}, {"--- SKIP: ", "skip"},
	} {
		if rest, ok := strings.CutPrefix(line, o.prefix); ok {
			if i := strings.LastIndex(rest, " ("); i >= 0 {
				rest = rest[:i]
			}
			return Result{Name: rest, Outcome: o.outcome}, true
		}
	}
	return Result{}, false
}

// test2jsonEvent is the part of a `go test -json` event the judge reads.
type test2jsonEvent struct {
	Action string
	Test   string
}

// Test2JSON reads the JSON events of `go test -json` or `go tool test2json`, one
// per line; the package's own pass or fail event closes the report.
func Test2JSON(data []byte) Run {
	var r Run
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev test2jsonEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			return Run{Damaged: fmt.Sprintf("line %d is not a test2json event", i+1)}
		}
		switch ev.Action {
		case "pass", "fail", "skip":
			if ev.Test == "" {
				r.Summary, r.Complete = ev.Action, true
				if ev.Action == "skip" { // a package without test files
					r.Summary = ""
				}
				continue
			}
			r.Tests = append(r.Tests, Result{Name: ev.Test, Outcome: ev.Action})
		}
	}
	return r
}

// Unframer keeps the framing lines of a Go test binary's output, without the framing
// byte, as the output arrives in pieces. A framing line runs from ^V to the end of the
// line; the test binary writes one even after output that does not end in a newline.
type Unframer struct {
	framing bool // inside a framing line
}

// Feed hands keep the framing lines' bytes in p, a piece at a time.
func (u *Unframer) Feed(p []byte, keep func([]byte)) {
	for len(p) > 0 {
		if !u.framing {
			i := bytes.IndexByte(p, FramingByte)
			if i < 0 {
				return
			}
			u.framing, p = true, p[i+1:]
			continue
		}
		j := bytes.IndexAny(p, "\n\x16")
		if j < 0 {
			keep(p)
			return
		}
		keep(p[:j])
		keep([]byte{'\n'})
		u.framing = p[j] == FramingByte
		p = p[j+1:]
	}
}

// End closes a run's output: a framing line the output broke off in gets its newline.
func (u *Unframer) End(keep func([]byte)) {
	if u.framing {
		keep([]byte{'\n'})
		u.framing = false
	}
}

// FramedOutput reads the framing lines of a whole output, up to MaxReport bytes of them.
func FramedOutput(output []byte) Run {
	var lines []byte
	var u Unframer
	u.Feed(output, func(b []byte) {
		if len(lines)+len(b) <= MaxReport {
			lines = append(lines, b...)
		}
	})
	return Framing(lines)
}
