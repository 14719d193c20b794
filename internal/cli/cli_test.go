package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
)

func TestExitCodesFollowTheErrors(t *testing.T) {
	cmd := &cobra.Command{Use: "run"}
	cases := []struct {
		err    error
		code   int
		stderr string
	}{
		{nil, 0, ""},
		{fmt.Errorf("run: %w", ErrStopped), ExitStopped, ""},
		{ErrPatchFails, ExitPatchFails, "bot: the patch fails vetted tests (see the report)\n"},
		{Usagef(cmd, "--sandbox %s: want auto, bwrap or none", "x"), ExitUsage, "bot: --sandbox x: want auto, bwrap or none\nRun 'run --help' for usage.\n"},
		{errors.New("boom"), ExitError, "bot: boom\n"},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		assert.Equal(t, c.code, ExitCode(c.err, &stderr), "%v", c.err)
		assert.Equal(t, c.stderr, stderr.String())
	}
}

func TestExistingNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	assert.NoError(t, os.WriteFile(file, nil, 0o644))
	assert.NoError(t, Existing("spec", file, AFile))
	assert.NoError(t, Existing("repo", dir, FileOrDir))
	assert.EqualError(t, Existing("repo", file, ADir), "--repo "+file+": not a directory")
	assert.EqualError(t, Existing("spec", dir, AFile), "--spec "+dir+": a directory, not a file")
	assert.EqualError(t, Existing("spec", filepath.Join(dir, "gone"), AFile), "--spec "+filepath.Join(dir, "gone")+": no such file or directory")
}

func TestFlagSuggestionFindsTheFlagMeant(t *testing.T) {
	cmd := &cobra.Command{Use: "run"}
	cmd.Flags().String("state", "", "")
	cmd.Flags().String("population", "", "")
	assert.Equal(t, "; did you mean --state?", FlagSuggestion(cmd, errors.New("unknown flag: --stat")))
	assert.Equal(t, "; did you mean --population?", FlagSuggestion(cmd, errors.New("unknown flag: --pop")))
	assert.Equal(t, "; did you mean --state?", FlagSuggestion(cmd, errors.New("unknown shorthand flag: 's' in -state")))
	assert.Empty(t, FlagSuggestion(cmd, errors.New("unknown flag: --zzzzzz")))
	assert.Equal(t, 3, editDistance("kitten", "sitting"))
}
