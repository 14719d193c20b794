package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/cast"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/vet"
)

// A run from the command line on this machine: bot demo, bot run and bot vet.

// Local is what a command line asks of a run: Options as its flags set them, and how to
// find the rest.
type Local struct {
	Options
	Command string // demo, run or vet
	// Resume is the id of a run under StateDir/runs: it goes on from its recorded inputs,
	// and carries out the decisions bot decide recorded.
	Resume string
	// Patch is the patch under review as bot vet --patch names it (vet.ReadPatch).
	Patch string
	// Client makes a live run's model client, with the models the run's settings name
	// for the start check; it returns the client and the endpoint's name for a person.
	Client func(ctx context.Context, models func() ([]string, error)) (cast.Client, string, error)
	// Out shows the run; the host is a terminal on it unless Options.Host is set.
	Out io.Writer
}

// ErrNoInputs: a run needs a spec (live agents) or a population (scripted ones).
var ErrNoInputs = errors.New("give --spec FILE (live agents on --repo DIR) or --population DIR (scripted agents); try bot demo")

// DemoPopulation is the bundled example bot demo runs, relative to the repository root.
const DemoPopulation = "examples/semver"

// RunLocal runs (or resumes) the run l asks for, prints how it ended, and returns that.
func RunLocal(ctx context.Context, l Local) (Ending, error) {
	opts := l.Options
	if opts.Host == nil {
		opts.Host = Terminal{Out: l.Out}
	}
	if l.Resume == "" {
		if err := l.checkInputs(); err != nil {
			return Ended, err
		}
	} else {
		in, err := ReadInputs(opts.StateDir, l.Resume)
		if err != nil {
			return Ended, err
		}
		opts.RunID, opts.Population, opts.Spec, opts.Config, opts.Protocol = l.Resume, in.Population, in.Spec, in.Config, in.Protocol
		if in.Repo != "" {
			opts.Repo = in.Repo
		}
	}
	var err error
	if l.Command == "vet" {
		if opts.Patch, err = vet.ReadPatch(l.Patch, opts.Population, opts.Repo); err != nil {
			return Ended, err
		}
	}
	var out *Outcome
	switch {
	case l.Command == "demo" || opts.Population != "":
		if opts.Population == "" {
			if opts.Population, err = findDemo(); err != nil {
				return Ended, err
			}
		}
		fmt.Fprintf(l.Out, "Dixit %s — scripted population from %s: coders and testers answer from its files (written by hand, or real agents' recorded patches) in place of an LLM; no model is called.\n", l.Command, opts.Population)
		fmt.Fprintf(l.Out, "The judge is real: every verdict comes from running the tests in a sandbox.\n\n")
		out, err = Run(ctx, opts)
	case opts.Spec != "":
		models := func() ([]string, error) {
			s, err := LiveSettings(opts.Config, opts.Repo)
			return s.Models(), err
		}
		var endpoint string
		if opts.Client, endpoint, err = l.Client(ctx, models); err != nil {
			return Ended, err
		}
		fmt.Fprintf(l.Out, "Dixit run — live agents on %s (%s), spec %s\n\n", opts.Repo, endpoint, opts.Spec)
		out, err = RunLive(ctx, opts)
	default:
		return Ended, fmt.Errorf("%s: %w", l.Command, ErrNoInputs)
	}
	if err != nil {
		return Ended, err
	}
	return out.Print(l.Out, opts.StateDir, l.Command != "vet"), nil
}

// checkInputs names the flag whose file or directory is missing, before any work starts.
func (l Local) checkInputs() error {
	repo := ""
	if l.Spec != "" || l.Patch != "" {
		repo = l.Repo // only read by live runs and by vet's revisions
	}
	for _, c := range []struct {
		flag, path string
		dir        bool
	}{{"population", l.Population, true}, {"spec", l.Spec, false}, {"config", l.Config, false}, {"repo", repo, true}} {
		if c.path == "" {
			continue
		}
		info, err := os.Stat(c.path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("--%s %s: no such file or directory", c.flag, c.path)
		case err != nil:
			return fmt.Errorf("--%s %s: %w", c.flag, c.path, errors.Unwrap(err))
		case c.dir && !info.IsDir():
			return fmt.Errorf("--%s %s: not a directory", c.flag, c.path)
		case !c.dir && info.IsDir():
			return fmt.Errorf("--%s %s: a directory, not a file", c.flag, c.path)
		}
	}
	// The rest of a live run's own mistakes, before any model is asked anything: the
	// repository, and the settings file's words.
	if l.Spec != "" && l.Population == "" {
		if err := gitstate.CheckRepository(l.Repo); err != nil {
			return fmt.Errorf("--repo %w", err)
		}
	}
	if l.Config != "" {
		if _, err := config.Load(l.Config); err != nil {
			return fmt.Errorf("--config %s: %w", l.Config, err)
		}
	}
	return nil
}

// LiveSettings reads the settings a live run on repo will use, for the start check of its
// models: configPath, else .github/dixit.yml as committed at HEAD, else the defaults.
func LiveSettings(configPath, repo string) (config.Settings, error) {
	if configPath != "" {
		return config.Load(configPath)
	}
	out, err := exec.Command("git", "-C", repo, "show", "HEAD:.github/dixit.yml").Output()
	if err != nil {
		return config.Defaults(), nil // no such file at HEAD: the run uses the defaults
	}
	return config.ParseNamed(".github/dixit.yml", out)
}

// findDemo looks for the bundled example in the working directory and its parents, so the
// demo also works from inside the repository's subdirectories.
func findDemo() (string, error) {
	found, err := FindUp(filepath.Join(DemoPopulation, "dixit.yml"))
	if err != nil {
		return "", fmt.Errorf("the demo reads its example from %s in the repository: run it inside a checkout (or give bot run --population DIR)", DemoPopulation)
	}
	return filepath.Dir(found), nil
}

// FindUp looks for rel from the working directory and its parents, so the commands'
// defaults work from anywhere inside a checkout.
func FindUp(rel string) (string, error) {
	dir := "."
	for range 16 {
		candidate := filepath.Join(dir, rel)
		if _, err := os.Stat(candidate); err == nil {
			return filepath.Clean(candidate), nil
		}
		dir = filepath.Join(dir, "..")
	}
	return "", fmt.Errorf("no %s in this directory or its parents", rel)
}
