// Package sandbox runs the code the judge does not trust: a build, the runs of a test, a
// repository's suite, a prepare or an agent's command, each as one invocation in a lane
// of its own. With bubblewrap an invocation sees nothing of the host but the system, the
// toolchain and its own tree, with no network; without it (sandbox: none) rlimits, a new
// session, a scrubbed environment and timeouts apply, and as root each lane runs as a uid
// of its own in namespaces of its own where the kernel allows. Every invocation is
// bounded in CPU, memory (a cgroup per lane where the host allows), processes, file size,
// output and time, and whatever it leaves is killed when it ends.
//
// The isolation lives here alone, so that what a job can reach is decided in one place:
// the mounts (bwrapArgs), the environment (Environ), the limits (limits.go, memory.go),
// the lanes' uids (uids.go), the mode without bubblewrap (reduced.go), the check a
// server runs before it takes work (CheckHost). The lanes are also the judge's one
// worker pool (Each, Borrow): verdicts, suites and agents' commands share them.
package sandbox
