package session

import (
	"fmt"
	"io"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/vet"
)

// Ending is how a run ended, for the exit status of the command that ran it.
type Ending int

const (
	Ended             Ending = iota // the run is over: accepted, or a question with no decision to offer
	StoppedForHuman                 // the run stopped with decisions a human can take
	PatchFails                      // the patch under review fails a vetted test
	EnvironmentFailed               // the judge could not build and test the base here
)

// Print writes how the run ended, the decisions that fit when it stopped for a human
// (when offer is set; the commands name the state directory), and where its report is.
func (out *Outcome) Print(stdout io.Writer, state string, offer bool) Ending {
	s := out.Summary
	fmt.Fprintf(stdout, "\nOutcome: %s — %s\n", s.Outcome, s.Reason)
	stopped := false
	if s.Accepted != "" {
		fmt.Fprintf(stdout, "Accepted: %s's implementation.\n", s.Accepted)
	} else if fitting := orchestrate.Fitting(s.Standing); len(fitting) > 0 && offer {
		stopped = true
		fmt.Fprintf(stdout, "A human decides now; then `%s` goes on from here:\n", runfile.ResumeCommand(s.Run, state))
		for _, fit := range fitting {
			line := "  " + runfile.DecidePrefix(s.Run, state) + fit.Usage
			if fit.Choices != "" {
				line += "    (" + fit.Choices + ")"
			}
			fmt.Fprintln(stdout, line)
		}
	}
	fmt.Fprintln(stdout, report.Totals(s))
	if tokens := s.Spend.PromptTokens + s.Spend.CompletionTokens; tokens > 0 {
		fmt.Fprintf(stdout, "Model: %d prompt + %d completion tokens", s.Spend.PromptTokens, s.Spend.CompletionTokens)
		if s.Spend.CostUSD > 0 {
			fmt.Fprintf(stdout, ", about $%.2f", s.Spend.CostUSD)
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "Report:  %s (and %s)\nSummary: %s\nHidden state (git): %s\n", out.Report, out.HTML, out.JSON, out.RunDir+"/workshop.git")
	if v := s.Vet; v != nil {
		fmt.Fprintf(stdout, "\nThe patch: %s — %s\n", v.Conclusion, v.Why)
		if v.Conclusion == vet.Failure {
			return PatchFails
		}
	}
	if s.Outcome == orchestrate.Environment {
		return EnvironmentFailed
	}
	if stopped {
		return StoppedForHuman
	}
	return Ended
}
