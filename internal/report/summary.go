package report

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
)

// NewSummary assembles the summary of a finished run.
func NewSummary(run string, res *orchestrate.Result) runfile.Summary {
	s := runfile.Summary{
		Run: run, Protocol: res.Protocol, Final: res.Final, Outcome: res.Outcome, Reason: res.Reason, Rounds: res.Rounds, Evidence: evidence(res),
		Testers: res.Testers, Events: res.Events, Vetted: []runfile.VettedTest{},
		Journal:   runfile.Journal{Entries: res.Replayed + res.Live, Replayed: res.Replayed, Live: res.Live},
		Decisions: res.Decisions, Accepted: res.Accepted, Standing: res.Standing,
	}
	s.Spend = spend(res)
	for _, v := range res.Vetted {
		s.Vetted = append(s.Vetted, runfile.VettedTest{ID: v.ID, Path: v.Path, Select: v.Select, Number: v.Number, Tester: v.Tester, Proposal: v.Proposal,
			Round: v.Round, PassedBy: v.PassedBy, FailedBy: v.FailedBy})
	}
	for _, c := range res.Coders {
		s.Coders = append(s.Coders, runfile.Coder{Name: c.Name, Solves: c.Solves, Commit: c.Commit, Breaks: c.Breaks, Tampered: c.Tampered,
			Ref: fmt.Sprintf("refs/dixit/%s/coders/%s", run, c.Name)})
	}
	return s
}

// Paths are the files Write produced.
type Paths struct {
	Summary  string // summary.json
	Markdown string // report.md
	HTML     string // report.html: the same report as a self-contained page
}

// Write saves summary.json, report.md and report.html in dir.
func Write(dir string, s runfile.Summary, res *orchestrate.Result) (Paths, error) {
	return write(dir, "", s, res)
}

// VetPrefix starts the names of a vetting's files (vet-report.md, vet-report.html,
// vet-summary.json): they sit beside the run's, which stay as the run wrote them.
const VetPrefix = "vet-"

// WriteVet saves the report of a patch judged against the run in dir, beside the run's.
func WriteVet(dir string, s runfile.Summary, res *orchestrate.Result) (Paths, error) {
	return write(dir, VetPrefix, s, res)
}

func write(dir, prefix string, s runfile.Summary, res *orchestrate.Result) (Paths, error) {
	p := Paths{Summary: filepath.Join(dir, prefix+runfile.SummaryFile), Markdown: filepath.Join(dir, prefix+"report.md"), HTML: filepath.Join(dir, prefix+"report.html")}
	data, err := s.Encode()
	if err != nil {
		return Paths{}, err
	}
	page, err := HTML(s, res)
	if err != nil {
		return Paths{}, err
	}
	for path, content := range map[string][]byte{p.Summary: data, p.Markdown: []byte(Markdown(s, res)), p.HTML: []byte(page)} {
		if err := writeAtomic(path, content); err != nil {
			return Paths{}, err
		}
	}
	return p, nil
}

func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func spend(res *orchestrate.Result) runfile.Spend {
	sp := runfile.Spend{PromptTokens: res.Spend.PromptTokens, CompletionTokens: res.Spend.CompletionTokens,
		CostUSD: res.CostUSD, ByAgent: map[string]runfile.Tokens{}, ByRound: make([]runfile.Tokens, res.Rounds+1)}
	for name, a := range res.SpentBy {
		if a.Tokens() > 0 {
			sp.ByAgent[name] = runfile.Tokens{Prompt: a.PromptTokens, Completion: a.CompletionTokens}
		}
	}
	for _, ev := range res.Events {
		if ev.Spend == nil || ev.Round >= len(sp.ByRound) {
			continue
		}
		sp.ByRound[ev.Round].Prompt += ev.Spend.PromptTokens
		sp.ByRound[ev.Round].Completion += ev.Spend.CompletionTokens
	}
	return sp
}

// Totals is the run's figures in one line, for the end of a command: rounds, vetted
// tests, the judge's work, the journal and the wall time, over every invocation that
// added up to them.
func Totals(s runfile.Summary) string {
	return fmt.Sprintf("%s, %s; judge: %s, %s, %.1f s; journal: %s (%d replayed), %.2f s of %.1f s wall time%s",
		words.Count(s.Rounds, "round", "rounds"), words.Count(len(s.Vetted), "vetted test", "vetted tests"),
		words.Count(s.Judge.Executions, "execution", "executions"), words.Count(s.Judge.CacheHits, "cache hit", "cache hits"), s.Judge.Seconds,
		words.Count(s.Journal.Entries, "entry", "entries"), s.Journal.Replayed, s.Journal.Seconds, s.WallSeconds, invocations(s))
}
