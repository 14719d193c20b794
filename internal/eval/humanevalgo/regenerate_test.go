package humanevalgo_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/eval/humanevalgo"
)

// benchDir is the generated benchmark, from this package's directory.
const benchDir = "../../../examples/humaneval-go"

// TestRegenerate writes examples/humaneval-go from the HumanEval-X file named by
// DIXIT_HUMANEVAL_GO (its README says how to get it); without it, nothing runs.
func TestRegenerate(t *testing.T) {
	src := os.Getenv("DIXIT_HUMANEVAL_GO")
	if src == "" {
		t.Skip("DIXIT_HUMANEVAL_GO is not set: nothing to regenerate")
	}
	f, err := os.Open(src)
	require.NoError(t, err)
	defer f.Close()
	problems, err := humanevalgo.Read(f)
	require.NoError(t, err)
	sel, err := humanevalgo.Generate(context.Background(), problems, benchDir, 20)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(benchDir, "README.md"), []byte(humanevalgo.README(sel, humanevalgo.CodeGeeX)), 0o644))
}
