package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// installFix says how to get bubblewrap.
const installFix = "install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Alpine: apk add bubblewrap)"

// namespaceFix says what keeps bubblewrap from creating its namespaces on this host, as
// far as the host tells, and what to change.
func namespaceFix() string {
	var fixes []string
	if sysctl("kernel/unprivileged_userns_clone") == "0" {
		fixes = append(fixes, "unprivileged user namespaces are turned off: sysctl -w kernel.unprivileged_userns_clone=1")
	}
	if sysctl("kernel/apparmor_restrict_unprivileged_userns") == "1" {
		fixes = append(fixes, "AppArmor restricts unprivileged user namespaces (Ubuntu 23.10 and later): give bwrap an AppArmor profile that allows them, or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (docs/install.md, \"What a cluster needs\")")
	}
	if sysctl("user/max_user_namespaces") == "0" {
		fixes = append(fixes, "user namespaces are disabled: sysctl -w user.max_user_namespaces=10000")
	}
	if inContainer() {
		fixes = append(fixes, "in a container, Docker's and containerd's default seccomp profiles refuse the namespaces bwrap needs: "+
			"run it with deploy/seccomp-bwrap.json and an unmasked /proc (docs/install.md, \"Running the image\")")
	}
	if len(fixes) == 0 {
		fixes = append(fixes, "bwrap needs unprivileged user namespaces, or root with CAP_SYS_ADMIN: "+
			"allow them on the host (docs/install.md, \"What a cluster needs\")")
	}
	return strings.Join(fixes, "; ")
}

func sysctl(name string) string {
	b, err := os.ReadFile(filepath.Join("/proc/sys", name))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func inContainer() bool {
	for _, f := range []string{"/.dockerenv", "/run/.containerenv"} {
		if _, err := os.Stat(f); err == nil {
			return true
		}
	}
	return os.Getenv("KUBERNETES_SERVICE_HOST") != ""
}

// netnsArgs run a command in network, IPC and UTS namespaces of its own, without a user
// namespace: root can make them where bubblewrap is missing, and then the host's
// loopback is out of a job's reach.
func netnsArgs(unshare string) []string { return []string{unshare, "--net", "--ipc", "--uts", "--"} }

// reduce prepares the mode without bubblewrap. As root, jobs already run as lane uids;
// here the caller's private directories are closed to them, and from now on every file
// this process creates is its own (umask 077), so no workshop, journal or delivery
// written later is open to them either. They get a network namespace when the kernel
// allows it, and traversal (o+x, never reading) of the directories above their job
// directories and the build cache. Without root nothing separates a job from this
// process: reducedHolds says so.
func (s *Sandbox) reduce(ctx context.Context, private []string) error {
	if !s.root {
		return nil
	}
	syscall.Umask(0o077)
	for _, dir := range private {
		if err := seal(dir); err != nil {
			return err
		}
	}
	if p, err := exec.LookPath("unshare"); err == nil {
		probe := exec.CommandContext(ctx, p, append(netnsArgs(p)[1:], "true")...)
		probe.Env = []string{"PATH=/usr/bin:/bin"}
		if probe.Run() == nil {
			s.unshare = p
		}
	}
	if err := openPath(s.work); err != nil {
		return err
	}
	if s.cacheDir != "" {
		return openPath(s.cacheDir) // the cache itself is the lanes' group's
	}
	return nil
}

// seal takes reading and writing from other users on everything of this process's
// under dir, and keeps traversal where a directory had it: judges running now keep
// reaching their job directories, and nothing else there can be listed or read.
// Symbolic links are not followed. The lanes' own files are not ours to change, and
// what lies in a directory others may write (the build cache) is not touched: it could
// be swapped for a link between a look and a chmod.
func seal(dir string) error {
	me := os.Geteuid()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while we walked: a finished job
		}
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		fi, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != me {
			return skipDir(d)
		}
		closed := fs.FileMode(0o007)
		if d.IsDir() {
			closed = 0o006
		}
		if perm := fi.Mode().Perm(); perm&closed != 0 {
			mode := fi.Mode() & (fs.ModePerm | fs.ModeSetgid | fs.ModeSetuid | fs.ModeSticky)
			if err := os.Chmod(p, mode&^closed); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		if p != dir && fi.Mode().Perm()&0o022 != 0 {
			return skipDir(d)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("close %s to other users: %w", dir, err)
	}
	return nil
}

// skipDir is WalkDir's answer that passes over d, and all below it if it is a directory.
func skipDir(d fs.DirEntry) error {
	if d.IsDir() {
		return fs.SkipDir
	}
	return nil
}

// openPath lets the lanes' uids traverse every directory above dir by adding o+x where
// it is missing, and nothing else: a lane reaches its own job directory but lists no
// directory and reads no file it could not read before. The server keeps its own files
// from other users (umask 077), so the path opens nothing of its state. A home
// directory stays closed: files in homes are often readable by whoever reaches them.
func openPath(dir string) error {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("reach %s: %w", dir, err)
	}
	home, _ := os.UserHomeDir()
	for _, d := range ancestors(real) {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("reach %s: %w", dir, err)
		}
		mode := fi.Mode() & (fs.ModePerm | fs.ModeSetgid | fs.ModeSetuid | fs.ModeSticky)
		if mode&0o001 != 0 {
			continue
		}
		if d == home {
			return fmt.Errorf("without a sandbox, tests run as other users and must traverse %s (mode %s) to reach %s; "+
				"it is a home directory, so it stays closed: put the state directory outside it, or install bubblewrap",
				d, fi.Mode().Perm(), dir)
		}
		if err := os.Chmod(d, mode|0o001); err != nil {
			return fmt.Errorf("let the lanes traverse %s: %w", d, err)
		}
	}
	return nil
}

// Isolation names what holds around a job, for logs and reports: "bwrap", or "none: …"
// with what still holds without it.
func (s *Sandbox) Isolation() string {
	switch {
	case s.bwrap != "":
		return "bwrap"
	case s.root && s.unshare != "":
		return "none: lane uids, no network"
	case s.root:
		return "none: lane uids, network reachable"
	}
	return "none: tests run as this user"
}

// reducedHolds says in plain words what the mode without bubblewrap still keeps.
func (s *Sandbox) reducedHolds() string {
	switch {
	case s.root && s.unshare != "":
		return "tests run as separate uids, which read no file other users cannot, in a network namespace of their own " +
			"(no loopback); they see the host's other files and its processes"
	case s.root:
		return "tests run as separate uids, which read no file other users cannot; they reach the host's network, " +
			"loopback included (the kernel refused a network namespace), and see its processes"
	}
	return "tests run as this user: they can read every file it can (its keys, its state, the workshop), " +
		"see its processes and reach the network; only rlimits, a new session, a scrubbed environment and timeouts apply, " +
		"and agents' commands are refused"
}

// exposes says how a job could read the host file path, or "" when it cannot.
func (s *Sandbox) exposes(path string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if s.bwrap != "" {
		bound := s.bound(real)
		if bound == "" {
			return "", nil
		}
		if !s.root {
			return fmt.Sprintf("it lies under %s, which every sandbox sees, and tests run as this user", bound), nil
		}
	} else if !s.root {
		return "tests run as this user", nil
	}
	// As root, jobs run as lane uids: only what any user may read is open to them.
	return othersRead(real)
}

// bound returns the host directory bound into every sandbox that holds path, or "".
func (s *Sandbox) bound(path string) string {
	for _, d := range append(systemDirs(), s.mounts...) {
		if path == d || strings.HasPrefix(path, strings.TrimSuffix(d, "/")+"/") {
			return d
		}
	}
	return ""
}

// othersRead says why any user could read path: o+r on it and o+x on every directory
// above it; "" when some mode stops them.
func othersRead(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if fi.Mode().Perm()&0o004 == 0 {
		return "", nil
	}
	for _, d := range ancestors(path) {
		di, err := os.Stat(d)
		if err != nil {
			return "", fmt.Errorf("%s: %w", d, err)
		}
		if di.Mode().Perm()&0o001 == 0 {
			return "", nil
		}
	}
	return fmt.Sprintf("its mode %s lets any user read it, and tests run as other users", fi.Mode().Perm()), nil
}

// OpenToLanes lets the lanes traverse (o+x, never list) every directory above dir, which
// they must do when they run as other uids without bubblewrap (see openPath); it does
// nothing otherwise.
func (s *Sandbox) OpenToLanes(dir string) error {
	if s.bwrap == "" && s.root {
		return openPath(dir)
	}
	return nil
}
