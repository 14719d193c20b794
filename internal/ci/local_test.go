package ci

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

const passTest = "func TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n"

// TestLocalOutcomes runs every outcome, the hostile tests among them, in one parallel
// batch: the well-behaved jobs must pass while the bombs go off next to them.
func TestLocalOutcomes(t *testing.T) {
	l := newGoJudge(t, 3*time.Second, nil)
	marker := fmt.Sprintf("7777.%06d", rand.IntN(1000000))
	t.Cleanup(func() { killWithArg(marker) })
	broken := goModule().With("x.go", "package x\n\nfunc Add(a, b int) int { return a + }\n")
	cases := []judgeCase{
		{name: "pass and the coder's own failing test is excluded", test: goTest("", passTest), want: []Outcome{Pass}, runs: 20},
		{name: "fail", want: []Outcome{Fail}, runs: 1, output: "Add(2, 3) = 5, want 6",
			test: goTest("", "func TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 6 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 6\", got)\n\t}\n}\n")},
		{name: "early stop at the third run", want: []Outcome{Fail}, runs: 3, output: "run 3 of 20",
			// Each run sees its number (the twins of package tripwire read it too).
			test: goTest("os", `func TestThird(t *testing.T) {
	if os.Getenv("DIXIT_RUN") == "3" {
		t.Fatal("third run fails")
	}
}
`)},
		{name: "tmp is emptied between runs but for the place kept for caches", want: []Outcome{Fail}, runs: 3, output: "kept for 3 runs",
			test: goTest("os path/filepath strconv", `func TestKept(t *testing.T) {
	tmp := os.Getenv("TMPDIR")
	if _, err := os.Stat(filepath.Join(tmp, "left")); err == nil {
		t.Fatal("a file of the run before survived in /tmp")
	}
	if err := os.WriteFile(filepath.Join(tmp, "left"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(tmp, ".dixit-keep")
	if err := os.MkdirAll(keep, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(keep, "count"))
	n, _ := strconv.Atoi(string(b))
	n++
	if err := os.WriteFile(filepath.Join(keep, "count"), []byte(strconv.Itoa(n)), 0o644); err != nil {
		t.Fatal(err)
	}
	if n == 3 {
		t.Fatal("kept for 3 runs")
	}
}
`)},
		{name: "flaky test fails within 20 reruns", want: []Outcome{Fail}, output: "flaked",
			test:  goTest("math/rand", "func TestFlaky(t *testing.T) {\n\tif rand.Intn(2) == 0 {\n\t\tt.Fatal(\"flaked\")\n\t}\n}\n"),
			check: func(t *testing.T, v Verdict) { assert.LessOrEqual(t, v.Runs, 20) }},
		{name: "test does not compile", want: []Outcome{BuildFailed}, output: "undefined: Subtract",
			test:  goTest("", "func TestSub(t *testing.T) { _ = Subtract(1, 2) }\n"),
			check: func(t *testing.T, v Verdict) { assert.Zero(t, v.Runs) }},
		{name: "empty test file", test: []byte{}, want: []Outcome{BuildFailed}, output: "build: exit status"},
		{name: "coder tree does not compile", tree: broken, test: goTest("", passTest), want: []Outcome{BuildFailed}, output: "syntax error"},
		{name: "same test name as another job A", test: goTest("", "func TestSame(t *testing.T) { if Add(1, 1) != 2 { t.Fatal() } }\n"), want: []Outcome{Pass}},
		{name: "same test name as another job B", test: goTest("", "func TestSame(t *testing.T) { if Add(0, 0) != 0 { t.Fatal() } }\n"), want: []Outcome{Pass}},
		{name: "os.Exit(0) in a test is not a pass", test: goTest("os", "func TestExit(t *testing.T) { os.Exit(0) }\n"), want: []Outcome{Fail}},
		{name: "hang times out and leaves no process", want: []Outcome{Timeout}, runs: 1, output: "sleeper started",
			test: goTest("fmt os/exec syscall time", `func TestHang(t *testing.T) {
	cmd := exec.Command("sleep", "`+marker+`")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // escape the process group
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fmt.Println("sleeper started")
	time.Sleep(time.Hour)
}
`),
			check: func(t *testing.T, v Verdict) {
				if !l.sb.Bubblewrap() && !l.sb.Root() {
					t.Skip("without bubblewrap or root a setsid child escapes the kill")
				}
				assert.False(t, processWithArg(marker), "the test's background sleep survived")
			}},
		{name: "fork bomb is contained", dangerous: true, want: []Outcome{Fail, Timeout, OverLimit},
			test: goTest("os/exec time", "func TestBomb(t *testing.T) {\n\texec.Command(\"/bin/sh\", \"-c\", \"f() { f | f & }; f\").Run()\n\ttime.Sleep(time.Hour)\n}\n")},
		{name: "huge stdout", want: []Outcome{OverLimit}, output: "output exceeded",
			test: goTest("os strings", "func TestFlood(t *testing.T) {\n\tline := strings.Repeat(\"y\", 1023) + \"\\n\"\n\tfor i := 0; i < 64<<10; i++ {\n\t\tos.Stdout.WriteString(line)\n\t}\n}\n")},
	}
	runBatch(t, l, 20, cases)
}

// TestMemoryBombIsContained runs alone with a long timeout: next to the other bombs on a
// loaded machine, page faults can be slow enough that the 3 s timeout ends it first, and
// then the test would not show that the memory limit holds.
func TestMemoryBombIsContained(t *testing.T) {
	l := newGoJudge(t, time.Minute, nil)
	// With a memory cgroup the kernel kills the bomb and the judge says why; with an
	// address-space limit Go's runtime dies saying it is out of memory.
	want, output := []Outcome{Fail, OverLimit}, "out of memory"
	if l.sb.MemoryLimited() {
		want, output = []Outcome{OverLimit}, "killed for using more than 2GiB of resident memory (test.memory in dixit.yml raises it)"
	}
	runBatch(t, l, 20, []judgeCase{
		{name: "memory bomb", want: want, output: output,
			test: goTest("", `func TestMemory(t *testing.T) {
	var keep [][]byte
	for i := 0; i < 1024; i++ {
		b := make([]byte, 64<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		keep = append(keep, b)
	}
	t.Log(len(keep))
}
`)},
	})
}

// killWithArg cleans up after a failed leftover check.
func killWithArg(arg string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && slices.Contains(strings.Split(string(data), "\x00"), arg) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestLocalResourceLimits uses small limits so the CPU and file-size limits bite fast.
func TestLocalResourceLimits(t *testing.T) {
	l := newGoJudge(t, 10*time.Second, func(o *LocalOptions) {
		o.Limits = sandbox.Limits{CPU: time.Second, FileSize: 1 << 20}
	})
	cases := []judgeCase{
		{name: "control passes", test: goTest("", passTest), want: []Outcome{Pass}, runs: 2},
		{name: "CPU limit", want: []Outcome{OverLimit}, output: "CPU",
			test: goTest("", "func TestSpin(t *testing.T) {\n\tfor i := 0; ; i++ {\n\t\t_ = i * i\n\t}\n}\n")},
		{name: "file size limit", want: []Outcome{Fail, OverLimit}, output: "file too large",
			test: goTest("os", "func TestBig(t *testing.T) {\n\tif err := os.WriteFile(\"big\", make([]byte, 2<<20), 0o644); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n")},
	}
	runBatch(t, l, 2, cases)
}

func TestLocalStats(t *testing.T) {
	l := newGoJudge(t, 5*time.Second, nil)
	runBatch(t, l, 4, []judgeCase{
		{name: "pass", test: goTest("", passTest), want: []Outcome{Pass}, runs: 4},
		// A failing run's report stops the reruns: a run takes a second, which leaves the
		// judge the time to read the first report before the last run ends.
		{name: "fails slowly", test: goTest("time", "func TestSlow(t *testing.T) {\n\ttime.Sleep(time.Second)\n\tt.Fatal(\"no\")\n}\n"),
			want: []Outcome{Fail}, runs: 1, output: "no"},
		// A run with nothing of the file's own proves nothing: the first run's report says
		// so. Its runs take milliseconds, so all four may end before the judge reads it.
		{name: "no tests at all", test: []byte("package x\n"), want: []Outcome{Fail}, output: "run 1 of 4: no test ran",
			check: func(t *testing.T, v Verdict) { assert.True(t, v.Runs >= 1 && v.Runs <= 4, "runs: %d", v.Runs) }},
	})
	s := l.Stats()
	assert.Equal(t, 3, s.Executions)
	assert.True(t, s.Runs >= 6 && s.Runs <= 9, "runs: %d", s.Runs)
	assert.Zero(t, s.CacheHits)
	assert.Positive(t, s.Seconds)
}
