package vet

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/gitstate"
)

// writtenTree is a tree that can only be written out, as a judge's trees may be.
type writtenTree struct{}

func (writtenTree) Hash() string { return "h" }

func (writtenTree) WriteTo(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "cmd"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n"), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "cmd", "run.sh"), []byte("#!/bin/sh\n"), 0o755)
}

// A tree without a file list is read back from disk, paths slash-separated and the
// executable bit kept, so that its mutants build as the tree would.
func TestTreeFilesReadsAWrittenTree(t *testing.T) {
	files, err := treeFiles(writtenTree{})
	require.NoError(t, err)
	assert.ElementsMatch(t, []gitstate.File{
		{Path: "go.mod", Content: []byte("module m\n")},
		{Path: "cmd/run.sh", Content: []byte("#!/bin/sh\n"), Executable: true},
	}, files)
}
