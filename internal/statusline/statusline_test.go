package statusline

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// screen is what a terminal shows after the bytes written so far: it understands
// printable text, "\n", "\r" and "\x1b[K" (erase to the end of the line), and fails the
// test on any other escape sequence.
func screen(t *testing.T, out string) []string {
	t.Helper()
	lines := []string{""}
	col := 0
	for len(out) > 0 {
		cur := []rune(lines[len(lines)-1])
		switch {
		case strings.HasPrefix(out, "\x1b[K"):
			lines[len(lines)-1] = string(cur[:min(col, len(cur))])
			out = out[3:]
			continue
		case out[0] == '\x1b':
			t.Fatalf("unexpected escape sequence in %q", out)
		case out[0] == '\r':
			col = 0
		case out[0] == '\n':
			lines = append(lines, "")
			col = 0
		default:
			r := []rune(out)[0]
			for len(cur) < col {
				cur = append(cur, ' ')
			}
			if col < len(cur) {
				cur[col] = r
			} else {
				cur = append(cur, r)
			}
			lines[len(lines)-1] = string(cur)
			col++
			out = out[len(string(r)):]
			continue
		}
		out = out[1:]
	}
	return lines
}

func terminal(width int) (*Display, *bytes.Buffer, *fakeClock) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)}
	return newDisplay(&out, true, func() int { return width }, clock.now), &out, clock
}

func TestTerminalRedrawsTheStatusLineInPlace(t *testing.T) {
	d, out, clock := terminal(80)
	fmt.Fprintln(d, "── round 1 · vetted suite: 0 tests")
	d.Set(Stage, "round 1")
	d.Set(Work, "judging ivy-1 on 5 coders (1/5)")
	clock.advance(3 * time.Second)
	d.tick()
	assert.Equal(t, []string{"── round 1 · vetted suite: 0 tests", "round 1 · judging ivy-1 on 5 coders (1/5) · 0:03"}, screen(t, out.String()))

	d.Set(Work, "judging ivy-1 on 5 coders (4/5)")
	clock.advance(39 * time.Second)
	d.tick()
	assert.Equal(t, []string{"── round 1 · vetted suite: 0 tests", "round 1 · judging ivy-1 on 5 coders (4/5) · 0:42"}, screen(t, out.String()),
		"one line, redrawn over the old one")

	// A permanent line goes above the status line, which comes back at the next redraw.
	fmt.Fprintln(d, "  ivy      proposes ivy-1    → TOO_WEAK 5/5 pass")
	assert.Equal(t, []string{"── round 1 · vetted suite: 0 tests", "  ivy      proposes ivy-1    → TOO_WEAK 5/5 pass", ""}, screen(t, out.String()))
	d.Set(Work, "judging ivy-2 on 5 coders (1/5)")
	d.tick()
	assert.Equal(t, []string{"── round 1 · vetted suite: 0 tests", "  ivy      proposes ivy-1    → TOO_WEAK 5/5 pass",
		"round 1 · judging ivy-2 on 5 coders (1/5) · 0:42"}, screen(t, out.String()))

	// Closing clears it: the summary that follows starts on a clean line.
	d.Close()
	assert.Equal(t, []string{"── round 1 · vetted suite: 0 tests", "  ivy      proposes ivy-1    → TOO_WEAK 5/5 pass", ""}, screen(t, out.String()))
	fmt.Fprintln(d, "Outcome: TESTERS_EXHAUSTED")
	assert.Equal(t, "Outcome: TESTERS_EXHAUSTED", screen(t, out.String())[2])
}

func TestTerminalNeverDrawsInsideAHalfWrittenLine(t *testing.T) {
	d, out, _ := terminal(80)
	d.Set(Work, "coders solving (2/5): basil")
	d.tick()
	fmt.Fprint(d, "dual agreement: ")
	d.tick()
	fmt.Fprint(d, "5 implementations\n")
	assert.Equal(t, []string{"dual agreement: 5 implementations", ""}, screen(t, out.String()))
}

func TestTerminalRedrawsAtMostOncePerTick(t *testing.T) {
	d, out, clock := terminal(80)
	for i := range 1000 {
		d.Set(Work, fmt.Sprintf("running 1000 tests on basil (%d/1000)", i+1))
	}
	assert.Empty(t, out.String(), "changes wait for the next redraw")
	d.tick()
	assert.Equal(t, 1, strings.Count(out.String(), "\r"), "a thousand changes, one redraw")
	d.tick()
	assert.Equal(t, 1, strings.Count(out.String(), "\r"), "nothing changed, nothing drawn")
	clock.advance(time.Second)
	d.tick()
	assert.Equal(t, 2, strings.Count(out.String(), "\r"), "the clock moved")
	assert.LessOrEqual(t, redraw, 100*time.Millisecond, "at most ten redraws a second")
}

func TestTerminalCutsTheLineToItsWidth(t *testing.T) {
	d, out, _ := terminal(24)
	d.Set(Scope, "eval: clamp · dixit")
	d.Set(Stage, "round 2")
	d.Set(Work, "judging tom-1 on 3 coders (2/3)")
	d.tick()
	last := screen(t, out.String())[0]
	assert.Equal(t, "eval: clamp · dixit · …", last)
	assert.Less(t, len([]rune(last)), 24, "the last column is left free: writing it wraps some terminals")
}

func TestPlainOutputHasNoControlCharacters(t *testing.T) {
	var out bytes.Buffer
	clock := &fakeClock{t: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)}
	d := newDisplay(&out, false, nil, clock.now)
	fmt.Fprintln(d, "── round 1 · vetted suite: 0 tests")
	d.Set(Stage, "round 1")
	d.Set(Work, "judging ivy-1 on 5 coders (1/5)")
	for range 10 {
		clock.advance(time.Second)
		d.tick()
	}
	assert.Equal(t, "── round 1 · vetted suite: 0 tests\n", out.String(), "a short wait prints nothing more")

	// A long quiet spell gets a line saying what still runs, then one per spell at most.
	for range 40 {
		clock.advance(time.Second)
		d.tick()
	}
	fmt.Fprintln(d, "  ivy      proposes ivy-1    → TOO_WEAK 5/5 pass")
	d.Close()
	assert.Equal(t, "── round 1 · vetted suite: 0 tests\n"+
		"  … round 1 · judging ivy-1 on 5 coders (1/5) · 0:15\n"+
		"  … round 1 · judging ivy-1 on 5 coders (1/5) · 0:30\n"+
		"  … round 1 · judging ivy-1 on 5 coders (1/5) · 0:45\n"+
		"  ivy      proposes ivy-1    → TOO_WEAK 5/5 pass\n", out.String())
	assert.NotContains(t, out.String(), "\r")
	assert.NotContains(t, out.String(), "\x1b")
}

func TestNewOnAFileThatIsNoTerminalWritesPlainLines(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	d := New(f)
	d.Set(Work, "differential probe on 5 implementations (2/5)")
	fmt.Fprintln(d, "differential testing: 12 inputs, 4 on which the implementations disagree")
	time.Sleep(2 * redraw)
	d.Close()
	data, err := os.ReadFile(f.Name())
	require.NoError(t, err)
	assert.Equal(t, "differential testing: 12 inputs, 4 on which the implementations disagree\n", string(data))
}

func TestClock(t *testing.T) {
	assert.Equal(t, "0:07", clock(7*time.Second))
	assert.Equal(t, "12:05", clock(12*time.Minute+5*time.Second))
	assert.Equal(t, "1:02:03", clock(time.Hour+2*time.Minute+3*time.Second))
}
