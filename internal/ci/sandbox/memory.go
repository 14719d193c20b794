package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// memoryLimit bounds the resident memory of each lane's invocations with a cgroup of
// the lane's own: the kernel counts every process of the sandbox together, page cache
// and tmpfs pages included, and kills inside it when the sum passes the limit. Address
// space (RLIMIT_AS) is the wrong measure for JIT runtimes, which reserve gigabytes they
// never touch. A nil *memoryLimit is none: the address-space limit applies instead.
type memoryLimit struct {
	bytes int64
	v2    bool     // cgroup v2 (memory.max) rather than v1 (memory.limit_in_bytes)
	lanes []string // one cgroup directory per lane
}

// newMemoryLimit makes one cgroup per lane under the judge's own memory cgroup, named
// after the judge (tag: several judges may live in one process), or says why it cannot:
// the host's cgroups are read-only to this user, or have no memory controller here.
func newMemoryLimit(bytes int64, lanes int, tag string) (*memoryLimit, error) {
	base, v2, err := ownMemoryCgroup()
	if err != nil {
		return nil, err
	}
	sweepCgroups(base)
	m := &memoryLimit{bytes: bytes, v2: v2}
	for i := range lanes {
		// The pid names the process that owns the cgroup, so that a judge killed before
		// it could remove its cgroups has them removed by the next judge.
		dir := filepath.Join(base, fmt.Sprintf("%s-pid%d-lane%d", tag, os.Getpid(), i))
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			m.close()
			return nil, fmt.Errorf("make cgroup %s: %w", dir, err)
		}
		m.lanes = append(m.lanes, dir)
		if err := m.set(dir); err != nil {
			m.close()
			return nil, err
		}
	}
	return m, nil
}

// laneCgroup is the name of a lane's cgroup: its judge's tag, its process, its lane.
var laneCgroup = regexp.MustCompile(`^dixit-ci-.*-pid(\d+)-lane\d+$`)

// sweepCgroups removes the lanes' cgroups left under base by judges whose process is
// gone (killed, or a test that never closed its judge), and ends the processes still in
// them: they are that judge's sandboxes, and one whose judge was killed while bubblewrap
// set it up waits for ever on a signal that will not come.
func sweepCgroups(base string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		m := laneCgroup.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join("/proc", m[1])); err == nil {
			continue // its judge's process lives
		}
		dir := filepath.Join(base, e.Name())
		// A cgroup empties as its processes die: give them a moment before its rmdir.
		for wait := killCgroup(dir); os.Remove(dir) != nil && wait > 0; wait-- {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// killCgroup sends SIGKILL to every process in the cgroup dir, and says how many 10 ms
// waits its removal may take (none when there was nothing to kill).
func killCgroup(dir string) int {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return 0
	}
	killed := 0
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil && pid > 1 && syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	if killed == 0 {
		return 0
	}
	return 50
}

// ownMemoryCgroup finds the directory of this process's memory cgroup: the unified
// (v2) hierarchy when it has the memory controller, else the v1 memory hierarchy.
func ownMemoryCgroup() (string, bool, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", false, fmt.Errorf("no cgroups: %w", err)
	}
	defer f.Close()
	var v1, v2 string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			v2 = parts[2]
		case strings.Contains(","+parts[1]+",", ",memory,"):
			v1 = parts[2]
		}
	}
	for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		ctl, err := os.ReadFile(filepath.Join(root, v2, "cgroup.controllers"))
		if v2 != "" && err == nil && strings.Contains(" "+string(ctl)+" ", " memory ") {
			return filepath.Join(root, v2), true, nil
		}
	}
	if v1 != "" {
		dir := filepath.Join("/sys/fs/cgroup/memory", v1)
		if _, err := os.Stat(filepath.Join(dir, "memory.limit_in_bytes")); err == nil {
			return dir, false, nil
		}
	}
	return "", false, fmt.Errorf("no memory cgroup controller is available to this process")
}

// set writes the limit into a lane's cgroup; under v1 swap is capped too, or the
// kernel would page the excess out instead of stopping it.
func (m *memoryLimit) set(dir string) error {
	n := strconv.FormatInt(m.bytes, 10)
	files := []string{"memory.max", "memory.swap.max"}
	values := []string{n, "0"}
	if !m.v2 {
		files = []string{"memory.limit_in_bytes", "memory.memsw.limit_in_bytes"}
		values = []string{n, n}
	}
	if err := os.WriteFile(filepath.Join(dir, files[0]), []byte(values[0]), 0o644); err != nil {
		return fmt.Errorf("set the memory limit of cgroup %s: %w", dir, err)
	}
	// Swap accounting may be off in the kernel: the memory limit alone still holds.
	os.WriteFile(filepath.Join(dir, files[1]), []byte(values[1]), 0o644)
	return nil
}

// active reports whether the cgroups bound memory.
func (m *memoryLimit) active() bool { return m != nil && len(m.lanes) > 0 }

// enter prefixes a command line so that it starts inside the lane's cgroup: the shell
// moves itself there before exec'ing it, so no process of the Invocation escapes.
func (m *memoryLimit) enter(sl Lane, argv []string) []string {
	if !m.active() {
		return argv
	}
	procs := filepath.Join(m.lanes[sl.Index%len(m.lanes)], "cgroup.procs")
	return append([]string{"/bin/sh", "-c", `echo $$ >"$0" && exec "$@"`, procs}, argv...)
}

// ooms is how many times the kernel killed a process of the lane's cgroup for memory.
func (m *memoryLimit) ooms(sl Lane) int {
	if !m.active() {
		return 0
	}
	dir := m.lanes[sl.Index%len(m.lanes)]
	file, field := "memory.events", "oom_kill"
	if !m.v2 {
		file = "memory.oom_control"
	}
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == field {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	if !m.v2 { // kernels before 4.13 have no oom_kill counter: count failures to charge
		if data, err := os.ReadFile(filepath.Join(dir, "memory.failcnt")); err == nil {
			n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			return n
		}
	}
	return 0
}

// close removes the lanes' cgroups; a cgroup with no process left goes with rmdir.
func (m *memoryLimit) close() {
	if m == nil {
		return
	}
	for _, dir := range m.lanes {
		os.Remove(dir)
	}
	m.lanes = nil
}
