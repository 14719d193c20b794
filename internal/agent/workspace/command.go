package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dixit-bot/dixit/internal/ci/agentexec"
)

type runArgs struct {
	Command string `json:"command"`
}

// run runs a command through the Runner in the workspace directory and reports how it
// ended and the tail of its output.
func (w *Workspace) run(ctx context.Context, raw string) (string, error) {
	var a runArgs
	if err := decode(toolRun, raw, &a, "command"); err != nil {
		return "", err
	}
	if strings.TrimSpace(a.Command) == "" {
		return "", toolErrorf("command is required")
	}
	res, err := w.opts.Runner.Exec(ctx, w.dir, a.Command, w.opts.CommandTimeout)
	if errors.Is(err, agentexec.ErrNoSandbox) {
		// True and actionable for the agent; the operator's side is in the server's log.
		return "", toolErrorf("run_command is unavailable on this machine: commands may only run inside a sandbox, " +
			"and none is available here. Keep working with the file tools.")
	}
	if err != nil {
		return "", fmt.Errorf("run command: %w", err)
	}
	var b strings.Builder
	switch {
	case res.TimedOut:
		fmt.Fprintf(&b, "stopped: the command ran longer than %s\n", w.opts.CommandTimeout)
	case res.OverLimit && res.Exit < 0:
		fmt.Fprintf(&b, "stopped: %s\n", res.Note)
	case res.OverLimit:
		fmt.Fprintf(&b, "stopped: %s (exit code %d)\n", res.Note, res.Exit)
	default:
		fmt.Fprintf(&b, "exit code %d\n", res.Exit)
	}
	if res.Output == "" {
		b.WriteString("(no output)")
		return b.String(), nil
	}
	if len(res.Output) >= agentexec.MaxOutput-utf8.UTFMax { // the runner kept only the tail
		b.WriteString("output (only its last part):\n")
	} else {
		b.WriteString("output:\n")
	}
	b.WriteString(res.Output)
	return b.String(), nil
}
