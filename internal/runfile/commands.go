package runfile

import (
	"path/filepath"
	"strings"
)

// DefaultStateDir is the state directory the bot's commands use without --state.
const DefaultStateDir = ".dixit"

// DecidePrefix is the local command that records a decision on run, up to the decision:
// --state comes first because flags stop at the run id.
func DecidePrefix(run, stateDir string) string {
	return "bot decide " + stateFlag(stateDir) + ShellQuote(run) + " "
}

// ResumeCommand is the local command that carries a run's recorded decisions out.
func ResumeCommand(run, stateDir string) string {
	return strings.TrimSpace("bot run --resume " + ShellQuote(run) + " " + stateFlag(stateDir))
}

// stateFlag is "--state DIR " for a state directory other than the default, else "".
func stateFlag(dir string) string {
	if dir == "" || filepath.Clean(dir) == DefaultStateDir {
		return ""
	}
	return "--state " + ShellQuote(dir) + " "
}

// ShellQuote quotes s for a POSIX shell when it holds anything but characters every
// shell takes literally, so a copied command names the same path.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
