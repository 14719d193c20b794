package languages

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

func goToolchain(ctx context.Context, bin string) (sandbox.Toolchain, error) {
	goBin := cmp.Or(bin, "go")
	out, err := hostLines(ctx, goBin, "env", "GOROOT", "GOMODCACHE")
	if err != nil {
		return sandbox.Toolchain{}, err
	}
	if len(out) != 2 || out[0] == "" {
		return sandbox.Toolchain{}, fmt.Errorf("go env: unexpected output %q", out)
	}
	goroot, modcache := out[0], out[1]
	tc := sandbox.Toolchain{
		Mounts: []string{goroot},
		Path:   []string{filepath.Join(goroot, "bin")},
		Env: map[string]string{
			// Only the compiler runs at build time: no cgo, no network, no toolchain switch.
			// -mod=mod builds from the module cache, checked against go.sum, whatever
			// the tree's vendor/ holds, and GOWORK=off keeps a go.work of the tree from
			// putting directories of its own in place of modules: a test's imports from
			// outside the tree are the modules go.sum names, not the coder's copies.
			"CGO_ENABLED": "0",
			"GOPROXY":     "off",
			"GOFLAGS":     "-mod=mod",
			"GOWORK":      "off",
			"GOTOOLCHAIN": "local",
			"GOTELEMETRY": "off",
			"GOPATH":      "/tmp/gopath",
			"GOCACHE":     "/tmp/gocache",
		},
		CacheVar: "GOCACHE",
		CacheSub: "go-build",
		Check:    "go version",
		// A module with a test: go vet and go test compile testing and what it imports.
		ExecSeed: "printf 'module seed\\n' >go.mod && printf 'package seed\\n' >seed.go && " +
			"printf 'package seed\\n\\nimport \"testing\"\\n\\nfunc TestSeed(t *testing.T) {}\\n' >seed_test.go && " +
			"go vet ./... && go test -count=1 ./... >/dev/null",
		// go mod download fetches through the module proxy and checks sum.golang.org;
		// the builds then read only what it put in the cache.
		PrepareEnv: map[string]string{"GOPROXY": goProxy(ctx, goBin), "GOMODCACHE": "{deps}/gomod", "GOFLAGS": "-mod=mod -modcacherw"},
		DepsEnv:    map[string]string{"GOMODCACHE": "{deps}/gomod"},
		Manifests:  goReplaced,
	}
	if modcache != "" {
		tc.Env["GOMODCACHE"] = modcache
		if _, err := os.Stat(modcache); err == nil {
			tc.Mounts = append(tc.Mounts, modcache)
			tc.Seed = filepath.Join(modcache, "cache", "download")
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

// pythonSeedTree compiles every module of the tree ({src}) to checked-hash bytecode,
// which an interpreter uses only for a source of the same hash: one compile serves every
// coder's tree, and a module a coder changed is compiled by its own jobs. Nothing of the
// tree runs: -I keeps the tree off sys.path, and links are not followed.
const pythonSeedTree = `python3 -I -W ignore -X pycache_prefix={out} -c '
import os, sys, py_compile
root, skip = sys.argv[1], sys.argv[2]
mode = py_compile.PycInvalidationMode.CHECKED_HASH
for d, dirs, files in os.walk(root):
    dirs[:] = [x for x in dirs if x not in (skip, ".git")]
    for f in files:
        p = os.path.join(d, f)
        if f.endswith(".py") and not os.path.islink(p):
            try:
                py_compile.compile(p, invalidation_mode=mode, doraise=True)
            except Exception:
                pass
' "$PWD" {skip}`

// pycacheUnder is where, below sandbox.KeepDir, Python's runs keep their bytecode.
const pycacheUnder = "pycache"

func pythonToolchain(ctx context.Context, bin string) (sandbox.Toolchain, error) {
	// -I: the library as the runs see it (-P there), not the judge's own PYTHONPATH.
	out, err := hostLines(ctx, cmp.Or(bin, "python3"), "-I", "-c",
		"import sys, os; print(sys.prefix); print(sys.base_prefix); print(os.path.dirname(sys.executable)); "+
			"print(sys.implementation.cache_tag or ''); print('\\n'.join(p for p in sys.path if os.path.isabs(p)))")
	if err != nil {
		return sandbox.Toolchain{}, err
	}
	if len(out) < 3 {
		return sandbox.Toolchain{}, fmt.Errorf("python3: unexpected output %q", out)
	}
	var mirror sandbox.Mirror
	if len(out) > 4 && out[3] != "" {
		tag := out[3]
		mirror = sandbox.Mirror{Dirs: out[4:], Cache: "__pycache__", Suffix: "." + tag + ".pyc", Under: pycacheUnder}
	}
	return sandbox.Toolchain{
		// The interpreter's own library, compiled as it was installed (Debian compiles it
		// at install time), for the runs that read bytecode under the prefix below.
		Mirror:   mirror,
		SeedTree: pythonSeedTree,
		Mounts:   []string{out[0], out[1]},
		Path:     []string{out[2]},
		// Bytecode goes to the invocation's private /tmp, never into the tree, in the
		// place the wrapper keeps between runs: the runs of one job share it (pytest's and
		// sympy's modules compiled once, not on each of 20 runs), and no job sees
		// another's. Code under test may rewrite it, but only for the runs after the
		// first, which the verdict already needs to have passed on its own.
		Env:   map[string]string{"PYTHONPYCACHEPREFIX": sandbox.KeepDir + "/" + pycacheUnder + "/"},
		Check: "python3 -c pass && " + reportCheck,
		// pip's own cache lives in the prepare's private HOME: only the venv is kept.
		PrepareEnv: map[string]string{"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"},
		DepsEnv:    map[string]string{"VIRTUAL_ENV": "{deps}/venv"},
		DepsPath:   []string{"{deps}/venv/bin"},
	}, nil
}

func nodeToolchain(ctx context.Context, nodeBin string) (sandbox.Toolchain, error) {
	out, err := hostLines(ctx, cmp.Or(nodeBin, "node"), "-p", `process.execPath + "\n" + process.allowedNodeEnvironmentFlags.has("--disable-wasm-trap-handler")`)
	if err != nil {
		return sandbox.Toolchain{}, err
	}
	if len(out) != 2 {
		return sandbox.Toolchain{}, fmt.Errorf("node: unexpected output %q", out)
	}
	// Under an address-space limit V8 cannot reserve a WebAssembly memory's guard
	// regions (vite, yarn 4: "Out of memory: Cannot allocate Wasm memory"); inline bounds
	// checks need none. Node 20.15 and 22.2 have the flag.
	var bounded map[string]string
	if out[1] == "true" {
		bounded = map[string]string{"NODE_OPTIONS": "--disable-wasm-trap-handler"}
	}
	bin, err := filepath.EvalSymlinks(out[0])
	if err != nil {
		return sandbox.Toolchain{}, fmt.Errorf("node: %w", err)
	}
	prefix := filepath.Dir(filepath.Dir(bin))
	prepareEnv := map[string]string{"npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"}
	// A judge behind a TLS-intercepting proxy names its CA this way; npm reads it from
	// its own npmrc, yarn 2 and later only from here.
	if ca := os.Getenv("NODE_EXTRA_CA_CERTS"); filepath.IsAbs(ca) {
		if _, err := os.Stat(ca); err == nil {
			prepareEnv["NODE_EXTRA_CA_CERTS"] = ca
		}
	}
	return sandbox.Toolchain{
		Mounts: []string{prefix},
		Path:   []string{filepath.Dir(out[0]), filepath.Dir(bin)},
		Check:  "node -e 0 && " + reportCheck,
		// npm's download cache lives in the prepare's private HOME: only node_modules is
		// kept, and it appears in the tree read-only.
		BoundedEnv: bounded,
		PrepareEnv: prepareEnv,
		DepsPath:   []string{"{src}/node_modules/.bin"},
		DepsBinds:  []string{"node_modules"},
		// vite bundles its config into .vite-temp, vitest and vite keep caches in .vite,
		// babel, eslint and others in .cache.
		DepsScratch: []string{"node_modules/.vite-temp", "node_modules/.vite", "node_modules/.cache"},
		Tools:       nodeTools,
	}, nil
}

// rustToolchain mounts the active toolchain's sysroot (rustc, cargo and the standard
// library), not rustup's proxies, which would look for their own home.
func rustToolchain(ctx context.Context, bin string) (sandbox.Toolchain, error) {
	out, err := hostLines(ctx, cmp.Or(bin, "rustc"), "--print", "sysroot")
	if err != nil {
		return sandbox.Toolchain{}, err
	}
	if len(out) != 1 || !filepath.IsAbs(out[0]) {
		return sandbox.Toolchain{}, fmt.Errorf("rustc --print sysroot: unexpected output %q", out)
	}
	sysroot := out[0]
	if _, err := os.Stat(filepath.Join(sysroot, "bin", "cargo")); err != nil {
		return sandbox.Toolchain{}, fmt.Errorf("cargo is not in the toolchain at %s: %w", sysroot, err)
	}
	return sandbox.Toolchain{
		Mounts: []string{sysroot},
		Path:   []string{filepath.Join(sysroot, "bin")},
		// CARGO_HOME holds the registry cargo fetch fills; builds read it offline.
		Env:        map[string]string{"CARGO_HOME": "/tmp/cargo", "CARGO_TERM_COLOR": "never", "CARGO_INCREMENTAL": "0"},
		Check:      "cargo --version && " + reportCheck,
		PrepareEnv: map[string]string{"CARGO_HOME": "{deps}/cargo"},
		DepsEnv:    map[string]string{"CARGO_HOME": "{deps}/cargo", "CARGO_NET_OFFLINE": "true"},
	}, nil
}

// javaToolchain mounts the JDK that java on the host's PATH belongs to, and names the
// JUnit Platform console launcher of Debian's junit5 package.
func javaToolchain(_ context.Context, javac string) (sandbox.Toolchain, error) {
	bin, err := exec.LookPath(cmp.Or(javac, "javac"))
	if err != nil {
		return sandbox.Toolchain{}, fmt.Errorf("javac (a JDK) is not on the PATH: %w", err)
	}
	if bin, err = filepath.EvalSymlinks(bin); err != nil {
		return sandbox.Toolchain{}, fmt.Errorf("javac: %w", err)
	}
	home := filepath.Dir(filepath.Dir(bin))
	return sandbox.Toolchain{
		Mounts: []string{home},
		Path:   []string{filepath.Join(home, "bin")},
		Env:    map[string]string{"JUNIT_CONSOLE": "/usr/share/java/junit-platform-console-standalone.jar"},
		Check:  "javac -version && java -version && " + reportCheck,
	}, nil
}

// mavenToolchain is the JDK's, with Maven (found on the host's PATH, under /usr on
// Debian) and the offline repository it reads.
func mavenToolchain(ctx context.Context, javac string) (sandbox.Toolchain, error) {
	tc, err := javaToolchain(ctx, javac)
	if err != nil {
		return sandbox.Toolchain{}, err
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return sandbox.Toolchain{}, fmt.Errorf("mvn (Maven) is not on the PATH: %w", err)
	}
	if mvn, err = filepath.EvalSymlinks(mvn); err != nil {
		return sandbox.Toolchain{}, fmt.Errorf("mvn: %w", err)
	}
	home := filepath.Dir(filepath.Dir(mvn))
	tc.Mounts = append(tc.Mounts, home)
	tc.Path = append(tc.Path, filepath.Dir(mvn))
	tc.Env = map[string]string{"MAVEN_REPO": "/usr/share/maven-repo", "JAVA_HOME": filepath.Dir(tc.Path[0])}
	tc.Check = "mvn -v && " + reportCheck
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
