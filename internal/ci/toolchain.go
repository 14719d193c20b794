package ci

import (
	"bytes"
	"cmp"
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

	// With a prepared dependency cache ("{deps}" in values is where it is mounted,
	// "{src}" the tree): prepareEnv is set over env while preparing (with network),
	// depsEnv and depsPath (first on PATH) while building and running, offline, and
	// depsBinds are the cache's directories that appear at the same place in the tree.
	prepareEnv map[string]string
	depsEnv    map[string]string
	depsPath   []string
	depsBinds  []string
	// seed is a host directory the prepare may take downloads from before the network
	// (Go: the host's module cache as a file:// proxy), if the lanes can read it.
	seed string
	// treeEnv is what a tree's own layout calls for (Go's vendor/), read by the judge
	// from its copy before anything of the tree runs.
	treeEnv func(src string) map[string]string
}

func goToolchain(ctx context.Context, bin string) (toolchain, error) {
	goBin := cmp.Or(bin, "go")
	out, err := hostLines(ctx, goBin, "env", "GOROOT", "GOMODCACHE")
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
		// go mod download fetches through the module proxy and checks sum.golang.org;
		// the builds then read only what it put in the cache.
		prepareEnv: map[string]string{"GOPROXY": goProxy(ctx, goBin), "GOMODCACHE": "{deps}/gomod", "GOFLAGS": "-mod=mod -modcacherw"},
		depsEnv:    map[string]string{"GOMODCACHE": "{deps}/gomod"},
		treeEnv:    goTreeEnv,
	}
	if modcache != "" {
		tc.env["GOMODCACHE"] = modcache
		if _, err := os.Stat(modcache); err == nil {
			tc.mounts = append(tc.mounts, modcache)
			tc.seed = filepath.Join(modcache, "cache", "download")
		}
	}
	return tc, nil
}

// goProxy is the host's module proxy setting, for prepares: a server behind its own
// proxy or mirror configures it the way go does.
func goProxy(ctx context.Context, goBin string) string {
	out, err := hostLines(ctx, goBin, "env", "GOPROXY")
	if err != nil || len(out) != 1 || out[0] == "" || out[0] == "off" {
		return "https://proxy.golang.org,direct"
	}
	return out[0]
}

// goTreeEnv builds a vendored module from its vendor/ directory, as go itself would
// (the judge otherwise forces -mod=mod).
func goTreeEnv(src string) map[string]string {
	if fi, err := os.Lstat(filepath.Join(src, "vendor", "modules.txt")); err == nil && fi.Mode().IsRegular() {
		return map[string]string{"GOFLAGS": "-mod=vendor"}
	}
	return nil
}

func pythonToolchain(ctx context.Context, bin string) (toolchain, error) {
	out, err := hostLines(ctx, cmp.Or(bin, "python3"), "-c",
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
		// pip's own cache lives in the prepare's private HOME: only the venv is kept.
		prepareEnv: map[string]string{"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"},
		depsEnv:    map[string]string{"VIRTUAL_ENV": "{deps}/venv"},
		depsPath:   []string{"{deps}/venv/bin"},
	}, nil
}

func nodeToolchain(ctx context.Context, nodeBin string) (toolchain, error) {
	out, err := hostLines(ctx, cmp.Or(nodeBin, "node"), "-p", "process.execPath")
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
		// npm's download cache lives in the prepare's private HOME: only node_modules is
		// kept, and it appears in the tree read-only.
		prepareEnv: map[string]string{"npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"},
		depsPath:   []string{"{src}/node_modules/.bin"},
		depsBinds:  []string{"node_modules"},
	}, nil
}

// rustToolchain mounts the active toolchain's sysroot (rustc, cargo and the standard
// library), not rustup's proxies, which would look for their own home.
func rustToolchain(ctx context.Context, bin string) (toolchain, error) {
	out, err := hostLines(ctx, cmp.Or(bin, "rustc"), "--print", "sysroot")
	if err != nil {
		return toolchain{}, err
	}
	if len(out) != 1 || !filepath.IsAbs(out[0]) {
		return toolchain{}, fmt.Errorf("rustc --print sysroot: unexpected output %q", out)
	}
	sysroot := out[0]
	if _, err := os.Stat(filepath.Join(sysroot, "bin", "cargo")); err != nil {
		return toolchain{}, fmt.Errorf("cargo is not in the toolchain at %s: %w", sysroot, err)
	}
	return toolchain{
		mounts: []string{sysroot},
		path:   []string{filepath.Join(sysroot, "bin")},
		// CARGO_HOME holds the registry cargo fetch fills; builds read it offline.
		env:        map[string]string{"CARGO_HOME": "/tmp/cargo", "CARGO_TERM_COLOR": "never", "CARGO_INCREMENTAL": "0"},
		check:      "cargo --version && " + reportCheck,
		prepareEnv: map[string]string{"CARGO_HOME": "{deps}/cargo"},
		depsEnv:    map[string]string{"CARGO_HOME": "{deps}/cargo", "CARGO_NET_OFFLINE": "true"},
	}, nil
}

// javaToolchain mounts the JDK that java on the host's PATH belongs to, and names the
// JUnit Platform console launcher of Debian's junit5 package.
func javaToolchain(_ context.Context, javac string) (toolchain, error) {
	bin, err := exec.LookPath(cmp.Or(javac, "javac"))
	if err != nil {
		return toolchain{}, fmt.Errorf("javac (a JDK) is not on the PATH: %w", err)
	}
	if bin, err = filepath.EvalSymlinks(bin); err != nil {
		return toolchain{}, fmt.Errorf("javac: %w", err)
	}
	home := filepath.Dir(filepath.Dir(bin))
	return toolchain{
		mounts: []string{home},
		path:   []string{filepath.Join(home, "bin")},
		env:    map[string]string{"JUNIT_CONSOLE": "/usr/share/java/junit-platform-console-standalone.jar"},
		check:  "javac -version && java -version && " + reportCheck,
	}, nil
}

// mavenToolchain is the JDK's, with Maven (found on the host's PATH, under /usr on
// Debian) and the offline repository it reads.
func mavenToolchain(ctx context.Context, javac string) (toolchain, error) {
	tc, err := javaToolchain(ctx, javac)
	if err != nil {
		return toolchain{}, err
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return toolchain{}, fmt.Errorf("mvn (Maven) is not on the PATH: %w", err)
	}
	if mvn, err = filepath.EvalSymlinks(mvn); err != nil {
		return toolchain{}, fmt.Errorf("mvn: %w", err)
	}
	home := filepath.Dir(filepath.Dir(mvn))
	tc.mounts = append(tc.mounts, home)
	tc.path = append(tc.path, filepath.Dir(mvn))
	tc.env = map[string]string{"MAVEN_REPO": "/usr/share/maven-repo", "JAVA_HOME": filepath.Dir(tc.path[0])}
	tc.check = "mvn -v && " + reportCheck
	return tc, nil
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
