package ci

import (
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/languages"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
	"github.com/dixit-bot/dixit/internal/ci/tripwire"
)

// The wires of a test are the same for every coder and run in one judge (its armed file
// compiles once per tree), differ from one test to the next, and differ in another judge:
// nothing a coder sees before its code runs names them.
func TestWiresAreDrawnFromTheJudgesSecretAndTheTest(t *testing.T) {
	c, ok := languages.Preset("go")
	require.True(t, ok)
	judge := func() *Local {
		l := &Local{contract: c}
		_, _ = rand.Read(l.wireKey[:])
		return l
	}
	one, other := judge(), judge()
	at := contract.Placement{ID: "t1", Rel: "calc_test.go"}
	test := Test{ID: "t1", Content: goTest("", passTest)}
	changed := Test{ID: "t1", Content: goTest("", "func TestAdd(t *testing.T) {\n\tif Add(1, 1) != 2 {\n\t\tt.Fatal(Add(1, 1))\n\t}\n}\n")}

	first := one.arm(at, test)
	require.True(t, first.armed())
	assert.Equal(t, first.content, one.arm(at, test).content, "the same test, armed again by the same judge")
	assert.NotEqual(t, first.wires, one.arm(at, changed).wires, "another test draws other wires")
	assert.NotEqual(t, first.wires, other.arm(at, test).wires, "another judge draws other wires")
}

// The wrapper names each run where the twins look for it.
func TestTheTwinsReadTheRunWhereTheWrapperSetsIt(t *testing.T) {
	assert.Equal(t, sandbox.RunEnv, tripwire.RunEnv)
}
