// Package checkpoint keeps an agent's saved states as commits in the workshop: a
// checkpoint is a commit whose tree holds state.json. Both the scripted and the live
// agents use it, so rollbacks and resumed runs read states the same way.
package checkpoint

import (
	"encoding/json"
	"fmt"

	"github.com/dixit-bot/dixit/internal/gitstate"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Store saves states of one agent on refs/dixit/<run>/checkpoints/<agent>.
type Store struct {
	w     *gitstate.Workshop
	ref   string
	agent string
}

// New returns the checkpoint store of one agent.
func New(w *gitstate.Workshop, run, agent string) Store {
	return Store{w: w, ref: "refs/dixit/" + run + "/checkpoints/" + agent, agent: agent}
}

// Save commits state (any JSON-encodable value) and returns the commit as a checkpoint.
func (s Store) Save(state any) (orchestrate.Checkpoint, error) {
	data, err := json.MarshalIndent(state, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode state of %s: %w", s.agent, err)
	}
	tree, err := s.w.WriteFiles([]gitstate.File{{Path: "state.json", Content: data}})
	if err != nil {
		return "", fmt.Errorf("save %s: %w", s.agent, err)
	}
	commit, err := s.w.Commit(s.ref, tree, "checkpoint of "+s.agent)
	if err != nil {
		return "", fmt.Errorf("save %s: %w", s.agent, err)
	}
	return orchestrate.Checkpoint(commit), nil
}

// Load decodes the state saved in checkpoint cp into state.
func (s Store) Load(cp orchestrate.Checkpoint, state any) error {
	files, err := s.w.Files(string(cp))
	if err != nil {
		return fmt.Errorf("checkpoint %s of %s: %w", cp, s.agent, err)
	}
	if len(files) != 1 || files[0].Path != "state.json" {
		return fmt.Errorf("checkpoint %s of %s: not a checkpoint", cp, s.agent)
	}
	if err := json.Unmarshal(files[0].Content, state); err != nil {
		return fmt.Errorf("checkpoint %s of %s: %w", cp, s.agent, err)
	}
	return nil
}
