package ci

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hoard allocates and touches n MiB, then passes.
func hoard(mib int) []byte {
	return goTest("", `func TestHoard(t *testing.T) {
	var keep [][]byte
	for i := 0; i < `+itoa(mib)+`; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		keep = append(keep, b)
	}
	t.Log(len(keep))
}
`)
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestTestMemorySetsTheLimit(t *testing.T) {
	for _, tc := range []struct {
		memory int64
		want   Outcome
	}{
		{memory: 128 << 20, want: OverLimit},
		{memory: 1 << 30, want: Pass},
	} {
		l := newGoJudge(t, time.Minute, func(o *LocalOptions) { o.Contract.Memory = tc.memory })
		vs, err := l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: goModule(), Test: Test{ID: "h", Content: hoard(300)}}})
		require.NoError(t, err)
		v := vs[0]
		if !l.sb.memory.active() {
			// Address space: Go's runtime reports it cannot map more.
			assert.Contains(t, []Outcome{tc.want, Fail}, v.Outcome, v.Output)
			continue
		}
		assert.Equal(t, tc.want, v.Outcome, "test.memory %s, 300MiB touched: %s", FormatBytes(tc.memory), v.Output)
		if tc.want == OverLimit {
			assert.Contains(t, v.Output, "killed for using more than 128MiB of resident memory")
		}
	}
}

func TestJITRuntimesAreBoundedByWhatTheyUse(t *testing.T) {
	if exec.Command("node", "--version").Run() != nil {
		t.Skip("node is not installed here")
	}
	// V8 reserves about 10 GiB of address space for one WebAssembly memory and touches a
	// page of it: vitest's failure ("WebAssembly.instantiate(): Out of memory") under the
	// old 2 GiB address-space limit.
	c, _ := Preset("node")
	l := depsJudge(t, c, "")
	if !l.sb.memory.active() {
		t.Skip("no memory cgroup here: the address-space limit applies, and test.memory must be raised for JIT runtimes")
	}
	test := "const test = require('node:test');\nconst assert = require('node:assert');\n\n" +
		"test('wasm memory', () => {\n  const m = new WebAssembly.Memory({ initial: 16, maximum: 65536 });\n  new Uint8Array(m.buffer)[0] = 1;\n  assert.strictEqual(m.buffer.byteLength, 16 * 65536);\n});\n"
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: mapTree{"package.json": `{"name":"x"}`}, Test: Test{ID: "w", Content: []byte(test)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"4GiB": 4 << 30, "512MiB": 512 << 20, "1TiB": 1 << 40, "100B": 100, " 8 KiB ": 8 << 10} {
		got, err := ParseBytes(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
		assert.Equal(t, want, must(ParseBytes(FormatBytes(got))), "FormatBytes reads back: %s", FormatBytes(got))
	}
	for _, bad := range []string{"4096", "4GB", "-1GiB", "1.5GiB", "GiB", "99999999999TiB"} {
		_, err := ParseBytes(bad)
		assert.Error(t, err, bad)
	}
}

func must(n int64, err error) int64 {
	if err != nil {
		panic(err)
	}
	return n
}

// A judge killed before it removed its lanes' cgroups leaves them behind; the next judge
// removes those whose process is gone, and nothing else.
func TestStaleLaneCgroupsAreSwept(t *testing.T) {
	done := exec.Command("true")
	require.NoError(t, done.Run())
	dead := done.Process.Pid
	base := t.TempDir()
	stale := fmt.Sprintf("dixit-ci-111-pid%d-lane0", dead)
	mine := fmt.Sprintf("dixit-ci-222-pid%d-lane1", os.Getpid())
	for _, d := range []string{stale, mine, "dixit-ci-333-lane0", "someone-else"} {
		require.NoError(t, os.Mkdir(filepath.Join(base, d), 0o755))
	}
	sweepCgroups(base)
	entries, err := os.ReadDir(base)
	require.NoError(t, err)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	assert.ElementsMatch(t, []string{mine, "dixit-ci-333-lane0", "someone-else"}, left)
}
