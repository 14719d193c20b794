//go:build linux

package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What container runtimes mask in /proc unless told otherwise (Docker's and containerd's
// defaults): Kubernetes' procMount Unmasked and Docker's systempaths=unconfined drop them.
var (
	maskedPaths = []string{"/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
		"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware"}
	readonlyPaths = []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"}
)

// box is what one run in the runtime gets.
type box struct {
	seccomp map[string]any // the OCI spec's linux.seccomp; nil for none
	masked  bool           // /proc masked as runtimes do by default
	args    []string
}

// runtimeRunner runs containers with runc, as containerd does for a pod: the profile goes
// in as the OCI spec's linux.seccomp, the process is uid 10001 with no capabilities and
// no_new_privs, the root is read-only. The host's /usr and /etc stand in for the image.
type runtimeRunner struct {
	runc, state string
}

func newRuntimeRunner(t *testing.T) runtimeRunner {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("starting containers needs root")
	}
	runc, err := exec.LookPath("runc")
	if err != nil {
		t.Skip("runc is not installed (apt-get install runc)")
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bubblewrap is not installed (apt-get install bubblewrap)")
	}
	return runtimeRunner{runc: runc, state: t.TempDir()}
}

func (r runtimeRunner) run(t *testing.T, c box) (string, error) {
	t.Helper()
	bundle := t.TempDir()
	rootfs := filepath.Join(bundle, "rootfs")
	for _, d := range []string{"usr", "etc", "proc", "dev", "tmp", "sys"} {
		require.NoError(t, os.MkdirAll(filepath.Join(rootfs, d), 0o755))
	}
	mounts := []map[string]any{
		{"destination": "/proc", "type": "proc", "source": "proc"},
		{"destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": []string{"nosuid", "mode=755"}},
		{"destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": []string{"nosuid", "nodev", "mode=1777"}},
		{"destination": "/usr", "type": "bind", "source": "/usr", "options": []string{"rbind", "ro"}},
		{"destination": "/etc", "type": "bind", "source": "/etc", "options": []string{"rbind", "ro"}},
	}
	for _, d := range []string{"bin", "lib", "lib64", "sbin"} {
		if target, err := os.Readlink("/" + d); err == nil {
			require.NoError(t, os.Symlink(target, filepath.Join(rootfs, d)))
		} else if _, err := os.Stat("/" + d); err == nil {
			require.NoError(t, os.Mkdir(filepath.Join(rootfs, d), 0o755))
			mounts = append(mounts, map[string]any{"destination": "/" + d, "type": "bind", "source": "/" + d, "options": []string{"rbind", "ro"}})
		}
	}
	linux := map[string]any{
		"namespaces": []map[string]string{{"type": "pid"}, {"type": "mount"}, {"type": "ipc"}, {"type": "uts"}, {"type": "network"}},
	}
	if c.masked {
		linux["maskedPaths"], linux["readonlyPaths"] = maskedPaths, readonlyPaths
	}
	if c.seccomp != nil {
		linux["seccomp"] = c.seccomp
	}
	none := []string{}
	spec := map[string]any{
		"ociVersion": "1.0.2",
		"root":       map[string]any{"path": "rootfs", "readonly": true},
		"hostname":   "dixit",
		"mounts":     mounts,
		"linux":      linux,
		"process": map[string]any{
			"user": map[string]int{"uid": 10001, "gid": 10001}, "args": c.args, "cwd": "/",
			"env":             []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp"},
			"noNewPrivileges": true,
			"capabilities":    map[string][]string{"bounding": none, "effective": none, "permitted": none, "inheritable": none, "ambient": none},
		},
	}
	data, err := json.Marshal(spec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(bundle, "config.json"), data, 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := fmt.Sprintf("dixit-deploy-%d-%d", os.Getpid(), time.Now().UnixNano())
	out, err := exec.CommandContext(ctx, r.runc, "--root", r.state, "run", "--bundle", bundle, id).CombinedOutput()
	return string(out), err
}

// rawProfile is deploy/seccomp-bwrap.json as a runtime reads it.
func rawProfile(t *testing.T, drop ...string) map[string]any {
	t.Helper()
	data, err := os.ReadFile("seccomp-bwrap.json")
	require.NoError(t, err)
	var p map[string]any
	require.NoError(t, json.Unmarshal(data, &p))
	for _, rule := range p["syscalls"].([]any) {
		r := rule.(map[string]any)
		var kept []any
		for _, n := range r["names"].([]any) {
			if !contains(drop, n.(string)) {
				kept = append(kept, n)
			}
		}
		r["names"] = kept
	}
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The judge's bubblewrap, with the namespaces it asks for as an unprivileged user.
var bwrapArgs = []string{"bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin",
	"--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
	"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--unshare-all", "--die-with-parent", "--new-session",
	"--", "/bin/sh", "-c", `echo "sandboxed as $(id -u) in $(readlink /proc/self/ns/user)"`}

func TestBubblewrapStartsInAContainerUnderTheShippedProfile(t *testing.T) {
	r := newRuntimeRunner(t)
	cases := []struct {
		name   string
		c      box
		ok     bool
		output string
	}{
		{name: "the shipped profile and an unmasked /proc: the sandbox starts", ok: true, output: "sandboxed as 10001 in user:[",
			c: box{seccomp: rawProfile(t)}},
		{name: "a masked /proc, the runtimes' default: bwrap cannot mount its own", output: "Can't mount proc",
			c: box{seccomp: rawProfile(t), masked: true}},
		{name: "namespaces refused, as Docker's default profile does without CAP_SYS_ADMIN", output: "No permissions to create new namespace",
			c: box{seccomp: rawProfile(t, "clone", "unshare", "mount", "umount2", "pivot_root")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.args = bwrapArgs
			out, err := r.run(t, tc.c)
			if tc.ok {
				assert.NoError(t, err, out)
			} else {
				assert.Error(t, err, out)
			}
			assert.Contains(t, out, tc.output)
		})
	}
}

// The profile, not the kernel, refuses: under it each probe gets EPERM; without it the
// kernel gives another answer (a keyring id, EFAULT, EBADF, 0), so the probe discriminates.
func TestShippedProfileRefusesWhatDockersRefuses(t *testing.T) {
	r := newRuntimeRunner(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the probe's syscall numbers are x86-64's")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("the probe is a python3 script")
	}
	const probe = `
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
L = ctypes.c_long
for name, nr, args in [
    ("keyctl", 250, (0, -3, 0)),          # KEYCTL_GET_KEYRING_ID of the session keyring
    ("io_uring_setup", 425, (1, 0)),       # no params: EFAULT from the kernel
    ("perf_event_open", 298, (0, 0, -1, -1, 0)),
    ("setns", 308, (-1, 0)),               # no descriptor: EBADF from the kernel
    ("process_vm_readv", 310, (os.getpid(), 0, 0, 0, 0, 0)),
    ("ptrace", 101, (0x4206, 0, 0, 0)),    # PTRACE_SEIZE of pid 0: ESRCH from the kernel
    ("userfaultfd", 323, (1,)),            # UFFD_USER_MODE_ONLY, open to any user
]:
    ctypes.set_errno(0)
    ret = libc.syscall(L(nr), *[L(a) for a in args])
    print(name, ctypes.get_errno() if ret == -1 else 0)
`
	errnos := func(seccomp map[string]any) map[string]int {
		out, err := r.run(t, box{seccomp: seccomp, args: []string{"python3", "-c", probe}})
		require.NoError(t, err, out)
		got := map[string]int{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			name, n, _ := strings.Cut(line, " ")
			got[name], _ = strconv.Atoi(n)
		}
		return got
	}
	confined, kernel := errnos(rawProfile(t)), errnos(nil)
	t.Logf("errno under the profile %v, without it %v", confined, kernel)
	require.Len(t, confined, 7)
	for name, errno := range confined {
		assert.Equal(t, 1, errno, "%s: EPERM from the profile", name)
		assert.NotEqual(t, 1, kernel[name], "%s: without the profile the kernel answers otherwise", name)
	}
}
