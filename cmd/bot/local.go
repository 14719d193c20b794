package main

import (
	"errors"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/cli"
	"github.com/dixit-bot/dixit/internal/session"
)

// defaultState is the state directory when --state is not given.
const defaultState = session.DefaultStateDir

// judgeFlags are the flags of every command that runs the local judge.
type judgeFlags struct {
	state, buildCache, sandbox string
	parallel                   int
	verbose                    bool
}

func (f *judgeFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.state, "state", defaultState, "`DIR` holding runs, workshop repositories and caches")
	fl.StringVar(&f.buildCache, "build-cache", "", "`DIR` of the judge's toolchain build cache (default: STATE/cache/build)")
	fl.StringVar(&f.sandbox, "sandbox", "auto", "judge isolation, a `MODE`: auto (bubblewrap when it works, else reduced with a warning), bwrap (or fail), none")
	fl.IntVar(&f.parallel, "parallel", 0, "how many `JOBS` the judge runs at once (default: number of cores)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "log details to stderr")
}

// check refuses values no judge accepts, naming the flag.
func (f *judgeFlags) check(cmd *cobra.Command) error {
	switch ci.Sandbox(f.sandbox) {
	case ci.SandboxAuto, ci.SandboxBwrap, ci.SandboxNone:
	default:
		return usagef(cmd, "--sandbox %s: want auto, bwrap or none", f.sandbox)
	}
	if f.parallel < 0 {
		return usagef(cmd, "--parallel %d: want 0 (one job per core) or more", f.parallel)
	}
	return nil
}

func (f *judgeFlags) logger(stderr io.Writer) *slog.Logger {
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
}

// localFlags are the flags of demo, run and vet.
type localFlags struct {
	judgeFlags
	population, spec, repo, config string
	fresh                          bool
	resume, patch                  string
	models                         modelFlags
}

func (f *localFlags) addInputs(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.population, "population", "", "a scripted population: a `DIR` with spec.md, dixit.yml, base/, coders/, testers/")
	fl.StringVar(&f.spec, "spec", "", "live run: the spec, a Markdown `FILE` as an issue body would state it")
	fl.StringVar(&f.repo, "repo", ".", "live run: the git repository, a `DIR`; its HEAD commit is the base revision")
	fl.StringVar(&f.config, "config", "", "live run: the settings, a dixit.yml `FILE` (default: .github/dixit.yml at HEAD, else defaults)")
	f.models.add(cmd, true)
}

func newDemo(getenv func(string) string) *cobra.Command {
	var f localFlags
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Run the Dixit protocol offline on the bundled example (scripted agents, real judge)",
		Long: `Runs the whole protocol on examples/semver: five hand-written coders and three testers stand
in for the model, and every verdict comes from running the tests in the sandbox. Running it
again resumes the same run from its journal; --fresh starts over.`,
		Example: `  bot demo
  bot demo --fresh --state /tmp/dixit`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLocal(cmd, "demo", &f, getenv)
		},
	}
	f.add(cmd)
	cmd.Flags().BoolVar(&f.fresh, "fresh", false, "discard the earlier run and start over")
	cmd.Flags().StringVar(&f.population, "population", "", "another scripted population `DIR` instead of the bundled example")
	return cmd
}

func newRun(getenv func(string) string) *cobra.Command {
	var f localFlags
	cmd := &cobra.Command{
		Use:   "run (--spec FILE [--repo DIR] | --population DIR | --resume RUN)",
		Short: "Run the Dixit protocol with live LLM agents on a repository, or with a scripted population",
		Long: `With --spec, live coders and testers (any OpenAI-compatible endpoint: OPENAI_API_KEY,
OPENAI_BASE_URL) work on the HEAD commit of --repo. With --population, scripted agents do.
Running the same command again resumes the run; no model reply is paid for twice.

Before it starts, one short completion checks the model (bot doctor checks more): an
unreachable endpoint, a refused key or an unknown model stops the run at once. --model
(or DIXIT_MODEL) replaces every model dixit.yml names for this run; the run's id does not
depend on it, so a run resumed with another model keeps the replies already paid for
(--fresh starts over).

Exits 3 when the run stopped for a human: the decisions that fit are printed, and
"bot decide" records one.`,
		Example: `  OPENAI_API_KEY=sk-... bot run --spec spec.md --repo ../my-repo
  OPENAI_BASE_URL=http://localhost:11434/v1 bot run --spec spec.md --repo . --model qwen2.5-coder:7b
  bot run --population examples/percent
  bot run --resume percent-1a2b3c4d`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLocal(cmd, "run", &f, getenv)
		},
	}
	f.add(cmd)
	f.addInputs(cmd)
	cmd.Flags().BoolVar(&f.fresh, "fresh", false, "discard an earlier run with the same inputs and start over")
	cmd.Flags().StringVar(&f.resume, "resume", "", "resume the run with this id, a `RUN` under STATE/runs/, and carry out the decisions bot decide recorded")
	return cmd
}

func newVet(getenv func(string) string) *cobra.Command {
	var f localFlags
	cmd := &cobra.Command{
		Use:   "vet --patch DIFF|DIR|REV (--population DIR | --spec FILE [--repo DIR])",
		Short: "Judge a patch (an agent's pull request) against what independent coders built from the same spec",
		Long: `Runs the protocol (or resumes it) and then runs every test it proposed on the patch, which
has no vote and reaches no agent. The verdict is failure when the patch fails a vetted test,
success when it passes them all and the testers were exhausted, neutral otherwise.

Exits 4 when the patch fails a vetted test.`,
		Example: `  bot vet --population examples/semver --patch examples/semver-patches/string-compare.diff
  bot vet --spec spec.md --repo . --patch agent-branch`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runLocal(cmd, "vet", &f, getenv)
		},
	}
	f.add(cmd)
	f.addInputs(cmd)
	cmd.Flags().BoolVar(&f.fresh, "fresh", false, "discard an earlier run with the same inputs and start over")
	cmd.Flags().StringVar(&f.patch, "patch", "", "the patch under review: a diff `FILE` (git diff, git format-patch, a pull request's .diff), a directory holding the whole patched tree, or a branch or commit of --repo")
	return cmd
}

// runLocal runs bot demo, bot run and bot vet.
func runLocal(cmd *cobra.Command, name string, f *localFlags, getenv func(string) string) error {
	if err := f.check(cmd); err != nil {
		return err
	}
	logger := f.logger(cmd.ErrOrStderr())
	ending, err := session.RunLocal(cmd.Context(), session.Local{
		Command: name, Resume: f.resume, Patch: f.patch, Out: cmd.OutOrStdout(), Client: f.models.Client(getenv, logger),
		Options: session.Options{
			Population: f.population, Spec: f.spec, Repo: f.repo, Config: f.config, StateDir: f.state, BuildCache: f.buildCache,
			Fresh: f.fresh, Sandbox: ci.Sandbox(f.sandbox), Parallel: f.parallel, Logger: logger,
		},
	})
	if errors.Is(err, session.ErrNoInputs) {
		return usagef(cmd, "%v", err)
	}
	if err != nil {
		return err
	}
	if ending == session.StoppedForHuman && name != "run" {
		return nil // the demo always ends at a human's desk: that is what it shows, not a failure
	}
	return exitFor(ending)
}

// exitFor is the exit status a script reads for how the run ended (docs/cli.md).
func exitFor(e session.Ending) error {
	switch e {
	case session.PatchFails:
		return cli.ErrPatchFails
	case session.EnvironmentFailed:
		return cli.ErrEnvironment // no agent worked: the machine must change, not the code
	case session.StoppedForHuman:
		return cli.ErrStopped
	}
	return nil
}
