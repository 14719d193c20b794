package ci

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// toolchain is what a contract's toolchain needs from the host inside the sandbox.
type toolchain struct {
	mounts   []string          // host paths bound read-only at the same place
	path     []string          // directories put first on PATH
	env      map[string]string // set for builds and runs
	buildEnv map[string]string // set for builds only, over env
	cacheVar string            // variable naming the judge-owned build cache, if any
	cacheSub string            // the cache's directory under CacheDir
	check    string            // a command that proves the toolchain works in the sandbox
}

func goToolchain(ctx context.Context) (toolchain, error) {
	out, err := hostLines(ctx, "go", "env", "GOROOT", "GOMODCACHE")
	if err != nil {
		return toolchain{}, err
	}
	if len(out) != 2 || out[0] == "" {
		return toolchain{}, fmt.Errorf("go env: unexpected output %q", out)
	}
	goroot, modcache := out[0], out[1]
	tc := toolchain{
		mounts: []string{goroot},
		path:   []string{filepath.Join(goroot, "bin")},
		env: map[string]string{
			// Only the compiler runs at build time: no cgo, no network, no toolchain switch.
			"CGO_ENABLED": "0",
			"GOPROXY":     "off",
			"GOFLAGS":     "-mod=mod",
			"GOTOOLCHAIN": "local",
			"GOTELEMETRY": "off",
			"GOPATH":      "/tmp/gopath",
			"GOCACHE":     "/tmp/gocache",
		},
		cacheVar: "GOCACHE",
		cacheSub: "go-build",
		check:    "go version",
	}
	if modcache != "" {
		tc.env["GOMODCACHE"] = modcache
		if _, err := os.Stat(modcache); err == nil {
			tc.mounts = append(tc.mounts, modcache)
		}
	}
	return tc, nil
}

func pythonToolchain(ctx context.Context) (toolchain, error) {
	out, err := hostLines(ctx, "python3", "-c",
		"import sys, os; print(sys.prefix); print(sys.base_prefix); print(os.path.dirname(sys.executable))")
	if err != nil {
		return toolchain{}, err
	}
	if len(out) != 3 {
		return toolchain{}, fmt.Errorf("python3: unexpected output %q", out)
	}
	return toolchain{
		mounts: []string{out[0], out[1]},
		path:   []string{out[2]},
		env:    map[string]string{"PYTHONDONTWRITEBYTECODE": "1"},
		check:  "python3 -c pass && " + reportCheck,
	}, nil
}

func nodeToolchain(ctx context.Context) (toolchain, error) {
	out, err := hostLines(ctx, "node", "-p", "process.execPath")
	if err != nil {
		return toolchain{}, err
	}
	if len(out) != 1 {
		return toolchain{}, fmt.Errorf("node: unexpected output %q", out)
	}
	bin, err := filepath.EvalSymlinks(out[0])
	if err != nil {
		return toolchain{}, fmt.Errorf("node: %w", err)
	}
	prefix := filepath.Dir(filepath.Dir(bin))
	return toolchain{
		mounts: []string{prefix},
		path:   []string{filepath.Dir(out[0]), filepath.Dir(bin)},
		check:  "node -e 0 && " + reportCheck,
	}, nil
}

// reportCheck proves the sandbox can send a report file to the judge (the wrapper
// encodes it with base64); the presets of these toolchains write one.
const reportCheck = "base64 </dev/null"

// hostLines runs a host command and returns its trimmed output lines.
func hostLines(ctx context.Context, name string, args ...string) ([]string, error) {
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return strings.Split(strings.TrimRight(string(out), "\n"), "\n"), nil
}

// hostMounts drops missing paths and paths already visible through another mount
// (judged on their resolved form, so /usr/local/go is not bound twice).
func hostMounts(base []string, extra []string) []string {
	var keep, seen []string
	covered := func(p string) bool {
		for _, b := range append(append([]string{}, base...), seen...) {
			if p == b || strings.HasPrefix(p, strings.TrimSuffix(b, "/")+"/") {
				return true
			}
		}
		return false
	}
	for _, p := range extra {
		real, err := filepath.EvalSymlinks(p)
		if err != nil || covered(real) {
			continue
		}
		keep = append(keep, filepath.Clean(p))
		seen = append(seen, real)
	}
	return keep
}
