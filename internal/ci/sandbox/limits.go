package sandbox

import (
	"fmt"
	"math"
	"syscall"
	"time"
)

// Limits bound every process the judge starts. Zero fields take the defaults.
type Limits struct {
	CPU      time.Duration // CPU time per process (RLIMIT_CPU)
	Memory   int64         // address space per process in bytes (RLIMIT_AS)
	Procs    int           // processes and threads of the sandbox user (RLIMIT_NPROC)
	FileSize int64         // largest file a process may write (RLIMIT_FSIZE)
	// BuildFile is the largest file a build may write: an object in the build cache or the
	// test binary. A tree that compiles a huge constant into an object fails over_limit.
	BuildFile int64
	Output    int64 // combined stdout+stderr of one run above which it is killed
	// A verdict keeps only the last MaxOutput bytes of the failing run.
}

// DefaultLimits are generous for unit tests and tight enough to survive hostile ones.
// Go's runtime and compiler both work under a 2 GiB address space.
func DefaultLimits() Limits {
	return Limits{
		CPU:       60 * time.Second,
		Memory:    2 << 30,
		Procs:     256,
		FileSize:  64 << 20,
		BuildFile: 256 << 20,
		Output:    8 << 20,
	}
}

// withDefaults fills the zero fields with DefaultLimits'.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.CPU <= 0 {
		l.CPU = d.CPU
	}
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.Procs <= 0 {
		l.Procs = d.Procs
	}
	if l.FileSize <= 0 {
		l.FileSize = d.FileSize
	}
	if l.Output <= 0 {
		l.Output = d.Output
	}
	if l.BuildFile <= 0 {
		l.BuildFile = d.BuildFile
	}
	return l
}

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
