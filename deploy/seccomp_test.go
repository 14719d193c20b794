package deploy

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// profile is the part of a seccomp profile that Docker, containerd (which reads it as
// the OCI runtime spec's linux.seccomp) and CRI-O all understand alike. Docker's own
// "includes"/"excludes" conditions are not in it: containerd would ignore them and apply
// the rule unconditionally, widening the profile.
type profile struct {
	DefaultAction   string   `json:"defaultAction"`
	DefaultErrnoRet *int     `json:"defaultErrnoRet"`
	Architectures   []string `json:"architectures"`
	Syscalls        []struct {
		Comment  string   `json:"comment"`
		Names    []string `json:"names"`
		Action   string   `json:"action"`
		ErrnoRet *int     `json:"errnoRet"`
		Args     []struct {
			Index    uint   `json:"index"`
			Value    uint64 `json:"value"`
			ValueTwo uint64 `json:"valueTwo"`
			Op       string `json:"op"`
		} `json:"args"`
	} `json:"syscalls"`
}

func loadProfile(t *testing.T) profile {
	t.Helper()
	data, err := os.ReadFile("seccomp-bwrap.json")
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p profile
	require.NoError(t, dec.Decode(&p), "only fields every runtime reads alike")
	return p
}

// ruleFor sums up what the profile does with one syscall: "allow", "allow if" (only with
// some arguments), "errno N", or "" (the default action).
func (p profile) ruleFor(name string) string {
	for _, r := range p.Syscalls {
		for _, n := range r.Names {
			if n != name {
				continue
			}
			switch {
			case r.Action == "SCMP_ACT_ALLOW" && len(r.Args) > 0:
				return "allow if"
			case r.Action == "SCMP_ACT_ALLOW":
				return "allow"
			case r.Action == "SCMP_ACT_ERRNO" && r.ErrnoRet != nil:
				return "errno " + itoa(*r.ErrnoRet)
			}
			return r.Action
		}
	}
	return ""
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestSeccompProfileRefusesByDefault(t *testing.T) {
	p := loadProfile(t)
	assert.Equal(t, "SCMP_ACT_ERRNO", p.DefaultAction)
	require.NotNil(t, p.DefaultErrnoRet)
	assert.Equal(t, 1, *p.DefaultErrnoRet, "EPERM, as Docker's default profile answers")
	// No 32-bit ABI: its syscalls fail on the architecture check.
	assert.ElementsMatch(t, []string{"SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64"}, p.Architectures)
}

// bubblewrap, unprivileged, needs to make namespaces, mount inside them and pivot into
// its new root: each of these was shown necessary by removing it (docs/install.md).
func TestSeccompProfileAllowsWhatBubblewrapNeeds(t *testing.T) {
	p := loadProfile(t)
	for _, name := range []string{"clone", "unshare", "mount", "umount2", "pivot_root"} {
		assert.Equal(t, "allow", p.ruleFor(name), "%s with any flags: CLONE_NEWUSER, NEWNS, NEWPID, NEWNET, NEWIPC, NEWUTS, NEWCGROUP", name)
	}
	// glibc falls back to clone on ENOSYS; clone3's flags are out of seccomp's reach.
	assert.Equal(t, "errno 38", p.ruleFor("clone3"))
	// What the bot, git, go and the tests run need every day.
	for _, name := range []string{"execve", "openat", "read", "write", "mmap", "futex", "wait4", "prlimit64", "setsid", "socket", "connect", "statx", "faccessat2", "rseq", "pidfd_open"} {
		assert.Contains(t, []string{"allow", "allow if"}, p.ruleFor(name), name)
	}
}

// Each of these is refused by Docker's default profile to an unprivileged container, and
// still is here; some go further (ptrace, io_uring), since nothing the judge runs needs them.
func TestSeccompProfileStillRefusesTheDangerousOnes(t *testing.T) {
	p := loadProfile(t)
	dangerous := []string{
		"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
		"open_by_handle_at", "bpf", "perf_event_open", "userfaultfd",
		"keyctl", "add_key", "request_key", "ptrace", "process_vm_readv", "process_vm_writev",
		"pidfd_getfd", "kcmp", "process_madvise", "io_uring_setup", "io_uring_enter", "io_uring_register",
		"setns", "chroot", "sethostname", "setdomainname", "swapon", "swapoff", "acct", "syslog",
		"quotactl", "lookup_dcookie", "iopl", "ioperm", "settimeofday", "clock_settime",
		"fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
		"vhangup", "nfsservctl", "uselib", "get_mempolicy", "set_mempolicy", "mbind", "modify_ldt",
	}
	for _, name := range dangerous {
		assert.Empty(t, p.ruleFor(name), "%s is refused", name)
	}
	assert.Equal(t, "allow if", p.ruleFor("personality"), "only the harmless personalities")
	assert.Equal(t, "allow if", p.ruleFor("socket"), "every family but AF_VSOCK")
	for _, r := range p.Syscalls {
		for _, a := range r.Args {
			if len(r.Names) == 1 && r.Names[0] == "socket" {
				assert.Equal(t, uint64(40), a.Value)
				assert.Equal(t, "SCMP_CMP_NE", a.Op)
			}
		}
	}
}
