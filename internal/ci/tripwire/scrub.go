package tripwire

import (
	"bytes"
	"regexp"
)

// pytestSection starts a section of pytest's failure report ("____ test_x ____") or
// its summary ("==== short test summary info ====").
var pytestSection = regexp.MustCompile(`^(?:_{3,} .* _{3,}|={3,}.*)$`)

// Scrub takes the wires out of a run's output, so that a person reading why the
// proposal failed reads about the proposal: a Go wire's lines from its "=== RUN" to its
// result line, a pytest wire's failure section, and any other line that names a wire.
// The counts in the runner's summary still include them.
func Scrub(output []byte, wires []Wire) []byte {
	if len(wires) == 0 || len(output) == 0 {
		return output
	}
	names := make([][]byte, len(wires))
	for i, w := range wires {
		names[i] = []byte(w.Name)
	}
	named := func(line []byte) []byte {
		for _, n := range names {
			if bytes.Contains(line, n) {
				return n
			}
		}
		return nil
	}
	var out bytes.Buffer
	var inGo []byte   // inside a Go wire's block: its name
	inPython := false // inside a pytest wire's failure section
	for _, line := range bytes.SplitAfter(output, []byte("\n")) {
		trimmed := bytes.TrimRight(bytes.TrimLeft(line, "\x16"), "\r\n")
		switch {
		case inGo != nil:
			if bytes.Contains(trimmed, []byte("--- ")) && bytes.Contains(trimmed, inGo) {
				inGo = nil
			}
			continue
		case inPython && !pytestSection.Match(trimmed):
			continue
		}
		inPython = false
		n := named(trimmed)
		switch {
		case n == nil:
			out.Write(line)
		case bytes.HasPrefix(trimmed, []byte("=== RUN")):
			inGo = n
		case pytestSection.Match(trimmed):
			inPython = true
		}
	}
	return out.Bytes()
}
