package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// PathKind is what a flag's path must name.
type PathKind int

// What a flag's path must name: either, a file or a directory.
const (
	FileOrDir PathKind = iota
	AFile
	ADir
)

// Existing checks that the path a flag names exists and is of the kind wanted, so the
// error names the flag rather than whatever later failed to open it.
func Existing(flag, path string, want PathKind) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("--%s %s: no such file or directory", flag, path)
	case err != nil:
		return fmt.Errorf("--%s %s: %w", flag, path, errors.Unwrap(err))
	case want == ADir && !info.IsDir():
		return fmt.Errorf("--%s %s: not a directory", flag, path)
	case want == AFile && info.IsDir():
		return fmt.Errorf("--%s %s: a directory, not a file", flag, path)
	}
	return nil
}

// AddVerbose gives every command -v, --verbose (docs/cli.md says it is everywhere): the
// commands that log then log their details too; those that only print accept it.
func AddVerbose(c *cobra.Command) {
	if c.Flags().Lookup("verbose") == nil && c.Name() != "help" {
		c.Flags().BoolP("verbose", "v", false, "log details to stderr")
	}
	for _, sub := range c.Commands() {
		AddVerbose(sub)
	}
}

// CommandLogger is a command's logger: text on stderr at warnings, or at every detail
// with --verbose; json keeps a server's lines machine-readable.
func CommandLogger(cmd *cobra.Command, w io.Writer, json bool, quiet slog.Level) *slog.Logger {
	level := quiet
	if v, _ := cmd.Flags().GetBool("verbose"); v {
		level = slog.LevelDebug
	}
	opts := &slog.HandlerOptions{Level: level}
	if json {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// FlagSuggestion says which of cmd's flags an unknown one was probably meant to be:
// pflag's "unknown flag: --stat" becomes "…; did you mean --state?".
func FlagSuggestion(cmd *cobra.Command, err error) string {
	msg := err.Error()
	var typed string
	switch {
	case strings.HasPrefix(msg, "unknown flag: --"):
		typed = strings.TrimPrefix(msg, "unknown flag: --")
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		// "unknown shorthand flag: 'x' in -xyz": a long flag typed with one dash.
		if i := strings.Index(msg, " in -"); i >= 0 {
			typed = msg[i+len(" in -"):]
		}
	default:
		return ""
	}
	best, dist := "", 3
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(typed, f.Name)
		if strings.HasPrefix(f.Name, typed) && len(typed) >= 3 {
			d = 1
		}
		if d < dist {
			best, dist = f.Name, d
		}
	})
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean --%s?", best)
}

// editDistance is Levenshtein's distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
