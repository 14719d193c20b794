package ci

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/languages"
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
		if !l.sb.MemoryLimited() {
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
	c, _ := languages.Preset("node")
	l := depsJudge(t, c, "")
	if !l.sb.MemoryLimited() && exec.Command("node", "--disable-wasm-trap-handler", "-e", "0").Run() != nil {
		t.Skip("no memory cgroup here, and this node (before 20.15) cannot do without the guard regions: test.memory must be raised for JIT runtimes")
	}
	// Without a cgroup, the address-space limit applies, and node runs with inline bounds
	// checks (languages' BoundedEnv).
	test := "const test = require('node:test');\nconst assert = require('node:assert');\n\n" +
		"test('wasm memory', () => {\n  const m = new WebAssembly.Memory({ initial: 16, maximum: 65536 });\n  new Uint8Array(m.buffer)[0] = 1;\n  assert.strictEqual(m.buffer.byteLength, 16 * 65536);\n});\n"
	vs, err := l.Run(context.Background(), 1, []Job{{Coder: "a", Tree: mapTree{"package.json": `{"name":"x"}`}, Test: Test{ID: "w", Content: []byte(test)}}})
	require.NoError(t, err)
	assert.Equal(t, Pass, vs[0].Outcome, vs[0].Output)
}
