package sandbox

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// tail keeps the last max bytes written to it.
type tail struct {
	max int
	buf []byte
}

func newTail(max int) *tail { return &tail{max: max} }

func (t *tail) Write(p []byte) (int, error) {
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max { // compact now and then, not on every write
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) Bytes() []byte {
	if len(t.buf) > t.max {
		return t.buf[len(t.buf)-t.max:]
	}
	return t.buf
}

// runOutput splits an Invocation's output into runs at the wrapper's marker. It keeps
// the tail of the current run and of the last finished one, and calls over once when a
// single run writes more than limit bytes, or all runs together more than budget (when
// set). The marker is visible inside the sandbox (it is an argument of the wrapper), so a
// test can print it to restart the per-run count: the budget does not depend on it.
type runOutput struct {
	marker []byte
	limit  int64
	budget int64 // bytes allowed across all runs; 0 means no such bound
	total  int64
	over   func()
	keep   int // tail bytes kept per run
	cur    *tail
	last   []byte
	count  int64
	carry  []byte // bytes that may be the start of a marker
	fired  bool
	report Reports // takes each run's output for its report; nil: not read
	// ended counts the markers seen, and byRun keeps the tails of the runs by that
	// count, up to runs of them: the run a Stopper stops for may be any number of runs
	// behind on a busy machine, since fast runs go on while its report is judged. A test
	// can print the marker, so the runs past those requested keep nothing.
	ended int
	runs  int
	byRun map[int][]byte
}

func newRunOutput(marker string, limit int64, keep int, over func()) *runOutput {
	return &runOutput{marker: []byte(marker), limit: limit, keep: keep, over: over, cur: newTail(keep)}
}

func (o *runOutput) write(p []byte) {
	data := append(o.carry, p...)
	for {
		i := bytes.Index(data, o.marker)
		if i < 0 {
			break
		}
		o.add(data[:i])
		if o.report != nil {
			o.report.EndRun()
		}
		o.last = append([]byte(nil), o.cur.Bytes()...)
		o.ended++
		if o.ended <= o.runs {
			if o.byRun == nil {
				o.byRun = map[int][]byte{}
			}
			o.byRun[o.ended] = o.last
		}
		o.cur, o.count = newTail(o.keep), 0
		data = data[i+len(o.marker):]
	}
	if keep := len(o.marker) - 1; len(data) > keep {
		o.add(data[:len(data)-keep])
		data = data[len(data)-keep:]
	}
	o.carry = append([]byte(nil), data...)
}

func (o *runOutput) add(b []byte) {
	if o.report != nil {
		o.report.Output(b)
	}
	o.cur.Write(b)
	o.count += int64(len(b))
	o.total += int64(len(b))
	if !o.fired && (o.count > o.limit || o.budget > 0 && o.total > o.budget) {
		o.fired = true
		o.over()
	}
}

// pump feeds r to o until EOF or a read error.
func (o *runOutput) pump(r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		o.write(buf[:n])
		if err != nil {
			o.add(o.carry)
			o.carry = nil
			return
		}
	}
}

// MaxOutput is how much of a run's output the sandbox keeps by default, and what a
// verdict's output may hold (ci.Verdict.Output).
const MaxOutput = 8 << 10

// Clip makes the verdict text: the last bytes of out, then an optional judge note, at
// most max bytes, valid UTF-8.
func Clip(out []byte, note string, max int) string {
	if note != "" {
		note = "\n[dixit] " + note + "\n"
	}
	room := max - len(note)
	if room < 0 {
		room = 0
	}
	// Replacing invalid bytes may lengthen the text, so cut after fixing it. The framing
	// byte a Go test binary writes under -test.v=test2json means nothing to a reader.
	text := strings.ToValidUTF8(string(lastBytes(out, 2*room)), "\uFFFD")
	text = strings.ReplaceAll(text, "\x16", "")
	text = string(lastBytes([]byte(text), room))
	return text + note
}

// lastBytes returns at most n trailing bytes of b, not starting inside a UTF-8 sequence.
func lastBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	b = b[len(b)-n:]
	for i := 0; i < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return b
}
