package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// record is one delivery as stored on disk.
type record struct {
	ID         string    `json:"id"`
	Event      string    `json:"event"`
	Payload    []byte    `json:"payload"` // base64: keeps the exact bytes (jq '.payload|@base64d')
	ReceivedAt time.Time `json:"received_at"`
	Error      string    `json:"error,omitempty"` // set in done/ and failed/ when a handler failed
}

// validID bounds what a delivery id may be, since it names a file: GitHub sends
// GUIDs. Fail closed: anything else (dots, slashes) is refused.
var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`)

const (
	doneDir   = "done"
	failedDir = "failed"
	ext       = ".json"
	tmpPrefix = ".tmp-"
)

// store is the durable queue: one JSON file per delivery under dir.
type store struct{ dir string }

func openStore(dir string) (*store, error) {
	for _, d := range []string{dir, filepath.Join(dir, doneDir), filepath.Join(dir, failedDir)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("create queue dir %s: %w", d, err)
		}
	}
	return &store{dir: dir}, nil
}

func (s *store) pendingPath(id string) string { return filepath.Join(s.dir, id+ext) }

// put makes rec durable in the pending queue.
func (s *store) put(rec record) error {
	return writeAtomic(s.dir, rec.ID+ext, rec)
}

// get reads a pending delivery.
func (s *store) get(id string) (record, error) {
	var rec record
	b, err := os.ReadFile(s.pendingPath(id))
	if err != nil {
		return rec, fmt.Errorf("read delivery %s: %w", id, err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("decode delivery %s: %w", id, err)
	}
	return rec, nil
}

// finish moves a pending delivery to done/ or failed/, recording handlerErr.
// The destination is written before the pending file is removed, so a crash in
// between leaves both, and recover resolves that in favour of the destination.
func (s *store) finish(rec record, sub string, handlerErr error) error {
	dst := filepath.Join(s.dir, sub)
	if handlerErr == nil {
		if err := os.Rename(s.pendingPath(rec.ID), filepath.Join(dst, rec.ID+ext)); err != nil {
			return fmt.Errorf("move delivery %s to %s: %w", rec.ID, sub, err)
		}
		return syncDir(dst)
	}
	rec.Error = handlerErr.Error()
	if err := writeAtomic(dst, rec.ID+ext, rec); err != nil {
		return err
	}
	if err := os.Remove(s.pendingPath(rec.ID)); err != nil {
		return fmt.Errorf("remove pending delivery %s: %w", rec.ID, err)
	}
	return nil
}

// recover lists every delivery id on disk and the pending ones, oldest file
// first. It removes temp files left by a crash and pending files that had
// already been finished.
func (s *store) recover() (seen map[string]bool, pending []string, err error) {
	seen = map[string]bool{}
	for _, sub := range []string{doneDir, failedDir} {
		ids, err := s.list(filepath.Join(s.dir, sub), true)
		if err != nil {
			return nil, nil, err
		}
		for _, id := range ids {
			seen[id] = true
		}
	}
	ids, err := s.list(s.dir, true)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range ids {
		if seen[id] { // finished, but the crash came before the pending file was removed
			if err := os.Remove(s.pendingPath(id)); err != nil {
				return nil, nil, fmt.Errorf("remove finished delivery %s: %w", id, err)
			}
			continue
		}
		seen[id] = true
		pending = append(pending, id)
	}
	return seen, pending, nil
}

// listPending returns the ids of pending deliveries, oldest first.
func (s *store) listPending() ([]string, error) { return s.list(s.dir, false) }

// list returns the delivery ids stored in dir, by modification time. With
// clean, it removes temp files: only safe before the server takes requests,
// since a temp file may be a write in progress.
func (s *store) list(dir string, clean bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list deliveries in %s: %w", dir, err)
	}
	type item struct {
		id  string
		mod time.Time
	}
	var items []item
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		if strings.HasPrefix(name, tmpPrefix) {
			if clean {
				_ = os.Remove(filepath.Join(dir, name)) // a write cut short by a crash; never acknowledged
			}
			continue
		}
		id, ok := strings.CutSuffix(name, ext)
		if !ok || !validID.MatchString(id) {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, os.ErrNotExist) {
			continue // finished while we listed
		}
		if err != nil {
			return nil, fmt.Errorf("stat delivery %s: %w", name, err)
		}
		items = append(items, item{id, info.ModTime()})
	}
	slices.SortStableFunc(items, func(a, b item) int { return a.mod.Compare(b.mod) })
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.id
	}
	return ids, nil
}
