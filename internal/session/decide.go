package session

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// decisionsFile holds a run's decisions, one JSON object per line, in the order they
// were made. The run journals each when it takes it up; the file is only the inbox.
const decisionsFile = "decisions.jsonl"

// maxDecisions bounds a run's inbox: each decision is a human's comment.
const maxDecisions = 1000

// ErrNoRun means there is no stopped run to decide on.
var ErrNoRun = errors.New("no such run")

// ErrRecorded means the same decision (by id) was recorded before: asking twice, as a
// redelivered webhook does, records it once.
var ErrRecorded = errors.New("the decision was recorded already")

// Ask is a human's decision as they wrote it: `/dixit drop t2 wrong expectation` on
// GitHub, or `bot decide RUN drop t2 wrong expectation`. Decide reads, checks and records
// it, for the CLI and the App alike; the run carries it out when it resumes.
type Ask struct {
	ID   string // names the decision: asking twice (a redelivered webhook) records it once
	Verb string
	Args []string // the words after the verb: its arguments, then the reason
	By   string
	At   time.Time
}

// MiswordedError is a decision whose words do not parse: the asker typed something else
// than a decision's usage.
type MiswordedError struct{ Err error }

func (e *MiswordedError) Error() string { return e.Err.Error() }
func (e *MiswordedError) Unwrap() error { return e.Err }

// Decide reads a human's decision on the run with that id under stateDir, checks it
// against where the run stopped (its summary.json) and records it, returning it as
// recorded. A decision that does not parse is a *MiswordedError; one that does not fit
// gets an error saying why. Either way nothing is recorded. The run must not be going
// on: decisions answer an escalation. `bot run --resume` (or the App) then carries it out.
func Decide(stateDir, run string, ask Ask) (orchestrate.Decision, error) {
	d, err := orchestrate.ParseDecision(ask.Verb, ask.Args, ask.By, ask.At)
	if err != nil {
		return d, &MiswordedError{err}
	}
	d.ID = ask.ID
	return d, record(stateDir, run, d)
}

// record checks a decision against where the run stopped and appends it to its inbox.
func record(stateDir, run string, d orchestrate.Decision) error {
	if err := checkRunID(run); err != nil {
		return err
	}
	runDir := filepath.Join(stateDir, "runs", run)
	if _, err := os.Stat(runDir); err != nil {
		return fmt.Errorf("%w %s under %s", ErrNoRun, run, stateDir)
	}
	release, err := acquireLease(runDir)
	if errors.Is(err, ErrRunBusy) {
		return fmt.Errorf("run %s is going on: a decision answers the question a run stops with; decide once it has stopped", run)
	}
	if err != nil {
		return err
	}
	defer release()
	standing, err := Standing(runDir)
	if err != nil {
		return err
	}
	past, err := readDecisions(runDir)
	if err != nil {
		return err
	}
	if len(past) >= maxDecisions {
		return fmt.Errorf("run %s has %d decisions already", run, len(past))
	}
	for _, p := range past {
		if p.ID == d.ID {
			return fmt.Errorf("%w (%s)", ErrRecorded, d.ID)
		}
		// Made since the run last stopped, and not yet taken up: it answers this
		// escalation already.
		if !slices.Contains(standing.Decided, p.ID) {
			return fmt.Errorf("run %s has a decision waiting already (%s by %s); resume the run to carry it out first", run, p.Verb, p.By)
		}
	}
	if err := orchestrate.Check(d, standing); err != nil {
		return err
	}
	line, err := json.Marshal(d)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(runDir, decisionsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("record the decision: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("record the decision: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("record the decision: %w", err)
	}
	return f.Close()
}

// checkRunID refuses a run id that would name a path outside the runs directory.
func checkRunID(run string) error {
	if run == "" || strings.ContainsAny(run, `/\`) || run == "." || run == ".." {
		return fmt.Errorf("%q is not a run id", run)
	}
	return nil
}

// Standing reads where the run in runDir stopped last, from its summary.
func Standing(runDir string) (orchestrate.Standing, error) {
	s, err := runfile.ReadSummary(runDir)
	if errors.Is(err, os.ErrNotExist) {
		return orchestrate.Standing{}, fmt.Errorf("run %s has not stopped yet: there is nothing to decide", filepath.Base(runDir))
	}
	if err != nil {
		return orchestrate.Standing{}, fmt.Errorf("summary of run %s: %w", filepath.Base(runDir), err)
	}
	return s.Standing, nil
}

// readDecisions reads a run's inbox; a line cut short by a crash, or one too long or
// not a decision (the file is on disk, and may have been edited), is skipped.
func readDecisions(runDir string) ([]orchestrate.Decision, error) {
	f, err := os.Open(filepath.Join(runDir, decisionsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the decisions: %w", err)
	}
	defer f.Close()
	var out []orchestrate.Decision
	r := bufio.NewReaderSize(io.LimitReader(f, maxDecisions*maxDecisionLine), maxDecisionLine)
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) { // too long: skip to the next line
				_, err = r.ReadSlice('\n')
			}
			continue
		}
		var d orchestrate.Decision
		if len(line) > 0 && json.Unmarshal(line, &d) == nil && d.ID != "" {
			out = append(out, d)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the decisions: %w", err)
		}
	}
}

// maxDecisionLine bounds one recorded decision: its words come from one comment line.
const maxDecisionLine = 4096

// Inputs are what a local run was started from, kept in its directory so that
// `bot run --resume <run>` needs only the run's id.
type Inputs struct {
	Population string `json:"population,omitempty"`
	Spec       string `json:"spec,omitempty"`
	Repo       string `json:"repo,omitempty"`
	Config     string `json:"config,omitempty"`
	Protocol   string `json:"protocol,omitempty"`
}

const inputsFile = "inputs.json"

// saveInputs records a local run's inputs, as absolute paths; a run made elsewhere (the
// App gives neither a population nor a spec file) records none.
func saveInputs(runDir string, opts Options) error {
	in := Inputs{Population: opts.Population, Spec: opts.Spec, Config: opts.Config, Protocol: opts.Protocol}
	if in.Population == "" && in.Spec == "" {
		return nil
	}
	if in.Spec != "" {
		in.Repo = opts.Repo
	}
	for _, p := range []*string{&in.Population, &in.Spec, &in.Repo, &in.Config} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return fmt.Errorf("record the run's inputs: %w", err)
		}
		*p = abs
	}
	data, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(runDir, inputsFile), data, 0o644); err != nil {
		return fmt.Errorf("record the run's inputs: %w", err)
	}
	return nil
}

// ReadInputs returns what the run with that id was started from.
func ReadInputs(stateDir, run string) (Inputs, error) {
	if err := checkRunID(run); err != nil {
		return Inputs{}, err
	}
	data, err := os.ReadFile(filepath.Join(stateDir, "runs", run, inputsFile))
	if errors.Is(err, os.ErrNotExist) {
		return Inputs{}, fmt.Errorf("%w %s under %s (runs are in %s)", ErrNoRun, run, stateDir, filepath.Join(stateDir, "runs"))
	}
	if err != nil {
		return Inputs{}, err
	}
	var in Inputs
	if err := json.Unmarshal(data, &in); err != nil {
		return Inputs{}, fmt.Errorf("inputs of run %s: %w", run, err)
	}
	return in, nil
}

// DefaultStateDir is where runs live when no state directory is given.
const DefaultStateDir = runfile.DefaultStateDir

// DecisionUsage lists the decisions a human can take, one per line with what each does,
// for help texts.
func DecisionUsage() string {
	var b strings.Builder
	for _, v := range orchestrate.DecisionVerbs {
		fmt.Fprintf(&b, "  %-50s %s\n", v.Usage, v.Does)
	}
	return b.String()
}

// Recorded says what was recorded on the run under stateDir, and the command that
// carries it out.
func Recorded(d orchestrate.Decision, run, stateDir string) string {
	what := strings.Join(append([]string{d.Verb}, d.Args...), " ")
	if d.Reason != "" {
		what += " (" + d.Reason + ")"
	}
	return fmt.Sprintf("Recorded: %s. `%s` carries it out.", what, runfile.ResumeCommand(run, stateDir))
}
