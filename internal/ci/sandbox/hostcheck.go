package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// HostCheck is what a server proves before it takes any work.
type HostCheck struct {
	// Mode is Bwrap or None: a server never falls back by itself.
	Mode Mode
	// StateDir holds the server's state; the check's sandbox works under it, as the runs'
	// judges do.
	StateDir string
	// Private are directories no job may read (Config.Private), StateDir among them.
	Private []string
	// Secrets are files no job may read, by the setting that names them
	// ("github.private_key_file": path); empty paths are skipped.
	Secrets map[string]string
	Logger  *slog.Logger
}

// CheckHost starts a sandbox as a server's runs will, which proves that it starts on this
// host, and checks that the code it will judge cannot read the server's secret files. It
// returns the isolation in force. With sandbox none and without root nothing keeps a job
// from this process's files: that is the operator's explicit choice, so it is logged and
// named in the isolation rather than refused.
func CheckHost(c HostCheck) (string, error) {
	if c.Mode != Bwrap && c.Mode != None {
		return "", fmt.Errorf("sandbox %q: want bwrap or none", c.Mode)
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := New(ctx, Config{Toolchain: Toolchain{Check: "true"}, Mode: c.Mode,
		WorkDir: filepath.Join(c.StateDir, "sandbox-check"), Parallel: 1, Private: c.Private, Logger: c.Logger})
	if err != nil {
		return "", err
	}
	defer s.Close()
	if err := s.checkSecrets(c.Secrets, c.Logger); err != nil {
		return "", err
	}
	return s.Isolation(), nil
}

// checkSecrets refuses a secret file a job could read, unless nothing separates jobs
// from this process anyway (no bubblewrap, no root): then it warns.
func (s *Sandbox) checkSecrets(secrets map[string]string, log *slog.Logger) error {
	names := make([]string, 0, len(secrets))
	for name, path := range secrets {
		if path != "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var open []string
	for _, name := range names {
		path := secrets[name]
		why, err := s.exposes(path)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		switch {
		case why == "":
		case s.bwrap == "" && !s.root:
			open = append(open, name+" "+path)
		default:
			return fmt.Errorf("the code under test could read %s %s: %s; %s", name, path, why, hideFix(s, path))
		}
	}
	if len(open) > 0 {
		log.Warn("ci: without a sandbox and without root, the code under test can read the server's secret files",
			"files", open, "uid", os.Getuid())
	}
	return nil
}

// hideFix says how to take a secret file out of the jobs' reach.
func hideFix(s *Sandbox, path string) string {
	if d := s.bound(path); s.bwrap != "" && d != "" && !s.root {
		return fmt.Sprintf("move it out of %s, which every sandbox sees read-only (for example to /secrets)", d)
	}
	return fmt.Sprintf("make it readable by its owner only (chmod 600 %s; on Kubernetes, defaultMode: 0400 on the secret's volume)", path)
}
