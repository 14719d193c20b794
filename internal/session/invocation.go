package session

import (
	"fmt"
	"time"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/report"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// invocation is this process's work on the run so far.
func (s *session) invocation() runfile.Invocation {
	inv := runfile.Invocation{Vet: s.opts.Patch != nil, Started: s.start, WallSeconds: time.Since(s.start).Seconds()}
	if s.journal != nil {
		inv.JournalSeconds = s.journal.seconds.Seconds()
	}
	if s.judge == nil || s.local == nil {
		return inv
	}
	inv.Judge = runfile.Judge{Stats: s.judge.Stats(), Sandbox: s.local.Isolation()}
	// Dependencies are prepared by the local judge (for verdicts, and for the
	// repository's own tests whatever the judge): the cache in front of it does not see them.
	local := s.local.Stats()
	inv.Judge.Prepares, inv.Judge.PrepareSeconds = local.Prepares, local.PrepareSeconds
	if remote, ok := s.inner.(interface{ Minutes() int }); ok {
		inv.Judge.Sandbox = "github-actions"
		inv.Judge.ActionsMinutes = remote.Minutes()
	}
	return inv
}

// account records this invocation and gives the summary the figures of the whole run:
// every invocation before this one that worked on the run (a vetting's own work stays in
// its vet report) and this one.
func (s *session) account(sum *runfile.Summary) error {
	past, err := runfile.ReadInvocations(s.runDir)
	if err != nil {
		return err
	}
	now := s.invocation()
	s.recorded = true
	if err := runfile.AppendInvocation(s.runDir, now); err != nil {
		return err
	}
	var all []runfile.Invocation
	for _, inv := range past {
		if !inv.Vet {
			all = append(all, inv)
		}
	}
	sum.Account(append(all, now))
	return nil
}

// recordCut records the work of an invocation that ended without a report (cut, or an
// error), so the report of the invocation that finishes the run counts it too.
func (s *session) recordCut() {
	if s.recorded || s.judge == nil {
		return // recorded already, or the run never got as far as its judge
	}
	s.recorded = true
	if err := runfile.AppendInvocation(s.runDir, s.invocation()); err != nil {
		s.opts.Logger.Warn("session: the invocation's figures are not recorded; the run's report will leave them out", "run", s.opts.RunID, "error", err)
	}
}

// write saves the summary and the report: the run's own (summary.json, report.md,
// report.html), or for a patch under review a vet report beside them, which leaves the
// run's as the run wrote it.
func (s *session) write(sum runfile.Summary, res *orchestrate.Result) (*Outcome, error) {
	if err := s.account(&sum); err != nil {
		return nil, fmt.Errorf("run %s: %w", s.opts.RunID, err)
	}
	write := report.Write
	if s.opts.Patch != nil {
		write = report.WriteVet
	}
	paths, err := write(s.runDir, sum, res)
	if err != nil {
		return nil, err
	}
	return &Outcome{Result: res, Summary: sum, RunDir: s.runDir, JSON: paths.Summary, Report: paths.Markdown, HTML: paths.HTML}, nil
}
