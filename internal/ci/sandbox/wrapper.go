package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// wrapperScript runs inside the sandbox, after the limits and the uid change. One
// sandbox serves all the runs of a job, so starting it is paid once, not per rerun.
// Arguments: $1 command, $2 runs, $3 output marker, $4 sweep (1: kill -9 -1 is safe,
// the uid or pid namespace is the job's own), $5 $6 the private tmp and home to empty,
// $7 a umask or "", $8 Invocation.Armed or "".
//
// On fd 3 it reports "x" when it starts (proving the sandbox works), "S i" when run i
// starts, and "E i status" followed by the shell's "times" after it ends. Before that,
// if the run wrote a report to $dixit_report (what {report} stands for: a file in the
// private tmp, outside the tree), it sends it as "R i", its base64 lines ("R error" if
// it could not read it), "R end". It
// prints the marker on stdout after each run so the judge can tell the runs' output
// apart. Between runs it kills what the run left behind and empties /tmp and HOME, so
// every run starts as fresh as in a sandbox of its own, but for /tmp/.dixit-keep (KeepDir):
// caches the toolchain fills in the first run and the runs after it read, such as
// Python's bytecode. It stops at the first failing run. Each run's command sees its
// number in RunEnv.
const wrapperScript = `printf 'x\n' >&3 || exit 125
exec 4>&-
[ -n "$7" ] && umask "$7"
i=0 s=0 dixit_report="$5/.dixit-report"
while [ "$i" -lt "$2" ]; do
	i=$((i+1))
	printf 'S %d\n' "$i" >&3
	(DIXIT_RUN=$i; export DIXIT_RUN; eval "$1") 3>&- </dev/null
	s=$?
	if [ -n "$8" ]; then
		case "$s" in 0) s=$8 ;; 1) s=0 ;; esac
	fi
	[ "$4" = 1 ] && kill -9 -1 2>/dev/null
	if [ -f "$dixit_report" ] && ! [ -L "$dixit_report" ]; then
		printf 'R %d\n' "$i" >&3
		base64 "$dixit_report" >&3 2>/dev/null || printf 'R error\n' >&3
		printf 'R end\n' >&3
	fi
	printf '%s' "$3"
	printf 'E %d %d\n' "$i" "$s" >&3
	times >&3
	[ "$s" -eq 0 ] || break
	for d in "$5" "$6"; do
		case "$d" in /?*) ;; *) continue ;; esac
		for f in "$d"/* "$d"/.[!.]* "$d"/..?*; do
			[ "$f" = "$5/.dixit-keep" ] && continue
			if [ -e "$f" ] || [ -L "$f" ]; then
				chmod -R u+rwX "$f" 2>/dev/null
				rm -rf "$f" 2>/dev/null
			fi
		done
	done
done
exit "$s"
`

// RunEnv holds the number of the run in every run's environment ("1" for the first):
// the judge's twins of a test run in the first run only (package tripwire).
const RunEnv = "DIXIT_RUN"

// KeepDir is the one place of a job's private /tmp that outlives a run: the wrapper
// empties the rest between runs. What the code under test writes there can reach only the
// job's later runs, and a job passes only if its first run passed on its own.
const KeepDir = "/tmp/.dixit-keep"

// newMarker is an unpredictable run separator for one Invocation's output.
func newMarker() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("marker: %w", err)
	}
	return "\x1edixit-run-end-" + hex.EncodeToString(b) + "\x1e", nil
}

// progress is what the wrapper has reported so far.
type progress struct {
	mu      sync.Mutex
	started bool          // the sandbox started the wrapper
	starts  int           // runs begun
	ends    int           // runs finished
	status  int           // exit status of the last finished run
	cpu     time.Duration // CPU time of the last finished run's processes
	total   time.Duration // children CPU time so far
	notify  chan struct{} // signalled (without blocking) on every report
	report  Reports       // takes the runs' reports; nil: they are skipped
}

func newProgress() *progress { return &progress{notify: make(chan struct{}, 1)} }

func (p *progress) snapshot() progress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return progress{started: p.started, starts: p.starts, ends: p.ends, status: p.status, cpu: p.cpu}
}

// read parses the wrapper's reports until EOF.
func (p *progress) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	timesLines := 0 // "times" lines still expected after an "E" report
	ending := 0     // the status the "E" report gave, for the run it ends
	block := false  // inside a run's report: base64 lines until "R end"
	for sc.Scan() {
		line := sc.Text()
		if block || strings.HasPrefix(line, "R ") {
			block = p.reportLine(line, block)
			continue
		}
		p.mu.Lock()
		switch {
		case timesLines > 0:
			timesLines--
			if timesLines == 0 { // the second line holds the children's times
				now := childTimes(line)
				p.cpu, p.total = now-p.total, now
				// The run counts as ended only now: a caller that stops the sandbox at
				// an end must know the run's CPU time, or a run the CPU limit killed
				// would read as a plain failure.
				p.ends++
				p.status = ending
			}
		case line == "x":
			p.started = true
		case strings.HasPrefix(line, "S "):
			p.starts++
		case strings.HasPrefix(line, "E "):
			f := strings.Fields(line)
			if len(f) == 3 {
				if st, err := strconv.Atoi(f[2]); err == nil {
					ending, timesLines = st, 2
				}
			}
		}
		p.mu.Unlock()
		select {
		case p.notify <- struct{}{}:
		default:
		}
	}
}

// reportLine passes one line of a run's report on, and says whether the report goes on.
func (p *progress) reportLine(line string, block bool) bool {
	switch {
	case line == "R end":
		if p.report != nil {
			p.report.EndBlock()
		}
		return false
	case line == "R error":
		if p.report != nil {
			p.report.BlockUnread()
		}
		return true
	case block:
		if p.report != nil {
			p.report.BlockLine(line)
		}
		return true
	}
	run, err := strconv.Atoi(strings.TrimPrefix(line, "R "))
	if err != nil || run < 1 {
		return false
	}
	if p.report != nil {
		p.report.StartBlock(run)
	}
	return true
}

// childTimes adds up a "times" line of user and system time ("0m1.25s 0m0.01s").
func childTimes(line string) time.Duration {
	var total time.Duration
	for _, f := range strings.Fields(line) {
		var m int
		var sec float64
		if _, err := fmt.Sscanf(f, "%dm%fs", &m, &sec); err == nil {
			total += time.Duration(m)*time.Minute + time.Duration(sec*float64(time.Second))
		}
	}
	return total
}
