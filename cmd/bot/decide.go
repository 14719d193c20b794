package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/localrun"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// runDecide records a human's answer to a stopped run's escalation: `bot decide <run>
// drop t7 "wrong expectation"`. `bot run --resume <run>` then carries it out.
func runDecide(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("decide", flag.ContinueOnError)
	fs.SetOutput(stderr)
	state := fs.String("state", ".dixit", "state directory: runs, workshop repositories, caches")
	by := fs.String("by", cmp.Or(getenv("USER"), "someone"), "who decides, kept with the run")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: bot decide [--state DIR] [--by NAME] <run> <decision>\n\ndecisions:\n")
		for _, v := range orchestrate.DecisionVerbs {
			fmt.Fprintf(stderr, "  %-50s %s\n", v.Usage, v.Does)
		}
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return errors.New("decide: give a run id and a decision")
	}
	run := fs.Arg(0)
	now := time.Now()
	d, err := orchestrate.ParseDecision(fs.Arg(1), fs.Args()[2:], *by, now)
	if err != nil {
		return fmt.Errorf("decide: %w", err)
	}
	d.ID = "local-" + strconv.FormatInt(now.UnixNano(), 36)
	if err := localrun.Decide(*state, run, d); err != nil {
		return fmt.Errorf("decide: %w", err)
	}
	what := strings.Join(append([]string{d.Verb}, d.Args...), " ")
	if d.Reason != "" {
		what += " (" + d.Reason + ")"
	}
	fmt.Fprintf(stdout, "Recorded: %s. `bot run --resume %s --state %s` carries it out.\n", what, run, *state)
	return nil
}
