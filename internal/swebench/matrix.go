package swebench

import (
	"fmt"
	"log/slog"
	"os/exec"
	"sort"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// Cell values of a matrix row.
const (
	CellPass = "pass"
	CellFail = "fail"
	CellEnv  = "env" // the environment kept the test from giving an answer: never a result
)

// FormatVersion changes whenever the same inputs would give a different matrix: cached
// matrices of another version are computed again.
const FormatVersion = "swe-matrix/3"

// PytestAddopts is what every session adds to pytest's command line. Plain asserts: no
// test's outcome changes (pytest's rewriting only explains a failing assert), and
// rewriting the asserts of every laid-out copy of a big test module (sympy's
// test_polytools.py: about 1.4 s of CPU each, fourteen copies a session) cost more than
// the tests themselves.
const PytestAddopts = "--assert=plain"

// Matrix is one instance's pass matrix: every coder patch (and the base and the gold
// patch) against every test patch, with SWE-bench's label of each coder patch.
type Matrix struct {
	InstanceID string              `json:"instance_id"`
	Version    string              `json:"version"`
	Env        Env                 `json:"env"`
	Coders     []CoderRow          `json:"coders"`
	Tests      []TestColumn        `json:"tests"`
	Rows       map[string][]string `json:"rows"` // "base", "gold" and each coder: one cell per test, in Tests order
	EnvCells   []EnvCell           `json:"env_cells"`

	// LabelCheck holds the controls of the labels: every FAIL_TO_PASS test fails on
	// the base, every label test passes on the gold patch, and the corpus' gold check
	// agrees.
	LabelCheck LabelCheck `json:"label_check"`
	// LabelEnv lists the label tests the environment kept from an answer, per tree.
	LabelEnv []EnvCell `json:"label_env"`
	// Notes says what else a reader should know: a failure the code caused without a
	// test report (a timeout, a tree that does not import), a claimed duplicate that is
	// not one.
	Notes []string `json:"notes,omitempty"`
	// Sessions counts the pytest sessions run; InputsSHA256 keys the cache.
	Sessions     int    `json:"sessions"`
	InputsSHA256 string `json:"inputs_sha256"`
	Format       string `json:"format"`
}

// Env is the environment the matrix was made in.
type Env struct {
	Python    string  `json:"python"`
	Pytest    string  `json:"pytest"`
	Isolation string  `json:"isolation"` // "bubblewrap" or "none"
	Addopts   string  `json:"pytest_addopts"`
	Seconds   float64 `json:"seconds"` // wall time of the instance
}

// CoderRow describes one coder patch and its label.
type CoderRow struct {
	Name               string `json:"name"`
	Source             string `json:"source"`
	ResolvedOnlySource bool   `json:"resolved_only_source"`
	DuplicateOf        string `json:"duplicate_of"`
	// PatchSHA256 is the SHA-256 of Patch.Normalised: equal for patches that change the
	// same lines, whatever their context, positions, index lines or trailing blanks.
	PatchSHA256    string   `json:"patch_sha256"`
	Applies        bool     `json:"applies"`
	Resolved       bool     `json:"resolved"`
	PublishedLabel string   `json:"published_label"`
	LabelFailures  []string `json:"label_failures"`
	// ApplyError says why the patch did not apply.
	ApplyError string `json:"apply_error,omitempty"`
}

// TestColumn describes one test patch.
type TestColumn struct {
	Name        string   `json:"name"`
	Source      string   `json:"source"`
	Model       string   `json:"model"`
	Functions   []string `json:"functions"`
	DuplicateOf string   `json:"duplicate_of"`
	Runnable    bool     `json:"runnable"`
	Reason      string   `json:"reason"`
}

// EnvCell is a cell the environment kept from an answer, and why.
type EnvCell struct {
	Tree   string `json:"tree"`
	Test   string `json:"test"`
	Reason string `json:"reason"`
}

// LabelCheck is how the labels' controls came out.
type LabelCheck struct {
	F2PFailOnBase   bool     `json:"f2p_fail_on_base"`
	GoldPasses      bool     `json:"gold_passes"`
	F2PPassOnBase   []string `json:"f2p_passing_on_base,omitempty"`
	P2PFailOnBase   []string `json:"p2p_not_passing_on_base,omitempty"`
	GoldFailures    []string `json:"gold_not_passing,omitempty"`
	NamesNotFound   []string `json:"names_not_found,omitempty"`
	Goldcheck       string   `json:"goldcheck"` // "agrees", "disagrees: …", or "absent"
	CodersResolved  int      `json:"coders_resolved"`
	Published       int      `json:"published_labels"`        // coders with a published label
	PublishedAgree  int      `json:"published_labels_agree"`  // … that agree with ours
	PublishedDisagr []string `json:"published_disagreements"` // "name: published X, here Y"
}

// Options configure a Runner.
type Options struct {
	// Parallel is how many sessions run at once; 2 when zero.
	Parallel int
	// Sandbox is the judge's isolation; bubblewrap (ci.SandboxBwrap) when empty.
	Sandbox ci.Sandbox
	// Python is the interpreter, with pytest and mpmath; /usr/bin/python3 when empty.
	Python string
	// WorkDir holds the judge's scratch trees; the system's temporary directory when empty.
	WorkDir string
	// MaxCoders keeps the first n coders of each instance (their duplicates' originals
	// too); 0 keeps all. Coders, when given, keeps those named (and their originals).
	MaxCoders int
	Coders    []string
	// TestTimeout bounds the CPU time of one test on a coder's tree, and 4× it its wall
	// time; 0 derives both from the longer of the base's and the gold patch's sessions
	// (testLimits).
	TestTimeout time.Duration
	Logger      *slog.Logger
	Progress    func(string) // may be nil
}

func (o Options) withDefaults() Options {
	if o.Parallel <= 0 {
		o.Parallel = 2
	}
	if o.Sandbox == "" {
		o.Sandbox = ci.SandboxBwrap
	}
	if o.Python == "" {
		o.Python = "/usr/bin/python3"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
	return o
}

// limits are what a coder's session may take.
type limits struct {
	cpu, wall time.Duration // one test: CPU time (load does not change it), and wall time
	session   time.Duration // the whole session
}

// testLimits derives a coder's limits from the longer control session, which ran every
// test a coder's session runs: one test may take 3× its time in CPU (30 s to 10
// minutes), which no test that behaves as it does on the controls reaches on any load,
// and 10× in wall time (2 to 20 minutes) for one that hangs without computing. The
// session has room for a quarter of its units stopped at the CPU limit (8 to 60
// minutes); past that it is split.
func (o Options) testLimits(control time.Duration, units int) limits {
	l := limits{cpu: min(max(3*control, 30*time.Second), 10*time.Minute)}
	l.wall = min(max(10*control, 2*time.Minute), 20*time.Minute)
	if o.TestTimeout > 0 {
		l.cpu, l.wall = o.TestTimeout, 4*o.TestTimeout
	}
	l.session = min(max(3*control+l.cpu*time.Duration((units+3)/4), 8*time.Minute), 60*time.Minute)
	return l
}

// Contract is the judge's python contract as the matrix uses it: pytest from the tree's
// root with its own settings, Debian's interpreter, PYTHONHASHSEED=0, nothing to
// prepare (the corpus' environment is the system's python3 with pytest and mpmath, and
// no registry is reachable). timeout is one session's bound; cpu and wall, when not
// zero, one test's (the plugin every tree gets stops a test that takes longer).
func Contract(python string, timeout, cpu, wall time.Duration) ci.Contract {
	c, _ := languages.Preset("python")
	c.Prepare, c.Manifests = "", nil
	c.ToolchainPath = python
	c.Env = map[string]string{
		"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1",
		"PYTEST_PLUGINS": plugin, "DIXIT_TEST_CPU": fmt.Sprint(int(cpu.Seconds())),
		"DIXIT_TEST_TIMEOUT": fmt.Sprint(int(wall.Seconds())),
		"PYTEST_ADDOPTS":     PytestAddopts,
	}
	// A python suite is one unit: RunSuite gives it ten contract timeouts.
	c.Timeout = max(timeout/10, time.Second)
	return c
}

// pythonVersions asks the interpreter for its and pytest's versions.
func pythonVersions(python string) (string, string, error) {
	out, err := exec.Command(python, "-c", "import sys, pytest, mpmath; print(sys.version.split()[0], pytest.__version__, mpmath.__version__)").CombinedOutput()
	if err != nil {
		return "", "", fmt.Errorf("%s cannot import pytest and mpmath: %v: %s", python, err, strings.TrimSpace(string(out)))
	}
	f := strings.Fields(string(out))
	if len(f) < 3 {
		return "", "", fmt.Errorf("%s: unexpected answer %q", python, out)
	}
	return f[0], f[1], nil
}

// sortedSet lists a set in order.
func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
