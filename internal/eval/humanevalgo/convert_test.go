package humanevalgo_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/eval/humanevalgo"
)

// A problem as HumanEval-X stores it (Go/2, shortened): the test uses math from the
// solution's imports, and testify's assert.
var truncate = humanevalgo.Problem{
	TaskID:            "Go/2",
	Import:            "import (\n    \"math\"\n)\n",
	Docstring:         "// Return the decimal part of the number.\n// >>> TruncateNumber(3.5)\n// 0.5\n",
	Declaration:       "\nfunc TruncateNumber(number float64) float64 {\n",
	CanonicalSolution: "    return math.Mod(number,1)\n}\n\n",
	Test: "func TestTruncateNumber(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(0.5, TruncateNumber(3.5))\n" +
		"    assert.Equal(true, math.Abs(TruncateNumber(1.33)-0.33) < 1e-6)\n}\n",
	ExampleTest: "func TestTruncateNumber(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(0.5, TruncateNumber(3.5))\n}\n",
}

func TestConvertAndCheck(t *testing.T) {
	task, err := humanevalgo.Convert(truncate)
	require.NoError(t, err)
	assert.Equal(t, "go002-truncate-number", task.Name)
	hidden := string(task.Files["hidden/truncate_number_test.go"])
	assert.Contains(t, hidden, "\t\"math\"\n", "the test's own use of math is imported")
	assert.Contains(t, hidden, "assert := newAsserter(t)")
	assert.NotContains(t, hidden, "github.com/stretchr/testify")
	assert.Contains(t, string(task.Files["base/truncate_number.go"]), "panic(\"not implemented\")")
	assert.NotContains(t, string(task.Files["base/truncate_number.go"]), "math", "an unused import would not build")
	assert.Contains(t, string(task.Files["spec.md"]), "    >>> TruncateNumber(3.5)\n")

	// The go command agrees: the reference passes the hidden test and the base fails it.
	require.NoError(t, humanevalgo.Check(context.Background(), task))

	// A reference that is wrong is caught by the shim's Equal.
	wrong := truncate
	wrong.CanonicalSolution = "    return math.Floor(number)\n}\n"
	task, err = humanevalgo.Convert(wrong)
	require.NoError(t, err)
	assert.ErrorContains(t, humanevalgo.Check(context.Background(), task), "the hidden test fails on the reference")
}

// Tests using testify beyond Equal are refused, not half converted.
func TestConvertRefusesOtherAsserts(t *testing.T) {
	p := truncate
	p.Test = strings.Replace(p.Test, "assert.Equal(0.5", "assert.InDelta(0.5", 1)
	_, err := humanevalgo.Convert(p)
	assert.ErrorContains(t, err, "assert.InDelta, which the shim does not have")
}

// The source ships gzip-compressed; Read takes either form.
func TestReadPlainOrGzip(t *testing.T) {
	line, err := json.Marshal(truncate)
	require.NoError(t, err)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, err = w.Write(append(line, '\n'))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	for name, data := range map[string][]byte{"plain": append(line, '\n'), "gzip": gz.Bytes()} {
		problems, err := humanevalgo.Read(bytes.NewReader(data))
		require.NoError(t, err, name)
		assert.Equal(t, []humanevalgo.Problem{truncate}, problems, name)
	}
	_, err = humanevalgo.Read(strings.NewReader(""))
	assert.ErrorContains(t, err, "none found")
}
