package sandbox

import (
	"fmt"
	"time"

	"github.com/dixit-bot/dixit/internal/ci/contract"
)

// Outcome classifies a build or runs that did not pass, and says why: a timeout, a
// limit the sandbox enforces, or a plain failure.
func (s *Sandbox) Outcome(res Result, timeout time.Duration, build bool) (contract.Outcome, string) {
	switch {
	case res.TimedOut:
		return contract.Timeout, fmt.Sprintf("timed out after %s", timeout)
	case res.Flooded:
		return contract.OverLimit, fmt.Sprintf("output exceeded %d bytes", s.limits.Output)
	case res.OOMKilled && res.Exit != 0:
		return contract.OverLimit, fmt.Sprintf("killed for using more than %s of resident memory (test.memory in dixit.yml raises it)", contract.FormatBytes(s.memory.bytes))
	}
	if note := s.LimitNote(res, build); note != "" {
		return contract.OverLimit, note
	}
	if res.Exit == 0 { // every finished run passed, yet not all ran: the sandbox broke off
		return contract.Fail, fmt.Sprintf("the sandbox stopped after %d runs (exit %d)", res.Ends, res.SandboxExit)
	}
	return contract.Fail, fmt.Sprintf("exit status %d", res.Exit)
}

// LimitNote explains an exit status that a resource limit of a run, or of a build,
// caused; "" when none did.
func (s *Sandbox) LimitNote(res Result, build bool) string {
	return limitNote(res.Exit, res.CPU, s.phaseLimits(build))
}
