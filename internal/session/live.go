package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dixit-bot/dixit/internal/cast"
	"github.com/dixit-bot/dixit/internal/config"
	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// maxSpec bounds a spec file: an issue body is at most 65,536 characters on GitHub.
const maxSpec = 256 << 10

// RunLive executes (or resumes) the Dixit protocol with live LLM agents on the committed
// HEAD of the repository at opts.Repo.
func RunLive(ctx context.Context, opts Options) (*Outcome, error) {
	if opts.Client == nil {
		return nil, fmt.Errorf("a live run needs an LLM client")
	}
	spec, err := readSpec(opts.Spec)
	if err != nil {
		return nil, err
	}
	files, head, err := gitstate.ReadHead(opts.Repo)
	if err != nil {
		return nil, err
	}
	cfg, err := liveSettings(opts.Config, files)
	if err != nil {
		return nil, err
	}
	if opts.RunID == "" {
		opts.RunID = liveRunID(opts.Repo, spec, head, cfg)
	}
	return RunInput(ctx, opts, Input{Spec: spec, Files: files, Head: head, Settings: cfg, Source: opts.Repo})
}

// Input is what a run works on, wherever it came from (a repository on disk, or an
// issue and a repository on GitHub).
type Input struct {
	Spec     string
	Files    []gitstate.File // the base revision
	Head     string          // the base revision's commit in its repository
	Settings config.Settings
	Source   string // where the base came from, for the summary
}

// RunInput executes (or resumes) a run on in: with live agents through opts.Client, or
// with the scripted agents of opts.Population standing in for them.
func RunInput(ctx context.Context, opts Options, in Input) (*Outcome, error) {
	if opts.Protocol != "" {
		in.Settings.Protocol = opts.Protocol
	}
	s, err := open(ctx, opts, in.Settings.Test)
	if err != nil {
		return nil, err
	}
	defer s.close()
	// A resumed run keeps the spec and the base it started from, even if the issue was
	// edited or the branch moved since: its agents' histories were built on them.
	if in.Spec, err = s.pinSpec(in.Spec); err != nil {
		return nil, err
	}
	baseRef := "refs/dixit/" + opts.RunID + "/base"
	base, pinned, err := s.ws.Ref(baseRef)
	if err != nil {
		return nil, err
	}
	if pinned {
		if msg, err := s.ws.Message(base); err == nil {
			in.Head = strings.TrimSpace(strings.TrimPrefix(msg, "base revision "))
		}
	} else {
		tree, err := s.ws.WriteFiles(in.Files)
		if err != nil {
			return nil, err
		}
		if base, err = s.ws.CommitAfter(baseRef, "", tree, "base revision "+in.Head); err != nil {
			return nil, err
		}
	}
	c, err := s.agents(in, base)
	if err != nil {
		return nil, err
	}
	s.cast(c, base, in.Settings)
	out, err := s.execute(ctx, in.Settings, c, func(sum *runfile.Summary) {
		sum.Population, sum.Agents = in.Source+" @ "+shortHash(in.Head), c.Kind
		sum.SpecComments = cast.CutComments(in.Spec) // cut before any agent read the spec
		sum.Instructions, sum.InstructionsSkipped = c.Instructions, c.InstructionsSkipped
	})
	if out != nil {
		out.Base = in.Head
	}
	return out, err
}

// agents casts the run: the scripted population when one is given, else live agents.
func (s *session) agents(in Input, base string) (*cast.Cast, error) {
	stage := cast.Stage{Workshop: s.ws, Run: s.opts.RunID, RunDir: s.runDir, Logger: s.opts.Logger}
	if s.opts.Population != "" {
		return cast.Population(s.opts.Population, stage)
	}
	return cast.Live(cast.Play{Client: s.opts.Client, Spec: in.Spec, Settings: in.Settings, Base: base, Runner: s.local}, stage)
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func readSpec(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read spec: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSpec+1))
	if err != nil {
		return "", fmt.Errorf("read spec %s: %w", path, err)
	}
	if len(data) > maxSpec || len(data) == 0 {
		return "", fmt.Errorf("spec %s must hold between 1 and %d bytes", path, maxSpec)
	}
	return string(data), nil
}

// liveSettings reads --config when given, else .github/dixit.yml as committed at HEAD,
// else the defaults.
func liveSettings(path string, files []gitstate.File) (config.Settings, error) {
	if path != "" {
		return config.Load(path)
	}
	for _, f := range files {
		if f.Path == ".github/dixit.yml" {
			s, err := config.Parse(f.Content)
			if err != nil {
				return config.Settings{}, fmt.Errorf(".github/dixit.yml at HEAD: %w", err)
			}
			return s, nil
		}
	}
	return config.Parse(nil)
}

// liveRunID names a run after its repository and a digest of what defines it, so the same
// command resumes the same run.
func liveRunID(repo, spec, head string, cfg config.Settings) string {
	h := sha256.New()
	settings, _ := json.Marshal(cfg)
	fmt.Fprintf(h, "%s\n%s\n%s\n", spec, head, settings)
	abs, err := filepath.Abs(repo)
	if err != nil {
		abs = repo
	}
	return unsafeInRef.ReplaceAllString(filepath.Base(abs), "-") + "-" + hex.EncodeToString(h.Sum(nil))[:8]
}

// pinSpec returns the spec the run started with, recording spec as that when the run is new.
func (s *session) pinSpec(spec string) (string, error) {
	ref := "refs/dixit/" + s.opts.RunID + "/spec"
	commit, pinned, err := s.ws.Ref(ref)
	if err != nil {
		return "", err
	}
	if pinned {
		files, err := s.ws.Files(commit)
		if err != nil {
			return "", fmt.Errorf("read the run's spec: %w", err)
		}
		if len(files) != 1 {
			return "", fmt.Errorf("read the run's spec: %d files where one was expected", len(files))
		}
		return string(files[0].Content), nil
	}
	tree, err := s.ws.WriteFiles([]gitstate.File{{Path: "spec.md", Content: []byte(spec)}})
	if err != nil {
		return "", err
	}
	if _, err := s.ws.CommitAfter(ref, "", tree, "spec"); err != nil {
		return "", err
	}
	return spec, nil
}
