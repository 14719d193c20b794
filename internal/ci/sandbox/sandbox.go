package sandbox

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Fixed paths inside the bubblewrap sandbox, identical for every coder.
const (
	boxSrc   = "/sandbox/src"
	boxCache = "/sandbox/cache"
	boxHome  = "/home/dixit"
	boxDeps  = "/sandbox/deps"
	boxTools = "/sandbox/tools"
)

// Sandbox turns a shell command into a confined process, in one of its lanes. With
// bwrap == "" it runs without bubblewrap's namespaces: rlimits, a new session, a scrubbed
// env and timeouts, and as root a lane uid and perhaps a network namespace (see reduce).
// It owns the judge's scratch directory, its lanes and the toolchain's build cache.
type Sandbox struct {
	bwrap, prlimit, setpriv string // tool paths; setpriv only when root
	unshare                 string // without bwrap, as root: gives jobs a network namespace (see reduce)
	root                    bool   // the judge runs as root: jobs get their own uid
	limits                  Limits
	buildTimeout            time.Duration
	tc                      Toolchain
	system                  []string  // bwrap arguments exposing the host system read-only
	mounts                  []string  // toolchain paths bound read-only
	mirror                  []string  // bwrap arguments binding the toolchain's bytecode mirror (mirror.go)
	seed                    *treeSeed // the tree's own bytecode, compiled once (treeseed.go)
	cacheDir                string    // host directory of the toolchain's build cache, or ""
	depsRoot                string    // host directory holding the prepared dependency caches
	memory                  *memoryLimit
	seeded                  bool // the prepare reads the toolchain's seed (the lanes can)
	keep                    int  // output tail kept per run; MaxOutput when 0
	env                     map[string]string

	work     string     // the scratch directory of job directories, removed by Close
	lanes    chan Lane  // the free lanes: they bound concurrency across all callers
	all      []Lane     // every lane
	uidLocks []*os.File // the lanes' uids, claimed while the sandbox lives (as root)
	trim     *cacheTrim // when the build cache was last trimmed (buildcache.go)
	log      *slog.Logger
}

// Lane is one parallel lane; as root, each lane runs as its own host uid so RLIMIT_NPROC
// (which root ignores) holds a fork bomb to its lane. All lanes share one gid, which owns
// the build cache.
type Lane struct {
	Index    int
	UID, GID int
}

// Invocation is one build or run of a job.
type Invocation struct {
	Dir     string // the job directory: src/ holds the tree, tmp/ and home/ serve fallback mode
	Lane    Lane
	Build   bool              // a build: it may write the build cache, with the lanes' group
	Prepare bool              // install dependencies: network on, the tree not mounted, deps writable
	Deps    string            // host directory of the tree's prepared dependencies, or ""
	Tools   []string          // host directories of installed Tools, read-only, their bin/ on PATH
	Env     map[string]string // set over everything else (what the tree itself calls for)
	Script  string
	Runs    int           // runs of Script in this sandbox, stopping at the first failure
	Timeout time.Duration // per run
	// FirstRun, when above Timeout, is the first run's timeout: the judge's twins of the
	// proposal's tests run in the first run only, so it runs those tests twice. The
	// processes' CPU limit grows by the same ratio (it is one limit for every run).
	FirstRun time.Duration
	// Armed, when not 0, is the status a run that exits 0 gets, and a run that exits 1
	// counts as 0: a test process with the judge's tripwires in it must report a failure
	// (one wire fails every time), so 1 is the run going as it should and 0 is a forgery.
	// The wrapper maps it, not a shell of the job's own: no extra process per run.
	Armed int
	// UnitCPU, when above the sandbox's CPU limit, is a process's CPU limit instead: a
	// suite's runner runs many tests in one process (a pytest session over sympy's test
	// files takes minutes of CPU), bounded by the unit's timeout rather than one test's.
	UnitCPU time.Duration
}

// armedArg is the wrapper's $8: Invocation.Armed, or "" when the job is not armed.
func armedArg(armed int) string {
	if armed == 0 {
		return ""
	}
	return strconv.Itoa(armed)
}

// command builds the process for an Invocation; the caller wires stdio and fds 3 and 4.
func (s *Sandbox) command(inv Invocation, marker string) *exec.Cmd {
	sealDescriptors()
	env := s.Environ(inv)
	inner := prlimitArgs(s.prlimit, s.invLimits(inv), s.root || s.bwrap != "")
	if s.bwrap == "" && s.unshare != "" && !inv.Prepare {
		inner = append(inner, netnsArgs(s.unshare)...)
	}
	if s.root {
		// Only builds join the lanes' shared group, which owns the build cache: a test
		// must not write into what later builds read.
		gid := inv.Lane.UID
		if inv.Build {
			gid = inv.Lane.GID
		}
		inner = append(inner, s.setpriv,
			fmt.Sprintf("--reuid=%d", inv.Lane.UID), fmt.Sprintf("--regid=%d", gid),
			"--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--")
	}
	tmp, home, sweep, umask := "/tmp", boxHome, "1", ""
	if s.bwrap == "" {
		tmp, home = filepath.Join(inv.Dir, "tmp"), filepath.Join(inv.Dir, "home")
		// Without a pid namespace kill(-1) is only safe under the lane's own uid.
		if !s.root || inv.Lane.UID < 1000 || inv.Lane.UID == os.Getuid() {
			sweep = "0"
		}
	}
	if inv.Build {
		umask = "002" // the build cache is shared by the lanes' common group
	}
	if inv.Prepare {
		umask = "022" // every lane reads what a prepare installs
	}
	inner = append(inner, "/bin/sh", "-c", wrapperScript, "dixit",
		inv.Script, strconv.Itoa(max(inv.Runs, 1)), marker, sweep, tmp, home, umask, armedArg(inv.Armed))

	var argv []string
	if s.bwrap == "" {
		argv = inner
	} else {
		argv = append(append([]string{s.bwrap}, s.bwrapArgs(inv, env)...), "--")
		argv = append(argv, inner...)
	}
	// The cgroup is entered before anything else starts, so every process of the
	// Invocation is counted in it.
	argv = s.memory.enter(inv.Lane, argv)
	cmd := exec.Command(argv[0], argv[1:]...)
	if s.bwrap == "" {
		cmd.Dir = filepath.Join(inv.Dir, "src")
		if inv.Prepare {
			cmd.Dir = inv.Deps
		}
	}
	cmd.SysProcAttr = s.procAttr()
	// bwrap's own pid 1 keeps the environment it was started with: scrub it here too.
	cmd.Env = env
	return cmd
}

// procAttr starts a sandbox in a process group of its own, or without bubblewrap in a
// session of its own. What a judge killed outright leaves behind the next judge ends with
// its lanes' cgroups (sweepCgroups).
func (s *Sandbox) procAttr() *syscall.SysProcAttr {
	if s.bwrap == "" {
		return &syscall.SysProcAttr{Setsid: true}
	}
	return &syscall.SysProcAttr{Setpgid: true}
}

// sealDescriptors marks every descriptor of this process above stderr close-on-exec, so
// a sandbox gets only the ones it is given. Go opens its own that way, but one inherited
// from whatever started the judge (a service manager's socket, a CI runner's pipe) is
// not, and bwrap passes on whatever it inherits.
func sealDescriptors() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// phaseLimits are the limits of a run, or of a build: builds run the toolchain on the
// tree (for Go only the compiler, no user code) and write binaries, so they get more
// processes, the CPU time their timeout allows, and room for the binary.
func (s *Sandbox) phaseLimits(build bool) Limits {
	l := s.limits
	if build {
		l.Procs *= 4
		l.CPU = max(l.CPU, s.buildTimeout)
		l.FileSize = max(l.FileSize, l.BuildFile)
	}
	return l
}

// invLimits are an Invocation's limits. A prepare is a build that may run as long as its
// timeout; under a memory cgroup, the address space is left unbounded, since JIT
// runtimes (V8, the JVM) reserve far more of it than they ever touch.
func (s *Sandbox) invLimits(inv Invocation) Limits {
	l := s.phaseLimits(inv.Build || inv.Prepare)
	if inv.Prepare {
		l.CPU = max(l.CPU, inv.Timeout)
	}
	l.CPU = max(l.CPU, inv.UnitCPU)
	if inv.FirstRun > inv.Timeout && inv.Timeout > 0 {
		// A process of the first run does more by the same measure (the twins).
		l.CPU = time.Duration(float64(l.CPU) * float64(inv.FirstRun) / float64(inv.Timeout))
	}
	if s.memory.active() {
		l.Memory = 0
	}
	return l
}

// Environ is the whole environment of an invocation's command: nothing of this process's own.
func (s *Sandbox) Environ(inv Invocation) []string {
	at := s.placesOf(inv)
	m := map[string]string{
		"PATH":   strings.Join(append(s.tc.Path, "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"), ":"),
		"HOME":   at.home,
		"TMPDIR": at.tmp,
		"LANG":   "C.UTF-8",
		"PWD":    at.src,
	}
	s.toolchainEnv(m, inv, at)
	for k, v := range s.env {
		m[k] = v
	}
	for k, v := range inv.Env {
		m[k] = v
	}
	if inv.Prepare {
		at.src = at.deps
		m["PWD"] = at.deps
	}
	places := strings.NewReplacer("{deps}", at.deps, "{src}", at.src)
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+places.Replace(v))
	}
	sort.Strings(out)
	return out
}

// places are where an invocation's command finds its directories: fixed paths inside
// bubblewrap, the job directory's and the host's without it.
// tools are the bin/ directories of the prepare's Tools.
type places struct {
	home, tmp, src, cache, deps string
	tools                       []string
}

func (s *Sandbox) placesOf(inv Invocation) places {
	var at places
	if s.bwrap != "" {
		at = places{home: boxHome, tmp: "/tmp", src: boxSrc, cache: boxCache, deps: boxDeps}
	} else {
		at = places{home: filepath.Join(inv.Dir, "home"), tmp: filepath.Join(inv.Dir, "tmp"),
			src: filepath.Join(inv.Dir, "src"), cache: s.cacheDir, deps: inv.Deps}
	}
	for i, t := range inv.Tools {
		if s.bwrap != "" {
			t = toolPlace(i)
		}
		at.tools = append(at.tools, filepath.Join(t, "bin"))
	}
	return at
}

// toolPlace is where the i-th Tool of a prepare is mounted.
func toolPlace(i int) string { return path.Join(boxTools, strconv.Itoa(i)) }

// toolchainEnv sets in m what the toolchain asks for: its variables, those of a prepare
// or of prepared dependencies, and those of a build.
func (s *Sandbox) toolchainEnv(m map[string]string, inv Invocation, at places) {
	for k, v := range s.tc.Env {
		m[k] = strings.ReplaceAll(v, "/tmp/", at.tmp+"/")
	}
	if !s.memory.active() && s.limits.Memory > 0 {
		for k, v := range s.tc.BoundedEnv {
			m[k] = v
		}
	}
	if len(at.tools) > 0 {
		m["PATH"] = strings.Join(append(append([]string{}, at.tools...), m["PATH"]), ":")
	}
	switch {
	case inv.Prepare:
		for k, v := range s.tc.PrepareEnv {
			m[k] = v
		}
		if s.seeded {
			// What the host has downloaded is served first: a server without a route to
			// the proxy prepares from it, and nobody downloads a module twice.
			m["GOPROXY"] = "file://" + s.tc.Seed + "," + m["GOPROXY"]
		}
	case inv.Deps != "":
		for k, v := range s.tc.DepsEnv {
			m[k] = v
		}
		m["PATH"] = strings.Join(append(append([]string{}, s.tc.DepsPath...), m["PATH"]), ":")
	}
	if inv.Build {
		for k, v := range s.tc.BuildEnv {
			m[k] = v
		}
		if s.tc.CacheVar != "" && s.cacheDir != "" {
			m[s.tc.CacheVar] = at.cache
		}
	}
}

// systemDirs are the host directories every sandbox sees, read-only.
func systemDirs() []string {
	return []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc"}
}

// systemArgs binds the host system read-only, recreating merged-/usr symlinks as such.
func systemArgs() []string {
	var a []string
	for _, d := range systemDirs() {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				a = append(a, "--symlink", target, d)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	return a
}

// bwrapArgs confines the command: nothing of the host but the system, the toolchain
// (read-only) and the job's tree; no network; its own pids, /tmp and HOME.
func (s *Sandbox) bwrapArgs(inv Invocation, env []string) []string {
	a, chdir := s.mountArgs(inv)
	a = append(a, "--chdir", chdir, "--die-with-parent", "--new-session", "--info-fd", "4")
	a = append(a, s.namespaceArgs(inv)...)
	a = append(a, "--clearenv")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	return a
}

// mountArgs are what the sandbox sees of the host, and the directory the command starts
// in: the system and the toolchain read-only, fresh /proc, /dev, /tmp and HOME, and the
// job's tree (or, for a prepare, the cache it installs into).
func (s *Sandbox) mountArgs(inv Invocation) ([]string, string) {
	a := append([]string{}, s.system...)
	// bwrap would copy the modes of the host's parent directories (/root is 0700):
	// create them explicitly so the lane's uid can reach what is bound below.
	made := map[string]bool{}
	for _, m := range append([]string{boxSrc, boxHome, boxDeps, toolPlace(0)}, s.mounts...) {
		for _, d := range ancestors(m) {
			if !made[d] {
				made[d] = true
				a = append(a, "--perms", "0755", "--dir", d)
			}
		}
	}
	for _, m := range s.mounts {
		a = append(a, "--ro-bind", m, m)
	}
	a = append(a,
		"--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/dev/shm",
		"--perms", "1777", "--tmpfs", "/tmp",
		"--perms", "1777", "--tmpfs", boxHome,
	)
	if !inv.Prepare {
		a = append(a, s.mirror...)
		a = append(a, s.seedBinds()...)
	}
	chdir := boxSrc
	if inv.Prepare {
		// The prepare sees the manifests it installs from (copied into the cache), never
		// the tree's code.
		a = append(a, "--bind", inv.Deps, boxDeps)
		chdir = boxDeps
	} else {
		a = append(a, s.treeArgs(inv)...)
	}
	for i, t := range inv.Tools {
		a = append(a, "--ro-bind", t, toolPlace(i))
	}
	if inv.Build && s.cacheDir != "" {
		a = append(a, "--bind", s.cacheDir, boxCache)
	}
	return a, chdir
}

// treeArgs bind the job's tree, writable, and its prepared dependencies, read-only.
func (s *Sandbox) treeArgs(inv Invocation) []string {
	a := []string{"--bind", filepath.Join(inv.Dir, "src"), boxSrc}
	if inv.Deps == "" {
		return a
	}
	a = append(a, "--ro-bind", inv.Deps, boxDeps)
	for _, rel := range s.tc.DepsBinds {
		// Package deps made the mount point, a plain directory, in the judge's copy.
		if fi, err := os.Lstat(filepath.Join(inv.Deps, rel)); err != nil || !fi.IsDir() {
			continue
		}
		a = append(a, "--ro-bind", filepath.Join(inv.Deps, rel), path.Join(boxSrc, rel))
		// A tool's own cache in there (package deps made the directory) is private to
		// the run and writable by the lane's uid; nothing around it is.
		for _, sub := range s.tc.DepsScratch {
			if !strings.HasPrefix(sub, rel+"/") {
				continue
			}
			if fi, err := os.Lstat(filepath.Join(inv.Deps, sub)); err == nil && fi.IsDir() {
				a = append(a, "--perms", "1777", "--tmpfs", path.Join(boxSrc, sub))
			}
		}
	}
	return a
}

// namespaceArgs are the namespaces the command gets of its own: everything but the
// network for a prepare, which downloads from the package registries.
func (s *Sandbox) namespaceArgs(inv Invocation) []string {
	if s.root {
		// No user namespace: the lane's real uid must own the processes for RLIMIT_NPROC,
		// and setpriv drops root inside. Only a prepare keeps the host's network.
		a := []string{"--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"}
		if !inv.Prepare {
			a = append(a, "--unshare-net")
		}
		return a
	}
	// Code under test gets no user namespace of its own to play with: a nested one
	// reaches kernel code the sandbox otherwise keeps out (bwrap needs the explicit
	// --unshare-user for --disable-userns).
	a := []string{"--unshare-all", "--unshare-user", "--disable-userns"}
	if inv.Prepare {
		a = append(a, "--share-net")
	}
	return a
}

// ancestors lists the directories above an absolute path, shallowest first.
func ancestors(p string) []string {
	var out []string
	for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
		out = append([]string{d}, out...)
	}
	return out
}
