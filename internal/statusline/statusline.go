// Package statusline keeps one line at the bottom of a terminal up to date while long
// work runs (what runs now, how far it got, the time elapsed), with permanent lines
// printed above it. Anywhere else (a pipe, a CI log, a test's buffer) it writes plain
// lines and no control characters.
package statusline

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"
)

// Part is a place in the status line. Each is set by whoever knows it, and the line shows
// them in this order.
type Part int

const (
	Scope Part = iota // what the whole command works on: "eval: clamp · dixit"
	Stage             // where the work is: "round 2"
	Work              // what runs now: "judging ivy-3 on 5 coders (3/5)"
	numParts
)

const (
	// redraw is how often a terminal's line may change: at most ten times a second, and
	// once a second at least while something is shown, for the clock.
	redraw = 100 * time.Millisecond
	// quiet is how long plain output stays silent before it says what still runs, and
	// how often at most it says so: a CI log shows life without filling up.
	quiet = 15 * time.Second
	// clearLine returns to the start of the line and erases it.
	clearLine = "\r\x1b[K"
)

// Display is a status line on w. Its methods are safe for concurrent use; Set and Close
// on a nil Display do nothing, so a caller without one needs no checks.
type Display struct {
	mu      sync.Mutex
	w       io.Writer
	live    bool       // a terminal: the line is redrawn in place
	width   func() int // the terminal's columns; 0 when it cannot say
	now     func() time.Time
	start   time.Time
	parts   [numParts]string
	shown   string    // what the terminal's last line shows; "" when it is clear
	said    time.Time // plain: when the last line was written
	partial []byte    // terminal: the start of a line whose newline has not come yet
	closed  bool

	stop, done chan struct{}
}

// New makes a display on w: a live status line when w is a terminal, plain lines
// otherwise. Close it when the work is over.
func New(w io.Writer) *Display {
	d := newDisplay(w, false, nil, time.Now)
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) && os.Getenv("TERM") != "dumb" {
		d.live = true
		d.width = func() int {
			cols, _, err := term.GetSize(int(f.Fd()))
			if err != nil {
				return 0
			}
			return cols
		}
	}
	every := quiet / 5
	if d.live {
		every = redraw
	}
	d.stop, d.done = make(chan struct{}), make(chan struct{})
	go d.loop(every)
	return d
}

// newDisplay makes a display that only changes the screen when tick is called: tests
// drive it with their own clock.
func newDisplay(w io.Writer, live bool, width func() int, now func() time.Time) *Display {
	start := now()
	return &Display{w: w, live: live, width: width, now: now, start: start, said: start}
}

func (d *Display) loop(every time.Duration) {
	defer close(d.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			d.tick()
		case <-d.stop:
			return
		}
	}
}

// Set changes one part of the status line; "" removes it. The screen follows at the next
// redraw, so any number of changes in between cost one.
func (d *Display) Set(p Part, text string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.parts[p] = text
}

// Text is what the status line says now, elapsed time included; "" when nothing runs.
func (d *Display) Text() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.text()
}

func (d *Display) text() string {
	var parts []string
	for _, p := range d.parts {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(append(parts, clock(d.now().Sub(d.start))), " · ")
}

// Write prints permanent lines. On a terminal the status line makes way for them and
// comes back at the next redraw; a line is held until its newline comes, so the status
// line never lands in the middle of one.
func (d *Display) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.live {
		d.said = d.now()
		return d.w.Write(p)
	}
	d.partial = append(d.partial, p...)
	end := bytes.LastIndexByte(d.partial, '\n')
	if end < 0 {
		return len(p), nil
	}
	lines := d.partial[:end+1]
	if d.shown != "" {
		lines = append([]byte(clearLine), lines...)
		d.shown = ""
	}
	_, err := d.w.Write(lines)
	d.partial = append([]byte(nil), d.partial[end+1:]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// tick brings the screen up to date: a terminal's line is redrawn if its text changed
// (the clock changes it every second); plain output says what runs after a quiet spell.
func (d *Display) tick() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	text := d.text()
	if !d.live {
		if text != "" && d.now().Sub(d.said) >= quiet {
			fmt.Fprintf(d.w, "  … %s\n", text)
			d.said = d.now()
		}
		return
	}
	if len(d.partial) > 0 {
		return // a line is being written; drawing now would land in it
	}
	text = fit(text, d.columns())
	if text == d.shown {
		return
	}
	fmt.Fprint(d.w, clearLine+text)
	d.shown = text
}

// Close clears the status line, so what is printed next starts clean, and stops the
// redraws. The Display still passes lines through afterwards.
func (d *Display) Close() {
	if d == nil {
		return
	}
	if d.stop != nil {
		close(d.stop)
		<-d.done
		d.stop = nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	if !d.live {
		return
	}
	out := string(d.partial)
	if d.shown != "" {
		out = clearLine + out
	}
	d.partial, d.shown = nil, ""
	if out != "" {
		fmt.Fprint(d.w, out)
	}
	d.live = false
}

func (d *Display) columns() int {
	if d.width != nil {
		if n := d.width(); n > 0 {
			return n
		}
	}
	return 80
}

// fit cuts text to fewer columns than the terminal has: writing the last column makes
// some terminals wrap, and a wrapped line cannot be cleared with one carriage return.
func fit(text string, cols int) string {
	limit := cols - 1
	if limit < 1 || utf8.RuneCountInString(text) <= limit {
		return text
	}
	runes := []rune(text)
	return string(runes[:limit-1]) + "…"
}

// clock renders elapsed time as m:ss, or h:mm:ss past an hour.
func clock(d time.Duration) string {
	s := int(d.Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
