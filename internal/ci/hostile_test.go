package ci

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"text/template"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/sandbox"
)

// hostileTimeout is the per-run timeout of the hostile judge: short, so the kinds that
// can only be stopped by it cost little.
const hostileTimeout = 4 * time.Second

// minHostileKinds keeps the list of hostile kinds from shrinking silently.
const minHostileKinds = 25

// hostileKind is one file of testdata/hostile: a Go test for the coder tree of
// goModule, written as a text/template over hostileEnv, with a header of "// key: value"
// lines before its package clause:
//
//	// hostile: what it attempts
//	// want: fail timeout overlimit build_failed tampered (the verdicts that mean it was contained)
//	// output: a fragment the verdict's output must contain (optional)
//	// known-gap: why the judge does not contain it yet (optional; then a pass is reported, not failed)
//	// cross-job: yes (optional: it runs on the victim's tree first, then on a clean tree in every lane)
type hostileKind struct {
	name     string
	what     string
	want     []Outcome
	output   string
	gap      string
	crossJob bool
	test     []byte
}

// hostileEnv is what the harness plants for the hostile tests to go after, handed to
// their templates. Every planted secret contains Prefix; the full secret is never in a
// test file, so finding it anywhere in a verdict proves a leak.
type hostileEnv struct {
	Prefix, Marker             string
	Outside, SecretFile        string
	SSHKey, TestsRepo, Journal string
	Sibling, Work, HostHome    string
	GoRoot, ModCache           string
	TCP, UDP, HTTP             []string // host addresses that count what reaches them
	Abstract                   string   // abstract unix socket the host listens on
	HostPIDs                   []int    // the judge and sleepers running as the lanes' uids
	Canaries                   []string // host paths that must not exist afterwards
	Appendable                 []string // host files that must not change
	TimeoutSeconds             int
}

// TestHostileTestsAreContained runs every hostile test of testdata/hostile through the
// real judge (bubblewrap, the Go preset, parallel lanes) in one batch, as the
// orchestrator would, and checks that each got a failing verdict, that nothing the
// harness planted on the host was reached, that no process outlived its job, and that
// the judge still passes a good test afterwards.
func TestHostileTestsAreContained(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ~45 sandboxed builds")
	}
	start := time.Now()
	secret := "dixit-secret-" + randomHex(12)
	const prefix = "dixit-secret-"
	marker := "dixit-hostile-" + randomHex(6)
	t.Cleanup(func() { killWithArg(marker) })

	// A descriptor the judge's process holds without close-on-exec, as one inherited from
	// a service manager or a CI runner would be: nothing must come out of it.
	leakR := leakyPipe(t)

	// Secrets in the judge's environment, as the server holds its tokens.
	for _, name := range []string{"DIXIT_HOSTILE_SECRET", "GITHUB_TOKEN", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DIXIT_WEBHOOK_SECRET"} {
		t.Setenv(name, secret)
	}

	outside := outsideDir(t)
	l := newGoJudge(t, hostileTimeout, func(o *LocalOptions) {
		o.WorkDir = filepath.Join(outside, "work") // not under /tmp, which the sandbox hides anyway
		o.Parallel = 4
		// Tighter than the defaults, so the bombs hit their limits fast and burn little CPU.
		o.Limits = sandbox.Limits{CPU: time.Second, Memory: 1 << 30, Procs: 64, FileSize: 16 << 20, Output: 1 << 20}
	})
	requireBwrap(t, l)

	env := plantHostile(t, l, outside, prefix, secret, marker)
	victims := startVictims(t, l)
	env.HostPIDs = append([]int{os.Getpid()}, victims...)
	counters := listenHostile(t, &env, secret)

	kinds := loadHostileKinds(t, env, secret)
	require.GreaterOrEqual(t, len(kinds), minHostileKinds, "the hostile kinds must not shrink")
	// Phase 0: one build that imports every package the kinds import, so the parallel
	// builds below find the standard library compiled instead of each compiling it.
	warm, err := l.Run(context.Background(), 1, []Job{{Coder: "warm", Tree: goModule(),
		Test: Test{ID: "warm", Content: warmUpTest(t, kinds)}}})
	require.NoError(t, err)
	require.Equal(t, Pass, warm[0].Outcome, warm[0].Output)

	sibling := filepath.Dir(env.Sibling)
	before := []map[string]string{snapshot(t, outside, l.sb.WorkDir()), snapshot(t, sibling, "")}

	// Phase 1: the victim (a coder whose tree holds a secret, running next to the bombs)
	// and every hostile kind, in one batch.
	victimTree := goModule().With("secret.go", "package x\n\n// "+secret+"\n")
	victimTest := goTest("time", "func TestVictim(t *testing.T) {\n\ttime.Sleep(1500 * time.Millisecond)\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal()\n\t}\n}\n")
	jobs := []Job{{Coder: "victim", Tree: victimTree, Test: Test{ID: "victim", Content: victimTest}}}
	for i, k := range kinds {
		tree := goModule()
		if k.crossJob {
			tree = victimTree
		}
		jobs = append(jobs, Job{Coder: k.name, Tree: tree, Test: Test{ID: fmt.Sprintf("h%02d", i), Content: k.test}})
	}
	vs, err := l.Run(context.Background(), 1, jobs)
	require.NoError(t, err, "a hostile test broke the judge itself")
	require.Len(t, vs, len(jobs))
	assert.Equal(t, Pass, vs[0].Outcome, "the victim next to the bombs: %s", vs[0].Output)
	verdicts := map[string]Verdict{}
	for i, k := range kinds {
		verdicts[k.name] = vs[i+1]
	}

	// Nothing may outlive its job: no process with the marker, none of the lanes' uids
	// but the harness's own sleepers, and the sleepers unharmed.
	assert.NoError(t, waitFor(3*time.Second, func() error {
		if processWithArg(marker) {
			return errors.New("a process with the hostile marker survived its job")
		}
		return laneLeftovers(l, victims)
	}))
	for _, pid := range victims {
		assert.True(t, alive(pid), "the host process %d, which shares a lane's uid, was killed", pid)
	}

	// Phase 2: the cross-job kinds look, on a clean tree, in every lane, for what phase 1
	// left; then a good test must still pass: the judge keeps serving.
	var later []Job
	var laterKind []int
	for i, k := range kinds {
		if !k.crossJob {
			continue
		}
		assert.NotEqual(t, Pass, verdicts[k.name].Outcome, "%s: the stashing job must fail", k.name)
		for lane := range len(l.sb.Lanes()) {
			later = append(later, Job{Coder: k.name, Tree: goModule(), Test: Test{ID: fmt.Sprintf("h%02d-later%d", i, lane), Content: k.test}})
			laterKind = append(laterKind, i)
		}
	}
	later = append(later, Job{Coder: "control", Tree: goModule(), Test: Test{ID: "control", Content: goTest("", passTest)}})
	vs2, err := l.Run(context.Background(), 1, later)
	require.NoError(t, err, "the judge failed after the hostile batch")
	require.Len(t, vs2, len(later))
	control := vs2[len(vs2)-1]
	assert.Equal(t, Pass, control.Outcome, "the judge no longer passes a good test: %s", control.Output)
	for j, i := range laterKind {
		if vs2[j].Outcome == Pass || verdicts[kinds[i].name].Outcome != Pass {
			verdicts[kinds[i].name] = vs2[j] // a kind counts as passing if any lane let it
		}
	}

	// Each kind: a verdict that means contained, never a pass while doing harm.
	for _, k := range kinds {
		v := verdicts[k.name]
		note := ""
		if k.gap != "" {
			note = "  known gap"
		}
		t.Logf("%-26s %-12s %5.1fs%s", k.name, v.Outcome, v.Seconds, note)
		t.Run(k.name, func(t *testing.T) {
			leaked := strings.Contains(v.Output, secret)
			if k.gap != "" {
				assert.Contains(t, append([]Outcome{Pass}, k.want...), v.Outcome, "output:\n%s", v.Output)
				if v.Outcome == Pass || leaked {
					t.Logf("KNOWN GAP, not contained here (%s): %s", v.Outcome, k.gap)
				} else {
					t.Logf("the known gap did not show here (%s); if it is closed, remove its known-gap line", v.Outcome)
				}
				return
			}
			assert.NotEqual(t, Pass, v.Outcome, "%s passed: the attack was not contained\noutput:\n%s", k.what, v.Output)
			assert.Contains(t, k.want, v.Outcome, "output:\n%s", v.Output)
			assert.Contains(t, v.Output, k.output)
			assert.False(t, leaked, "the planted secret is in the verdict's output:\n%s", v.Output)
			assert.LessOrEqual(t, len(v.Output), MaxOutput+128)
			assert.LessOrEqual(t, v.Runs, 1, "forged reports inflated the run count")
		})
	}

	// The host's side: nothing reached the listeners, nothing planted changed, no file
	// appeared where the tests tried to write, nothing came out of the leaked descriptor.
	assert.Zero(t, counters.tcp.Load(), "TCP connections reached the host")
	assert.Zero(t, counters.udp.Load(), "UDP datagrams reached the host")
	assert.Zero(t, counters.http.Load(), "HTTP requests reached the host")
	assert.Zero(t, counters.unix.Load(), "connections reached the host's abstract socket")
	assert.Equal(t, before, []map[string]string{snapshot(t, outside, l.sb.WorkDir()), snapshot(t, sibling, "")},
		"files planted on the host changed")
	for _, p := range env.Canaries {
		_, err := os.Lstat(p)
		assert.True(t, errors.Is(err, fs.ErrNotExist), "a hostile test created %s", p)
	}
	// Every job directory is gone, whatever its test did to its tree.
	entries, err := os.ReadDir(l.sb.WorkDir())
	require.NoError(t, err)
	for _, e := range entries {
		assert.False(t, strings.HasPrefix(e.Name(), "job-") && e.Name() != "job-sibling",
			"the judge left a job directory behind: %s", e.Name())
	}
	buf := make([]byte, 512)
	n, err := syscall.Read(leakR, buf)
	assert.True(t, errors.Is(err, syscall.EAGAIN), "the leaked descriptor was written to: %q (%v)", buf[:max(n, 0)], err)
	t.Logf("%d hostile kinds in %.1fs", len(kinds), time.Since(start).Seconds())
}

// loadHostileKinds reads and renders every template of testdata/hostile.
func loadHostileKinds(t *testing.T, env hostileEnv, secret string) []hostileKind {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "hostile", "*_test.go.tmpl"))
	require.NoError(t, err)
	funcs := template.FuncMap{
		"q": strconv.Quote,
		"list": func(s []string) string {
			q := make([]string, len(s))
			for i, v := range s {
				q[i] = strconv.Quote(v)
			}
			return "[]string{" + strings.Join(q, ", ") + "}"
		},
		"ints": func(s []int) string {
			q := make([]string, len(s))
			for i, v := range s {
				q[i] = strconv.Itoa(v)
			}
			return "[]int{" + strings.Join(q, ", ") + "}"
		},
	}
	var kinds []hostileKind
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		k := hostileKind{name: strings.TrimSuffix(filepath.Base(f), "_test.go.tmpl")}
		sc := bufio.NewScanner(bytes.NewReader(src))
		for sc.Scan() {
			key, value, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "// "), ": ")
			if !strings.HasPrefix(sc.Text(), "// ") || !ok {
				break
			}
			switch key {
			case "hostile":
				k.what = value
			case "want":
				for _, w := range strings.Fields(value) {
					o, ok := map[string]Outcome{"fail": Fail, "timeout": Timeout, "overlimit": OverLimit,
						"over_limit": OverLimit, "build_failed": BuildFailed, "buildfailed": BuildFailed, "tampered": Tampered}[w]
					require.True(t, ok, "%s: unknown outcome %q in want (pass is never wanted)", f, w)
					k.want = append(k.want, o)
				}
			case "output":
				k.output = value
			case "known-gap":
				k.gap = value
			case "cross-job":
				k.crossJob = value == "yes"
			}
		}
		require.NotEmpty(t, k.what, "%s: no hostile: line", f)
		require.NotEmpty(t, k.want, "%s: no want: line", f)
		tmpl, err := template.New(k.name).Funcs(funcs).Option("missingkey=error").Parse(string(src))
		require.NoError(t, err, f)
		var out bytes.Buffer
		require.NoError(t, tmpl.Execute(&out, env), f)
		require.NotContains(t, out.String(), secret, "%s: a test file must not hold the secret itself", f)
		k.test = out.Bytes()
		kinds = append(kinds, k)
	}
	return kinds
}

// warmUpTest is a test file importing every package the kinds import.
func warmUpTest(t *testing.T, kinds []hostileKind) []byte {
	t.Helper()
	imports := map[string]bool{"testing": true}
	for _, k := range kinds {
		f, err := parser.ParseFile(token.NewFileSet(), k.name+".go", k.test, parser.ImportsOnly)
		require.NoError(t, err, k.name)
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			imports[p] = true
		}
	}
	var b strings.Builder
	b.WriteString("package x\n\nimport (\n\t\"testing\"\n")
	for _, p := range slices.Sorted(maps.Keys(imports)) {
		if p != "testing" {
			fmt.Fprintf(&b, "\t_ %q\n", p)
		}
	}
	b.WriteString(")\n\nfunc TestWarm(t *testing.T) {}\n")
	return []byte(b.String())
}

// plantHostile lays out the host side: secrets where a test must not reach, and the
// paths the templates aim at.
func plantHostile(t *testing.T, l *Local, outside, prefix, secret, marker string) hostileEnv {
	t.Helper()
	home, _ := os.UserHomeDir()
	env := hostileEnv{
		Prefix:         prefix,
		Marker:         marker,
		Outside:        outside,
		SecretFile:     filepath.Join(outside, "secret.txt"),
		SSHKey:         filepath.Join(outside, ".ssh", "id_ed25519"),
		TestsRepo:      filepath.Join(outside, "tests-repo"),
		Journal:        filepath.Join(outside, "journal"),
		Sibling:        filepath.Join(l.sb.WorkDir(), "job-sibling", "src"),
		Work:           l.sb.WorkDir(),
		HostHome:       home,
		GoRoot:         l.sb.Toolchain().Mounts[0],
		ModCache:       l.sb.Toolchain().Env["GOMODCACHE"],
		TimeoutSeconds: int(hostileTimeout / time.Second),
	}
	files := map[string]string{
		env.SecretFile: secret + "\n",
		env.SSHKey:     "-----BEGIN OPENSSH PRIVATE KEY-----\n" + secret + "\n-----END OPENSSH PRIVATE KEY-----\n",
		filepath.Join(env.TestsRepo, ".git", "config"):       "[remote \"origin\"]\n\turl = https://x-access-token:" + secret + "@github.com/o/tests\n",
		filepath.Join(env.TestsRepo, "dixit_1_test.go"):      "package x\n\n// hidden test, " + secret + "\n",
		filepath.Join(env.Journal, "events.jsonl"):           `{"event":"prompt","text":"` + secret + `"}` + "\n",
		filepath.Join(env.Sibling, "secret.go"):              "package x\n\n// another coder's code, " + secret + "\n",
		filepath.Join(filepath.Dir(env.Sibling), "tmp", "x"): secret,
	}
	for p, content := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	name := "dixit-hostile-canary-" + randomHex(6)
	for _, dir := range []string{"/etc", "/usr", env.GoRoot, filepath.Join(env.GoRoot, "bin"), env.ModCache, l.sb.CacheDir(),
		sharedCache, outside, l.sb.WorkDir(), env.Sibling, env.Journal, env.TestsRepo, home, "/"} {
		if dir != "" {
			env.Canaries = append(env.Canaries, filepath.Join(dir, name))
		}
	}
	env.Appendable = []string{env.SecretFile, filepath.Join(env.Journal, "events.jsonl"),
		filepath.Join(env.TestsRepo, "dixit_1_test.go"), filepath.Join(env.Sibling, "secret.go")}
	return env
}

// hostileCounters count what reached the host's listeners.
type hostileCounters struct{ tcp, udp, http, unix atomic.Int32 }

// listenHostile starts a TCP, a UDP and an HTTP listener on every address of the host and
// an abstract unix socket; each answers with the secret and counts what reached it.
func listenHostile(t *testing.T, env *hostileEnv, secret string) *hostileCounters {
	t.Helper()
	c := &hostileCounters{}
	ips := []string{"127.0.0.1", "::1"}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
				ips = append(ips, n.IP.String())
			}
		}
	}
	hostPorts := func(port int) []string {
		out := make([]string, len(ips))
		for i, ip := range ips {
			out[i] = net.JoinHostPort(ip, strconv.Itoa(port))
		}
		return out
	}
	serve := func(ln net.Listener, n *atomic.Int32) {
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				n.Add(1)
				conn.Write([]byte(secret))
				conn.Close()
			}
		}()
	}
	tcp, err := net.Listen("tcp", ":0")
	require.NoError(t, err)
	serve(tcp, &c.tcp)
	env.TCP = hostPorts(tcp.Addr().(*net.TCPAddr).Port)

	abstract := "@dixit-hostile-" + randomHex(6)
	unix, err := net.Listen("unix", abstract)
	require.NoError(t, err)
	serve(unix, &c.unix)
	env.Abstract = abstract

	udp, err := net.ListenPacket("udp", ":0")
	require.NoError(t, err)
	t.Cleanup(func() { udp.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			_, from, err := udp.ReadFrom(buf)
			if err != nil {
				return
			}
			c.udp.Add(1)
			udp.WriteTo([]byte(secret), from)
		}
	}()
	env.UDP = hostPorts(udp.LocalAddr().(*net.UDPAddr).Port)

	web, err := net.Listen("tcp", ":0")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.http.Add(1)
		fmt.Fprintf(w, `{"choices":[{"message":{"content":%q}}]}`, secret)
	})}
	go srv.Serve(web)
	t.Cleanup(func() { srv.Close() })
	env.HTTP = hostPorts(web.Addr().(*net.TCPAddr).Port)
	return c
}

// startVictims runs one sleeper per lane as the lane's uid on the host, outside any
// sandbox: only the pid namespace keeps a test from signalling or tracing it.
func startVictims(t *testing.T, l *Local) []int {
	t.Helper()
	var pids []int
	for _, lane := range l.sb.Lanes() {
		cmd := exec.Command("sleep", "600")
		if l.sb.Root() {
			setpriv, err := exec.LookPath("setpriv") // as the sandbox found it
			require.NoError(t, err)
			cmd = exec.Command(setpriv, fmt.Sprintf("--reuid=%d", lane.UID), fmt.Sprintf("--regid=%d", lane.GID),
				"--clear-groups", "--", "sleep", "600")
		}
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		pids = append(pids, cmd.Process.Pid)
	}
	return pids
}

// laneLeftovers reports a process owned by a lane's uid other than the given ones.
func laneLeftovers(l *Local, except []int) error {
	if !l.sb.Root() {
		return nil // the lanes share this process's uid: only the marker tells
	}
	uids := map[string]bool{}
	for _, lane := range l.sb.Lanes() {
		uids[strconv.Itoa(lane.UID)] = true
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || slices.Contains(except, pid) {
			continue
		}
		status, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" && uids[f[1]] {
				cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
				return fmt.Errorf("process %d of a lane's uid %s survived: %q", pid, f[1], cmdline)
			}
		}
	}
	return nil
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && len(stat) > i+2 && stat[i+2] != 'Z'
}

// snapshot hashes every file under dir except skip's subtree.
func snapshot(t *testing.T, dir, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return fs.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[p] = hex.EncodeToString(sum[:])
		return nil
	})
	require.NoError(t, err)
	return out
}

// leakyPipe makes a pipe whose write end this process holds without close-on-exec and
// returns its read end.
func leakyPipe(t *testing.T) (r int) {
	t.Helper()
	var p [2]int
	syscall.ForkLock.Lock()
	err := syscall.Pipe2(p[:], 0)
	if err == nil {
		syscall.CloseOnExec(p[0])
	}
	syscall.ForkLock.Unlock()
	require.NoError(t, err)
	require.NoError(t, syscall.SetNonblock(p[0], true))
	t.Cleanup(func() { syscall.Close(p[0]); syscall.Close(p[1]) })
	return p[0]
}

// waitFor retries check until it succeeds or the time is up, and returns its last error.
func waitFor(d time.Duration, check func() error) error {
	deadline := time.Now().Add(d)
	for {
		err := check()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
