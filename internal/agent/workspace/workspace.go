// Package workspace gives an agent tools over one directory: list, read and, unless
// read-only, write, delete and run commands. Every path goes through os.Root, so no
// call can reach outside the directory, symbolic links included.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/ci/agentexec"
	"github.com/dixit-bot/dixit/internal/llm"
)

// Runner runs a shell command with dir as its working directory, sandboxed.
// *ci.Local is one.
type Runner interface {
	Exec(ctx context.Context, dir, command string, timeout time.Duration) (agentexec.Result, error)
}

var _ Runner = (*ci.Local)(nil)

// Options configure a Workspace. Zero values take the defaults.
type Options struct {
	ReadOnly       bool          // list and read only
	Runner         Runner        // nil: no run_command tool
	CommandTimeout time.Duration // per command; default 2m
	MaxRead        int64         // bytes read_file returns; default 256 KiB, longer files are cut with a note
	MaxWrite       int64         // largest file write_file accepts; default 1 MiB
	MaxFiles       int           // largest listing; default 2000 entries
}

func (o Options) withDefaults() Options {
	if o.CommandTimeout <= 0 {
		o.CommandTimeout = 2 * time.Minute
	}
	if o.MaxRead <= 0 {
		o.MaxRead = 256 << 10
	}
	if o.MaxWrite <= 0 {
		o.MaxWrite = 1 << 20
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = 2000
	}
	return o
}

// Workspace is one agent's directory and the tools over it.
type Workspace struct {
	dir  string
	root *os.Root
	opts Options
}

// Open opens an existing directory as a workspace.
func Open(dir string, opts Options) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs) // the runner binds the real directory
	}
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open workspace %s: %w", dir, err)
	}
	return &Workspace{dir: abs, root: root, opts: opts.withDefaults()}, nil
}

// Dir is the workspace's absolute directory, symbolic links resolved.
func (w *Workspace) Dir() string { return w.dir }

// Close releases the directory handle.
func (w *Workspace) Close() error { return w.root.Close() }

// ErrorPrefix starts every result that reports a problem with the call itself.
const ErrorPrefix = "error: "

// IsToolError reports whether a Call result says the call was wrong (bad arguments, a
// path outside the workspace, a missing file…), so callers can count such calls.
func IsToolError(result string) bool { return strings.HasPrefix(result, ErrorPrefix) }

// toolError is a problem the model caused and can fix; Call turns it into a result.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func toolErrorf(format string, args ...any) error {
	return &toolError{msg: fmt.Sprintf(format, args...)}
}

// Call runs one tool call. Problems with the call are answered as a result starting
// with ErrorPrefix; the error is kept for failures of the machinery itself (the disk,
// the sandbox, a cancelled context).
func (w *Workspace) Call(ctx context.Context, call llm.ToolCall) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	out, err := w.dispatch(ctx, call)
	var te *toolError
	if errors.As(err, &te) {
		return ErrorPrefix + te.msg, nil
	}
	if err != nil {
		return "", fmt.Errorf("workspace tool %s: %w", call.Name, err)
	}
	return out, nil
}

func (w *Workspace) dispatch(ctx context.Context, call llm.ToolCall) (string, error) {
	if !w.offers(call.Name) {
		if w.opts.ReadOnly && (call.Name == toolWrite || call.Name == toolDelete || call.Name == toolRun) {
			return "", toolErrorf("%s is not available: this workspace is read-only", call.Name)
		}
		return "", toolErrorf("unknown tool %q; the available tools are %s", call.Name, strings.Join(w.names(), ", "))
	}
	switch call.Name {
	case toolList:
		return w.list(call.Arguments)
	case toolRead:
		return w.read(call.Arguments)
	case toolWrite:
		return w.write(call.Arguments)
	case toolDelete:
		return w.delete(call.Arguments)
	case toolRun:
		return w.run(ctx, call.Arguments)
	}
	return "", fmt.Errorf("tool %s has no handler", call.Name)
}
