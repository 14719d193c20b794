package main

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/dixit-bot/dixit/internal/session"
)

// newDecide records a human's answer to a stopped run's escalation: `bot decide <run>
// drop t7 "wrong expectation"`. `bot run --resume <run>` then carries it out.
func newDecide(getenv func(string) string) *cobra.Command {
	var state, by string
	cmd := &cobra.Command{
		Use:   "decide RUN DECISION [ARGS...] [REASON...]",
		Short: "Record a human's answer to a stopped run; bot run --resume carries it out",
		Long: `Records a decision in the run's inbox, checked against where the run stopped. The run stops
printing the decisions that fit, with the ids to use. Then "bot run --resume RUN" goes on.
A reason that starts with a dash goes after --.

Decisions:
` + session.DecisionUsage(),
		Example: `  bot decide semver-47cb31f6 drop t2 the expectation contradicts the spec
  bot decide --state /tmp/dixit percent-1a2b3c4d wake
  bot decide percent-1a2b3c4d budget rounds 12 --by maria`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usagef(cmd, "decide: give a run id and a decision")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			now := time.Now()
			ask := session.Ask{ID: "local-" + strconv.FormatInt(now.UnixNano(), 36), Verb: args[1], Args: args[2:], By: by, At: now}
			d, err := session.Decide(state, args[0], ask)
			var misworded *session.MiswordedError
			if errors.As(err, &misworded) {
				return usagef(cmd, "decide: %w", err)
			}
			if err != nil {
				return fmt.Errorf("decide: %w", err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), session.Recorded(d, args[0], state))
			return nil
		},
	}
	cmd.Flags().StringVar(&state, "state", defaultState, "`DIR` holding runs, workshop repositories and caches")
	cmd.Flags().StringVar(&by, "by", cmp.Or(getenv("USER"), "someone"), "who decides (a `NAME`), kept with the run")
	return cmd
}
