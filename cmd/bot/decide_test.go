package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/cli"
)

// TestDecideThenResume: `bot run` prints the decisions that fit where the run stopped,
// ready to copy; `bot decide` records one (and refuses what does not fit); `bot run
// --resume <run>` goes on from there with nothing but the run's id.
func TestDecideThenResume(t *testing.T) {
	t.Setenv("PATH", "/usr/bin:"+os.Getenv("PATH")) // examples/percent needs python3 with pytest
	state := t.TempDir()
	bot := func(args ...string) (string, error) {
		var out, errOut bytes.Buffer
		err := run(context.Background(), args, &out, &errOut)
		return out.String() + errOut.String(), err
	}
	cache := filepath.Join(os.TempDir(), "dixit-test-gocache")
	out, err := bot("run", "--population", "../../examples/percent", "--state", state, "--build-cache", cache)
	require.ErrorIs(t, err, cli.ErrStopped, out)
	assert.Equal(t, cli.ExitStopped, cli.ExitCode(err, io.Discard), "a run that stops for a human has its own exit code")
	assert.Contains(t, out, "Outcome: ALL_TESTERS_HIBERNATED")
	m := regexp.MustCompile(`bot decide --state ` + regexp.QuoteMeta(state) + ` (percent-[0-9a-f]+) wake`).FindStringSubmatch(out)
	require.NotNil(t, m, "the decisions that fit are printed:\n%s", out)
	id := m[1]

	_, err = bot("decide", "--state", state, id)
	assert.ErrorContains(t, err, "give a run id and a decision")
	_, err = bot("decide", "--state", state, id, "drop", "t1")
	assert.ErrorContains(t, err, "usage: drop <test> <reason>")
	_, err = bot("decide", "--state", state, "../"+id, "wake")
	assert.ErrorContains(t, err, "not a run id")
	_, err = bot("decide", "--state", state, id, "replace", "zed")
	assert.ErrorContains(t, err, `there is no coder "zed"`)
	// Flags go anywhere on the line, as in gh and kubectl.
	out, err = bot("decide", id, "wake", "--state", state, "--by", "maria")
	require.NoError(t, err, out)
	assert.Contains(t, out, "Recorded: wake.")

	out, err = bot("run", "--resume", id, "--state", state, "--build-cache", cache)
	require.ErrorIs(t, err, cli.ErrStopped, out)
	assert.Contains(t, out, "══ decision by maria: wake")
	assert.Contains(t, out, "Outcome: CODERS_STUCK — coder dee")
	assert.Contains(t, out, "bot decide --state "+state+" "+id+" replace <coder>    (coders: ann, bob, cy, dee, eve)")
	_, err = bot("run", "--resume", "nope", "--state", state)
	assert.ErrorContains(t, err, "no such run nope")
}
