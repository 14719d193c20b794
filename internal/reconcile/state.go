package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// memory is what the reconciler remembers across restarts, in Config.StateFile.
type memory struct {
	// Redelivered maps the GUID of each delivery a redelivery was asked for to when.
	Redelivered map[string]time.Time `json:"redelivered"`
	// Attempted maps each issue the reconciler started through StartIssue ("o/r#n") to
	// when. StartIssue that leaves no record has commented on the issue (its settings are
	// bad or unreadable); the comment asks for the label again, so the reconciler does
	// not try again and comment every pass.
	Attempted map[string]time.Time `json:"attempted"`
}

func loadMemory(path string) (*memory, error) {
	m := &memory{Redelivered: map[string]time.Time{}, Attempted: map[string]time.Time{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read reconciler state: %w", err)
	}
	if err := json.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("reconciler state %s is corrupt: %w", path, err)
	}
	if m.Redelivered == nil {
		m.Redelivered = map[string]time.Time{}
	}
	if m.Attempted == nil {
		m.Attempted = map[string]time.Time{}
	}
	return m, nil
}

// prune forgets redeliveries older than the window (GitHub no longer lists those
// deliveries, or the reconciler no longer looks at them) and attempts older than
// attemptTTL.
func (m *memory) prune(now time.Time, window time.Duration) {
	for guid, at := range m.Redelivered {
		if now.Sub(at) > window {
			delete(m.Redelivered, guid)
		}
	}
	for issue, at := range m.Attempted {
		if now.Sub(at) > attemptTTL {
			delete(m.Attempted, issue)
		}
	}
}

// save writes the state atomically: a temporary file in the same directory, synced,
// then renamed over the old one.
func (m *memory) save(path string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode reconciler state: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("reconciler state directory: %w", err)
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("save reconciler state: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("save reconciler state %s: %w", path, err)
	}
	return nil
}
