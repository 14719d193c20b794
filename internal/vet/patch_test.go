package vet_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/vet"
)

// TestReadPatchAppliesADiffToHEADOfTheRepository: with --spec, the base is HEAD of --repo.
func TestReadPatchAppliesADiffToHEADOfTheRepository(t *testing.T) {
	repo := t.TempDir()
	for _, name := range []string{"go.mod", "semver.go"} {
		data, err := os.ReadFile(filepath.Join("../../examples/semver/base", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(repo, name), data, 0o644))
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base"}} {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput()
		require.NoError(t, err, string(out))
	}
	fromDiff, err := vet.ReadPatch("../../examples/semver-patches/string-compare.diff", "", repo)
	require.NoError(t, err)
	fromDir, err := vet.ReadPatch("../../examples/semver-patches/string-compare", "", repo)
	require.NoError(t, err)
	assert.Equal(t, fromDir.Hash(), fromDiff.Hash())
}
