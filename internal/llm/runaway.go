package llm

import "fmt"

// RunawayLimits bound a reply before it is cut off with ErrRunaway. Small local models in
// particular fall into loops (endless blank lines, one sentence over and over) and would
// otherwise stream until max_tokens, burning time and tokens for nothing. A zero field takes
// its default; a negative one disables that check.
//
// The detector is incremental and cheap: whitespace runs are counted as bytes arrive; the
// size is a running sum; repetition is checked every checkEvery bytes on the last
// runawayWindow bytes of each channel (content, each tool call's arguments, reasoning) with
// a KMP prefix function over the reversed tail, which gives, in O(window), the smallest
// period of every suffix. A suffix of length k whose smallest period p, rounded up to a
// chunk of at least MinRepeatLen bytes, repeats more than MaxRepeats times back to back is
// a loop. Units made only of whitespace are left to the whitespace rule, so indentation
// and blank lines are judged by MaxWhitespaceRun alone. Repeats longer than
// runawayWindow/(MaxRepeats+1) bytes are not seen by this rule; MaxBytes still ends them.
type RunawayLimits struct {
	MaxWhitespaceRun int // consecutive whitespace bytes; default 2000
	MinRepeatLen     int // shortest chunk counted as a repeat; default 20
	MaxRepeats       int // back-to-back repeats allowed; default 50
	MaxBytes         int // whole reply (all channels); default 256 KiB
}

const (
	runawayWindow = 16 << 10 // tail inspected for repetition
	checkEvery    = 1 << 10  // bytes between repetition checks
)

func (l RunawayLimits) withDefaults() RunawayLimits {
	def := func(v, d int) int {
		if v == 0 {
			return d
		}
		return v
	}
	l.MaxWhitespaceRun = def(l.MaxWhitespaceRun, 2000)
	l.MinRepeatLen = def(l.MinRepeatLen, 20)
	l.MaxRepeats = def(l.MaxRepeats, 50)
	l.MaxBytes = def(l.MaxBytes, 256<<10)
	return l
}

// runawayGuard watches every channel of one reply.
type runawayGuard struct {
	lim      RunawayLimits
	total    int
	channels map[string]*channelWatch
}

func newRunawayGuard(lim RunawayLimits) *runawayGuard {
	return &runawayGuard{lim: lim.withDefaults(), channels: map[string]*channelWatch{}}
}

// write feeds s, a piece of the named channel, and reports a runaway as ErrRunaway.
func (g *runawayGuard) write(channel, s string) error {
	if s == "" {
		return nil
	}
	g.total += len(s)
	if g.lim.MaxBytes > 0 && g.total > g.lim.MaxBytes {
		return fmt.Errorf("%w: reply exceeds %d bytes", ErrRunaway, g.lim.MaxBytes)
	}
	w := g.channels[channel]
	if w == nil {
		w = &channelWatch{lim: g.lim}
		g.channels[channel] = w
	}
	if err := w.write(s); err != nil {
		return fmt.Errorf("%w (in %s)", err, channel)
	}
	return nil
}

// finish runs the repetition check on what arrived since the last one, so a reply that
// ends between two periodic checks is judged too.
func (g *runawayGuard) finish() error {
	for name, w := range g.channels {
		if w.sinceCheck == 0 || w.lim.MaxRepeats < 0 || w.lim.MinRepeatLen < 0 {
			continue
		}
		w.sinceCheck = 0
		if err := w.checkRepeat(); err != nil {
			return fmt.Errorf("%w (in %s)", err, name)
		}
	}
	return nil
}

// channelWatch is the state of one stream of text.
type channelWatch struct {
	lim        RunawayLimits
	tail       []byte
	wsRun      int
	sinceCheck int
	pi         []int // reused prefix-function buffer
	rev        []byte
}

func (w *channelWatch) write(s string) error {
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			w.wsRun++
			if w.lim.MaxWhitespaceRun > 0 && w.wsRun > w.lim.MaxWhitespaceRun {
				return fmt.Errorf("%w: more than %d consecutive whitespace characters",
					ErrRunaway, w.lim.MaxWhitespaceRun)
			}
		} else {
			w.wsRun = 0
		}
	}
	if w.lim.MaxRepeats < 0 || w.lim.MinRepeatLen < 0 {
		return nil
	}
	// Feed in checkEvery-sized pieces so one huge write is judged like a stream.
	for len(s) > 0 {
		n := min(len(s), checkEvery-w.sinceCheck)
		w.tail = append(w.tail, s[:n]...)
		w.sinceCheck += n
		s = s[n:]
		if len(w.tail) > 2*runawayWindow {
			w.tail = append(w.tail[:0], w.tail[len(w.tail)-runawayWindow:]...)
		}
		if w.sinceCheck >= checkEvery {
			w.sinceCheck = 0
			if err := w.checkRepeat(); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRepeat looks for a suffix of the tail made of one chunk repeated too often.
func (w *channelWatch) checkRepeat() error {
	t := w.tail
	if len(t) > runawayWindow {
		t = t[len(t)-runawayWindow:]
	}
	n := len(t)
	w.rev = w.rev[:0]
	for i := n - 1; i >= 0; i-- {
		w.rev = append(w.rev, t[i])
	}
	r := w.rev
	if cap(w.pi) < n {
		w.pi = make([]int, n)
	}
	pi := w.pi[:n]
	pi[0] = 0
	for i := 1; i < n; i++ {
		k := pi[i-1]
		for k > 0 && r[i] != r[k] {
			k = pi[k-1]
		}
		if r[i] == r[k] {
			k++
		}
		pi[i] = k
	}
	for k := n; k >= 1; k-- {
		p := k - pi[k-1] // smallest period of the last k bytes
		chunk := p * ((w.lim.MinRepeatLen + p - 1) / p)
		if k < (w.lim.MaxRepeats+1)*chunk || allSpace(r[:p]) {
			continue
		}
		return fmt.Errorf("%w: a %d-byte chunk repeated %d times in a row (%q)",
			ErrRunaway, chunk, k/chunk, preview(t[n-chunk:]))
	}
	return nil
}

func isSpace(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return true
	}
	return false
}

func allSpace(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

func preview(b []byte) string {
	const max = 40
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
