package ci

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
)

// HostCheck is what a server proves before it takes any work.
type HostCheck struct {
	// Sandbox is SandboxBwrap or SandboxNone: a server never falls back by itself.
	Sandbox Sandbox
	// StateDir holds the server's state; the check's judge works under it, as the runs'
	// judges do.
	StateDir string
	// Private are directories no job may read (LocalOptions.Private), StateDir among them.
	Private []string
	// Secrets are files no job may read, by the setting that names them
	// ("github.private_key_file": path); empty paths are skipped.
	Secrets map[string]string
	Logger  *slog.Logger
}

// CheckHost starts a judge as a server's runs will, which proves that the sandbox starts
// on this host, and checks that the code it will judge cannot read the server's secret
// files. It returns the isolation in force. With sandbox none and without root nothing
// keeps a job from this process's files: that is the operator's explicit choice, so it
// is logged and named in the isolation rather than refused.
func CheckHost(c HostCheck) (string, error) {
	if c.Sandbox != SandboxBwrap && c.Sandbox != SandboxNone {
		return "", fmt.Errorf("sandbox %q: want bwrap or none", c.Sandbox)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	l, err := NewLocal(LocalOptions{
		Contract: Contract{Path: "check_{id}", Run: "true"},
		WorkDir:  filepath.Join(c.StateDir, "sandbox-check"),
		Parallel: 1, Sandbox: c.Sandbox, Private: c.Private, Logger: c.Logger,
	})
	if err != nil {
		return "", err
	}
	defer l.Close()
	names := make([]string, 0, len(c.Secrets))
	for name, path := range c.Secrets {
		if path != "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var open []string
	for _, name := range names {
		path := c.Secrets[name]
		why, err := l.sb.exposes(path)
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		switch {
		case why == "":
		case l.sb.bwrap == "" && !l.sb.root:
			open = append(open, name+" "+path)
		default:
			return "", fmt.Errorf("the code under test could read %s %s: %s; %s", name, path, why, hideFix(l.sb, path))
		}
	}
	if len(open) > 0 {
		c.Logger.Warn("ci: without a sandbox and without root, the code under test can read the server's secret files",
			"files", open, "uid", os.Getuid())
	}
	return l.sb.isolation(), nil
}

// hideFix says how to take a secret file out of the jobs' reach.
func hideFix(s *sandbox, path string) string {
	if d := s.bound(path); s.bwrap != "" && d != "" && !s.root {
		return fmt.Sprintf("move it out of %s, which every sandbox sees read-only (for example to /secrets)", d)
	}
	return fmt.Sprintf("make it readable by its owner only (chmod 600 %s; on Kubernetes, defaultMode: 0400 on the secret's volume)", path)
}
