package ci

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// observeCase is one probe run and what its observation must show.
type observeCase struct {
	name   string
	script string // the probe file (a shell script for the shell judge)
	exit   int
	note   string // substring of Note; "" means Note must be empty
	output string // substring of Output
	absent string // must not appear in Output
	check  func(t *testing.T, o Observation)
}

// TestObserve runs hostile and ordinary probes side by side on the shell judge.
func TestObserve(t *testing.T) {
	l := newShellJudge(t, func(o *LocalOptions) { o.Contract.Timeout = 3 * time.Second })
	secret := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("host secret 4242"), 0o644))
	cases := []observeCase{
		{name: "stdout and stderr, in order", exit: 0, output: "one\ntwo\nthree\n",
			script: "echo one\necho two >&2\necho three\n"},
		{name: "a failing probe keeps its output", exit: 3, note: "exit status 3", output: "answer\n",
			script: "echo answer\nexit 3\n"},
		{name: "a hang times out with what it printed", note: "timed out", output: "before the hang",
			script: "echo before the hang\nsleep 60\n"},
		{name: "a flood keeps the head", exit: 0, note: fmt.Sprintf("output cut at %d bytes", ObserveOutput), output: "first line\n",
			script: "echo first line\nhead -c 3000000 /dev/zero | tr '\\0' y\n",
			check: func(t *testing.T, o Observation) {
				assert.Len(t, o.Output, ObserveOutput)
				assert.True(t, bytes.HasPrefix(o.Output, []byte("first line\nyyy")))
			}},
		{name: "the output file swapped for a symlink to a host file", exit: 0, note: "not a regular file", absent: "4242",
			script: "f=$(readlink /proc/$$/fd/1)\nrm -f \"$f\"\nln -s " + secret + " \"$f\"\n"},
		{name: "the output file swapped for a FIFO", exit: 0, note: "not a regular file",
			script: "f=$(readlink /proc/$$/fd/1)\nrm -f \"$f\"\nmkfifo \"$f\"\n"},
		{name: "the output file deleted", exit: 0, note: "output unreadable",
			script: "echo gone\nrm -f \"$(readlink /proc/$$/fd/1)\"\n"},
	}
	t.Run("probes", func(t *testing.T) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				observeOne(t, l, c, fmt.Sprintf("p%d", i))
			})
		}
	})
	// The parallel probes above have all ended: none of them counted.
	assert.Equal(t, Stats{}, l.Stats(), "observations are not verdicts")
}

func observeOne(t *testing.T, l *Local, c observeCase, id string) {
	t.Helper()
	o, err := l.Observe(context.Background(), Job{Coder: c.name, Tree: shellTree(),
		Test: Test{ID: id, Content: []byte(c.script)}})
	require.NoError(t, err)
	if c.note == "" {
		assert.Empty(t, o.Note)
	} else {
		assert.Contains(t, o.Note, c.note)
	}
	if c.note != "timed out" {
		assert.Equal(t, c.exit, o.Exit, "note: %s", o.Note)
	}
	assert.Contains(t, string(o.Output), c.output)
	if c.absent != "" {
		assert.NotContains(t, string(o.Output), c.absent)
	}
	assert.LessOrEqual(t, len(o.Output), ObserveOutput)
	assert.Positive(t, o.Seconds)
	if c.check != nil {
		c.check(t, o)
	}
}

// TestObserveProbeCommand shows the contract's probe command replaces run, with {id}
// expanded, and that a failing build is a note, not an error.
func TestObserveProbeCommand(t *testing.T) {
	l := newShellJudge(t, func(o *LocalOptions) {
		o.Contract.Probe = "echo probing {id}; sh ./t_{id}.sh"
		o.Contract.Build = "test ! -e broken || { echo cannot build; exit 2; }"
	})
	job := Job{Coder: "a", Tree: shellTree(), Test: Test{ID: "x1", Content: []byte("echo from the file\n")}}
	o, err := l.Observe(context.Background(), job)
	require.NoError(t, err)
	assert.Equal(t, "probing x1\nfrom the file\n", string(o.Output))
	assert.Zero(t, o.Exit)
	assert.Empty(t, o.Note)

	job.Tree = shellTree().With("broken", "")
	o, err = l.Observe(context.Background(), job)
	require.NoError(t, err)
	assert.Empty(t, o.Output)
	assert.Equal(t, -1, o.Exit)
	assert.Contains(t, o.Note, "build failed: exit status 2")
	assert.Contains(t, o.Note, "cannot build")
}

func TestObserveJudgeFailures(t *testing.T) {
	l := newShellJudge(t, nil)
	_, err := l.Observe(context.Background(), Job{Coder: "a", Tree: failingTree{}, Test: Test{ID: "1"}})
	assert.ErrorContains(t, err, "disk on fire")
	_, err = l.Observe(context.Background(), Job{Coder: "a", Tree: shellTree(), Test: Test{ID: "../1"}})
	assert.ErrorContains(t, err, "test id")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = l.Observe(ctx, Job{Coder: "a", Tree: shellTree(), Test: Test{ID: "1", Content: []byte("echo hi\n")}})
	assert.ErrorIs(t, err, context.Canceled)
}

// TestObserveGoPreset checks that the Go test binary lets a test's prints through.
func TestObserveGoPreset(t *testing.T) {
	l := newGoJudge(t, 20*time.Second, nil)
	o, err := l.Observe(context.Background(), Job{Coder: "go", Tree: goModule(), Test: Test{ID: "probe",
		Content: goTest("fmt", "func TestProbe(t *testing.T) {\n\tfmt.Printf(\"dixit-probe %d\\n\", Add(2, 3))\n}\n")}})
	require.NoError(t, err)
	assert.Empty(t, o.Note)
	assert.Contains(t, string(o.Output), "dixit-probe 5\n")
}

// TestObservePresets checks the python and node probe commands print what the probe
// prints, which their run commands would capture or rewrite.
func TestObservePresets(t *testing.T) {
	t.Run("python", func(t *testing.T) {
		// As in TestPresetPython: Debian's python3 has pytest, an earlier one may not.
		t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH"))
		l := presetJudge(t, "python", "python3", "-c", "import pytest")
		o, err := l.Observe(context.Background(), Job{Coder: "py", Tree: mapTree{"calc.py": "def add(a, b):\n    return a + b\n"},
			Test: Test{ID: "probe", Content: []byte("from calc import add\n\ndef test_a():\n    print('dixit-probe', add(2, 3))\n\ndef test_b():\n    print('dixit-probe', add(3, 4))\n")}})
		require.NoError(t, err)
		assert.Empty(t, o.Note)
		assert.Contains(t, string(o.Output), "dixit-probe 5\n")
		assert.Contains(t, string(o.Output), "dixit-probe 7\n")
	})
	t.Run("node", func(t *testing.T) {
		l := presetJudge(t, "node", "node", "-e", "0")
		o, err := l.Observe(context.Background(), Job{Coder: "js", Tree: mapTree{"calc.js": "exports.add = (a, b) => a + b;\n"},
			Test: Test{ID: "probe", Content: []byte("const test = require('node:test');\nconst { add } = require('./calc');\ntest('a', () => { console.log('dixit-probe ' + add(2, 3)); });\n")}})
		require.NoError(t, err)
		assert.Empty(t, o.Note)
		assert.Contains(t, string(o.Output), "dixit-probe 5\n")
		assert.NotContains(t, string(o.Output), "# dixit-probe", "a line of its own, not a TAP comment")
	})
}

// TestCacheKeyIgnoresProbe keeps existing verdict caches valid: the probe command never
// changes a verdict.
func TestCacheKeyIgnoresProbe(t *testing.T) {
	with := shellContract()
	with.Probe = "sh ./t_{id}.sh --verbose"
	a, err := NewCached(&countingJudge{}, shellContract(), "", nil)
	require.NoError(t, err)
	b, err := NewCached(&countingJudge{}, with, "", nil)
	require.NoError(t, err)
	job := cacheJobs("t")[0]
	assert.Equal(t, a.key(job, 20), b.key(job, 20))
}
