package ci

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Resource numbers not exported by package syscall on every arch.
const (
	rlimitNproc = 6
	sigXCPU     = 24
	sigXFSZ     = 25
)

// clampLimits lowers limits to the host's hard limits: prlimit may lower a hard
// limit but never raise it, and an unrunnable sandbox helps nobody.
func clampLimits(l Limits) Limits {
	hard := func(res int) uint64 {
		var r syscall.Rlimit
		if err := syscall.Getrlimit(res, &r); err != nil {
			return math.MaxUint64
		}
		return r.Max
	}
	if h := hard(syscall.RLIMIT_CPU); h != math.MaxUint64 && uint64(l.CPU/time.Second)+1 > h {
		l.CPU = time.Duration(h-1) * time.Second
	}
	if h := hard(syscall.RLIMIT_AS); uint64(l.Memory) > h {
		l.Memory = int64(h)
	}
	if h := hard(rlimitNproc); uint64(l.Procs) > h {
		l.Procs = int(h)
	}
	if h := hard(syscall.RLIMIT_FSIZE); uint64(l.FileSize) > h {
		l.FileSize = int64(h)
	}
	return l
}

// prlimitArgs is the prlimit(1) command line applying the limits to what follows it.
// The CPU hard limit is one second above the soft one, so processes that ignore SIGXCPU
// (Go's runtime does) are still killed.
func prlimitArgs(bin string, l Limits, withProcs bool) []string {
	cpu := int64(l.CPU / time.Second)
	if cpu < 1 {
		cpu = 1
	}
	args := []string{bin,
		fmt.Sprintf("--cpu=%d:%d", cpu, cpu+1),
		asArg(l.Memory),
		fmt.Sprintf("--fsize=%d", l.FileSize),
		"--core=0",
	}
	if withProcs {
		args = append(args, fmt.Sprintf("--nproc=%d", l.Procs))
	}
	return append(args, "--")
}

// limitNote explains an exit status that a resource limit caused, or returns "".
// Shells and bwrap report death by signal n as exit status 128+n. SIGKILL alone proves
// nothing (the test may send it); it counts when the tree used up its CPU allowance,
// since Go's runtime ignores SIGXCPU and dies at the hard limit.
func limitNote(exit int, cpu time.Duration, l Limits) string {
	switch exit {
	case 128 + sigXCPU:
		return "killed by SIGXCPU: CPU time limit exceeded"
	case 128 + sigXFSZ:
		return "killed by SIGXFSZ: file size limit exceeded"
	case 128 + int(syscall.SIGKILL):
		if cpu >= l.CPU {
			return fmt.Sprintf("killed by SIGKILL after %.1fs of CPU: CPU time limit exceeded", cpu.Seconds())
		}
	}
	return ""
}

// asArg is prlimit's address-space limit; zero leaves it unbounded (a memory cgroup
// bounds resident memory instead).
func asArg(memory int64) string {
	if memory <= 0 {
		return "--as=unlimited"
	}
	return fmt.Sprintf("--as=%d", memory)
}

// FormatBytes writes a byte count the way test.memory takes it: 4GiB, 512MiB, 1000B.
func FormatBytes(n int64) string {
	for _, u := range []struct {
		name  string
		shift uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// ParseBytes reads a size as test.memory takes it: a whole number with a unit, B, KiB,
// MiB, GiB or TiB (4GiB, 512MiB).
func ParseBytes(s string) (int64, error) {
	units := []struct {
		name  string
		shift uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}
	t := strings.TrimSpace(s)
	for _, u := range units {
		num, ok := strings.CutSuffix(t, u.name)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil || n < 0 || n > math.MaxInt64>>u.shift {
			break
		}
		return n << u.shift, nil
	}
	return 0, fmt.Errorf("want a whole number and a unit, B, KiB, MiB, GiB or TiB, such as 4GiB (got %q)", s)
}
