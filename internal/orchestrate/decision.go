package orchestrate

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Decision is a human's answer to an escalation (DESIGN.md §1): replace a stuck coder,
// drop a test judged wrong, wake the sleeping testers, raise a budget, go on for more
// rounds, or accept a coder's implementation. The run takes it up at the escalation it
// answers and journals it, so a resumed run replays it like any other effect.
type Decision struct {
	ID     string    `json:"id"` // unique per run: a comment's id, or one made by `bot decide`
	Verb   string    `json:"verb"`
	Args   []string  `json:"args,omitempty"`
	Reason string    `json:"reason,omitempty"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
}

// The verbs of decisions.
const (
	DecideReplace  = "replace"
	DecideDrop     = "drop"
	DecideWake     = "wake"
	DecideBudget   = "budget"
	DecideContinue = "continue"
	DecideAccept   = "accept"
)

// Budget kinds a decision can raise.
const (
	BudgetRounds   = "rounds"
	BudgetTokens   = "tokens"
	BudgetCost     = "cost"
	BudgetWallTime = "wall_time"
)

var nameRE = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

// ParseDecision reads a decision from a command's words after the verb ("drop t7 wrong
// expectation" gives verb drop, args [t7], reason "wrong expectation"). It checks the
// words only; Check tells whether the decision fits the run.
func ParseDecision(verb string, words []string, by string, at time.Time) (Decision, error) {
	d := Decision{Verb: strings.ToLower(verb), By: by, At: at.UTC()}
	need := func(n int, usage string) error {
		if len(words) < n {
			return fmt.Errorf("usage: %s", usage)
		}
		return nil
	}
	switch d.Verb {
	case DecideDrop:
		if err := need(2, "drop <test> <reason> (the reason is required: it is kept with the run)"); err != nil {
			return d, err
		}
		d.Args, d.Reason = words[:1], strings.Join(words[1:], " ")
	case DecideReplace, DecideAccept:
		if err := need(1, d.Verb+" <coder>"); err != nil {
			return d, err
		}
		if !nameRE.MatchString(words[0]) {
			return d, fmt.Errorf("%q is not a coder's name", words[0])
		}
		d.Args, d.Reason = words[:1], strings.Join(words[1:], " ")
	case DecideBudget:
		if err := need(2, "budget <rounds|tokens|cost|wall_time> <amount>"); err != nil {
			return d, err
		}
		if _, err := budgetAmount(words[0], words[1]); err != nil {
			return d, err
		}
		d.Args, d.Reason = words[:2], strings.Join(words[2:], " ")
	case DecideWake, DecideContinue:
		d.Reason = strings.Join(words, " ")
	default:
		return d, fmt.Errorf("%q is not a decision", verb)
	}
	for _, a := range d.Args {
		if len(a) > 100 {
			return d, fmt.Errorf("%q is too long for a test, coder or amount", a[:20]+"…")
		}
	}
	d.Reason = strings.TrimSpace(strings.Trim(d.Reason, "\"'“”‘’"))
	if r := []rune(d.Reason); len(r) > 500 {
		d.Reason = string(r[:500])
	}
	return d, nil
}

// Caps on a budget a decision sets: far above any sensible run, low enough not to overflow.
const (
	maxBudgetRounds  = 1000
	maxBudgetTokens  = 1 << 40
	maxBudgetCost    = 1e6
	maxBudgetSeconds = 30 * 24 * 3600
)

// budgetAmount reads a budget's new limit in the unit of its kind: a count of rounds or
// tokens, dollars ("12.5", "$12.5"), or a duration ("2h", kept as seconds).
func budgetAmount(kind, amount string) (float64, error) {
	switch kind {
	case BudgetRounds, BudgetTokens:
		limit := map[string]int{BudgetRounds: maxBudgetRounds, BudgetTokens: maxBudgetTokens}[kind]
		n, err := strconv.Atoi(amount)
		if err != nil || n <= 0 || n > limit {
			return 0, fmt.Errorf("budget %s: %q is not a whole number between 1 and %d", kind, amount, limit)
		}
		return float64(n), nil
	case BudgetCost:
		f, err := strconv.ParseFloat(strings.TrimPrefix(amount, "$"), 64)
		if err != nil || !(f > 0 && f <= maxBudgetCost) {
			return 0, fmt.Errorf("budget cost: %q is not an amount of dollars between 0 and %g", amount, maxBudgetCost)
		}
		return f, nil
	case BudgetWallTime:
		d, err := time.ParseDuration(amount)
		if err != nil || d <= 0 || d.Seconds() > maxBudgetSeconds {
			return 0, fmt.Errorf("budget wall_time: %q is not a duration such as 2h, at most 720h", amount)
		}
		return d.Seconds(), nil
	}
	return 0, fmt.Errorf("budget: %q is not one of rounds, tokens, cost, wall_time", kind)
}

// Standing is where an escalated run stands: what a decision is checked against.
type Standing struct {
	Protocol   string       `json:"protocol"`
	Outcome    Outcome      `json:"outcome"`
	Rounds     int          `json:"rounds"`
	MaxRounds  int          `json:"max_rounds"`
	Coders     []string     `json:"coders"`
	Vetted     []SuiteEntry `json:"vetted"`
	Hibernated []string     `json:"hibernated,omitempty"`
	Tokens     int          `json:"tokens"`
	CostUSD    float64      `json:"cost_usd"`
	Seconds    float64      `json:"seconds"`
	Accepted   string       `json:"accepted,omitempty"`
	Decided    []string     `json:"decided,omitempty"` // ids of the decisions taken up, fitting or not
	// Crossed is the budget a BUDGET_EXHAUSTED stop ran out of: rounds, tokens, cost or
	// wall_time. Replaceable tells whether the run can bring in fresh coders.
	Crossed     string `json:"crossed,omitempty"`
	Replaceable bool   `json:"replaceable"`
}

// SuiteEntry names a vetted test: its id and its number.
type SuiteEntry struct {
	ID     string `json:"id"`
	Number int    `json:"number"`
}

// Test finds a vetted test by id ("ivy-3") or number ("t3", "3", "test3").
func (s Standing) Test(name string) (SuiteEntry, bool) {
	n := strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(name), "test"), "t")
	for _, e := range s.Vetted {
		if e.ID == name || strconv.Itoa(e.Number) == n {
			return e, true
		}
	}
	return SuiteEntry{}, false
}

// Check tells whether a decision fits a run as it stands; the error says why not, in
// words for the person who asked.
func Check(d Decision, s Standing) error {
	if s.Protocol != "" && s.Protocol != "dixit" {
		return fmt.Errorf("decisions answer the Dixit protocol's escalations; this run follows %s", s.Protocol)
	}
	if s.Outcome == "" {
		return errors.New("the run has not stopped for a human yet")
	}
	if s.Accepted != "" {
		return fmt.Errorf("the run is over: %s's implementation was accepted", s.Accepted)
	}
	if slices.Contains(s.Decided, d.ID) {
		return fmt.Errorf("decision %s was taken already", d.ID)
	}
	// Decisions also come back from files: check their shape, not only their fit.
	if need := map[string]int{DecideDrop: 1, DecideReplace: 1, DecideAccept: 1, DecideBudget: 2}[d.Verb]; len(d.Args) < need {
		return fmt.Errorf("a %s decision needs %d argument(s)", d.Verb, need)
	}
	coder := func() error {
		if len(d.Args) == 0 || !slices.Contains(s.Coders, d.Args[0]) {
			return fmt.Errorf("there is no coder %q; the coders are %s", first(d.Args), strings.Join(s.Coders, ", "))
		}
		return nil
	}
	switch d.Verb {
	case DecideReplace:
		if !s.Replaceable {
			return errors.New("this run cannot bring in fresh coders (a scripted population needs replacements/<name>_2/)")
		}
		return coder()
	case DecideAccept:
		return coder()
	case DecideDrop:
		if _, ok := s.Test(first(d.Args)); !ok {
			return fmt.Errorf("%q is not in the vetted suite (%s)", first(d.Args), suiteNames(s.Vetted))
		}
		return nil
	case DecideWake:
		if len(s.Hibernated) == 0 {
			return errors.New("no tester is asleep")
		}
		return nil
	case DecideBudget:
		amount, err := budgetAmount(d.Args[0], d.Args[1])
		if err != nil {
			return err
		}
		spent := map[string]float64{BudgetRounds: float64(s.Rounds), BudgetTokens: float64(s.Tokens), BudgetCost: s.CostUSD, BudgetWallTime: s.Seconds}[d.Args[0]]
		if s.Outcome == BudgetExhausted && s.Crossed != "" && d.Args[0] != s.Crossed {
			return fmt.Errorf("the run stopped on its %s budget: raising %s would not take it on; raise %s", s.Crossed, d.Args[0], s.Crossed)
		}
		if amount <= spent {
			return fmt.Errorf("budget %s %s is not above what the run has spent already (%s)", d.Args[0], d.Args[1], strconv.FormatFloat(spent, 'f', -1, 64))
		}
		return nil
	case DecideContinue:
		if s.Outcome == BudgetExhausted && s.Crossed != "" && s.Crossed != BudgetRounds {
			return fmt.Errorf("the run spent its %s budget, and more rounds would cross it again: raise it with budget %s <amount>", s.Crossed, s.Crossed)
		}
		return nil
	}
	return fmt.Errorf("%q is not a decision", d.Verb)
}

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

func suiteNames(v []SuiteEntry) string {
	if len(v) == 0 {
		return "it is empty"
	}
	var names []string
	for _, e := range v {
		names = append(names, fmt.Sprintf("t%d %s", e.Number, e.ID))
	}
	return strings.Join(names, ", ")
}

// Describe says what a decision does, in the words of its command ("drop t2: wrong").
func (d Decision) Describe() string {
	s := d.Verb
	if len(d.Args) > 0 {
		s += " " + strings.Join(d.Args, " ")
	}
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	return s
}

// AppliedDecision is a decision the run took up, in the round it answered.
type AppliedDecision struct {
	Decision
	Round   int    `json:"round"`
	Refused string `json:"refused,omitempty"` // why it did not fit, if it did not
}
