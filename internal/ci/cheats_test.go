package ci

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/citest"
	"github.com/dixit-bot/dixit/internal/ci/languages"
)

// coderCheat is one testdata/hostile/coder_*.txtar: code in a coder's tree that tries to
// make a test pass without passing it. Its header says what it attempts and what the
// verdict must be, like the hostile tests' (hostile, want, output, known-gap), and which
// preset it attacks (preset); then "-- name --" sections hold the coder's files, and the
// section TEST the judge's test.
type coderCheat struct {
	name, what, preset, output, gap string
	// runner: the preset's own runner defeats the cheat (it never gets to run), so it
	// does not fool even the exit status any more; the line says how.
	runner string
	want   []Outcome
	files  map[string]string
	test   []byte
}

// coderBase is the honest tree a preset's cheats are laid over, and a test it passes.
func coderBase(preset string) (mapTree, string) {
	switch preset {
	case "python":
		return mapTree{"calc.py": "def add(a, b):\n    return a + b\n"},
			"from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
	case "node":
		return mapTree{"calc.js": "exports.add = (a, b) => a + b;\n"},
			"const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('./calc');\n\n" +
				"test('adds', () => { assert.strictEqual(add(2, 3), 5); });\n"
	}
	return goModule(), string(goTest("", passTest))
}

// TestCodersCannotForgeAPass runs every coder-side cheat through the real judge of its
// preset at the Dixit rule's 20 reruns, with bubblewrap and without a sandbox, next to an
// honest coder: the honest one passes, and no cheat does; each verdict says why. The
// same jobs under the same preset judged on exit status alone (twice, as the issue's
// attack was run) show that each cheat does fool an exit status. A cheat's verdict costs
// one run: the judge stops a coder at its first run that does not pass.
func TestCodersCannotForgeAPass(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a few dozen sandboxed jobs")
	}
	cheats := loadCoderCheats(t)
	require.GreaterOrEqual(t, len(cheats), 14, "the coder-side cheats must not shrink")
	citest.KeepUmask(t) // as root without bubblewrap the judge sets the process' umask to 077
	for _, preset := range []string{"go", "python", "node"} {
		t.Run(preset, func(t *testing.T) {
			contract := cheatContract(t, preset)
			tree, test := coderBase(preset)
			jobs := []Job{{Coder: "honest", Tree: tree, Test: Test{ID: "honest", Content: []byte(test)}}}
			// Honest code that reads its caller as loggers do passes like the plain one.
			switch preset {
			case "go":
				jobs = append(jobs, Job{Coder: "honest_logger", Test: Test{ID: "logger", Content: []byte(test)}, Tree: tree.With("x.go",
					"package x\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"runtime\"\n)\n\n"+
						"// Add adds, and logs where it was called from.\nfunc Add(a, b int) int {\n"+
						"\tif _, file, line, ok := runtime.Caller(1); ok {\n\t\tfmt.Fprintf(os.Stderr, \"add called at %s:%d\\n\", file, line)\n\t}\n"+
						"\treturn a + b\n}\n")})
			case "python":
				jobs = append(jobs, Job{Coder: "honest_logger", Test: Test{ID: "logger", Content: []byte(test)}, Tree: tree.With("calc.py",
					"import inspect\nimport sys\n\n\ndef add(a, b):\n    caller = inspect.stack()[1]\n"+
						"    print(f\"add called at {caller.filename}:{caller.lineno}\", file=sys.stderr)\n    return a + b\n")})
			}
			honest := len(jobs) // the jobs above, before the cheats'
			var mine []coderCheat
			for _, c := range cheats {
				if c.preset != preset {
					continue
				}
				cheat := tree.With()
				for name, content := range c.files {
					cheat[name] = content
				}
				jobs = append(jobs, Job{Coder: c.name, Tree: cheat, Test: Test{ID: fmt.Sprintf("c%02d", len(mine)), Content: c.test}})
				mine = append(mine, c)
			}
			before := runCheats(t, exitStatusOnly(contract), SandboxAuto, 2, jobs)
			require.Equal(t, Pass, before[0].Outcome, "the honest coder, exit status only: %s", before[0].Output)
			for _, sb := range []Sandbox{SandboxAuto, SandboxNone} {
				vs := runCheats(t, contract, sb, 20, jobs)
				for i, v := range vs[:honest] {
					require.Equal(t, Pass, v.Outcome, "honest coder %s (sandbox %s): %s", jobs[i].Coder, sb, v.Output)
					require.Equal(t, 20, v.Runs, "honest coder %s passes all 20 runs", jobs[i].Coder)
					require.Empty(t, v.Output, "a proven pass needs no note")
				}
				for i, c := range mine {
					v := vs[i+honest]
					t.Logf("%-22s exit status only: %-5s  sandbox %s: %-5s %s", c.name, before[i+honest].Outcome, sb, v.Outcome, lastLine(v.Output))
					t.Run(fmt.Sprintf("%s/%s", c.name, sb), func(t *testing.T) {
						if c.runner == "" {
							assert.Equal(t, Pass, before[i+honest].Outcome, "not a cheat: it fails even when the exit status decides\n%s", before[i+honest].Output)
						}
						checkCheat(t, c, v)
					})
				}
			}
		})
	}
}

// runCheats runs jobs up to reruns times each, on a fresh judge of the contract.
func runCheats(t *testing.T, c Contract, sb Sandbox, reruns int, jobs []Job) []Verdict {
	t.Helper()
	l, err := NewLocal(LocalOptions{Contract: c, Sandbox: sb, WorkDir: t.TempDir(), CacheDir: sharedCache, Logger: quietLogger()})
	require.NoError(t, err)
	defer l.Close()
	vs, err := l.Run(context.Background(), reruns, jobs)
	require.NoError(t, err)
	require.Len(t, vs, len(jobs))
	return vs
}

// exitStatusOnly is a preset as it was before reports: its runner writes no report and
// the exit status decides.
func exitStatusOnly(c Contract) Contract {
	c.Report = ReportNone
	c.Run = strings.NewReplacer("{report}", "/dev/null", " -test.v=test2json", "").Replace(c.Run)
	return c
}

func checkCheat(t *testing.T, c coderCheat, v Verdict) {
	if c.gap != "" {
		assert.Contains(t, append([]Outcome{Pass}, c.want...), v.Outcome, "output:\n%s", v.Output)
		if v.Outcome == Pass {
			t.Logf("KNOWN GAP, not contained (%s): %s", c.what, c.gap)
		} else {
			t.Logf("the known gap did not show here (%s); if it is closed, remove its known-gap line", v.Outcome)
		}
		return
	}
	assert.NotEqual(t, Pass, v.Outcome, "%s passed\noutput:\n%s", c.what, v.Output)
	assert.Contains(t, c.want, v.Outcome, "output:\n%s", v.Output)
	assert.Contains(t, v.Output, c.output)
}

// cheatContract is a preset's contract, or a skip when the host lacks its toolchain.
func cheatContract(t *testing.T, preset string) Contract {
	probe := map[string][]string{"go": {"go", "version"}, "python": {"python3", "-c", "import pytest"}, "node": {"node", "-e", "0"}}[preset]
	if preset == "python" {
		pytestFirst(t)
	}
	if err := exec.Command(probe[0], probe[1:]...).Run(); err != nil {
		t.Skipf("%s cheats not run: %v is unavailable here", preset, probe)
	}
	c, _ := languages.Preset(preset)
	c.Timeout = hostileTimeout
	return c
}

// loadCoderCheats reads testdata/hostile/coder_*.txtar.
func loadCoderCheats(t *testing.T) []coderCheat {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "hostile", "coder_*.txtar"))
	require.NoError(t, err)
	var out []coderCheat
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		c := coderCheat{name: strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "coder_"), ".txtar"), files: map[string]string{}}
		header, sections := splitArchive(string(data))
		for _, line := range strings.Split(header, "\n") {
			key, value, _ := strings.Cut(line, ": ")
			switch key {
			case "hostile":
				c.what = value
			case "preset":
				c.preset = value
			case "output":
				c.output = value
			case "known-gap":
				c.gap = value
			case "defeated-by-runner":
				c.runner = value
			case "want":
				for _, w := range strings.Fields(value) {
					o, ok := map[string]Outcome{"fail": Fail, "timeout": Timeout, "over_limit": OverLimit, "build_failed": BuildFailed, "tampered": Tampered, "prepare_failed": PrepareFailed}[w]
					require.True(t, ok, "%s: unknown outcome %q in want (pass is never wanted)", f, w)
					c.want = append(c.want, o)
				}
			}
		}
		for name, content := range sections {
			if name == "TEST" {
				c.test = []byte(content)
			} else {
				c.files[name] = content
			}
		}
		require.NotEmpty(t, c.what, "%s: no hostile: line", f)
		require.NotEmpty(t, c.want, "%s: no want: line", f)
		require.Contains(t, []string{"go", "python", "node"}, c.preset, "%s: preset must be go, python or node", f)
		require.NotEmpty(t, c.test, "%s: no -- TEST -- section", f)
		require.True(t, c.gap != "" || c.output != "", "%s: a contained cheat must name the verdict's reason (output:)", f)
		out = append(out, c)
	}
	return out
}

// splitArchive splits a txtar-like file into its header and its "-- name --" sections.
func splitArchive(data string) (string, map[string]string) {
	sections := map[string]string{}
	var header strings.Builder
	name := ""
	for _, line := range strings.SplitAfter(data, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			name = strings.TrimSpace(trimmed[3 : len(trimmed)-3])
			sections[name] = ""
			continue
		}
		if name == "" {
			header.WriteString(line)
		} else {
			sections[name] += line
		}
	}
	return header.String(), sections
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}
