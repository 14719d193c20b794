package gitstate

import (
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// Journal is an append-only list of records kept as a chain of commits on one ref: each
// commit's tree holds one file, entry.json. A record is durable once Append returns.
type Journal struct {
	w    *Workshop
	ref  string
	head string
}

// Journal opens the journal kept on ref.
func (w *Workshop) Journal(ref string) (*Journal, error) {
	head, _, err := w.Ref(ref)
	if err != nil {
		return nil, err
	}
	return &Journal{w: w, ref: ref, head: head}, nil
}

// Entries returns every record, oldest first.
func (j *Journal) Entries() ([][]byte, error) {
	j.w.mu.Lock()
	defer j.w.mu.Unlock()
	var out [][]byte
	for h := j.head; h != ""; {
		c, err := j.w.repo.CommitObject(plumbing.NewHash(h))
		if err != nil {
			return nil, fmt.Errorf("read journal %s at %s: %w", j.ref, h, err)
		}
		tree, err := c.Tree()
		if err != nil {
			return nil, fmt.Errorf("read journal %s at %s: %w", j.ref, h, err)
		}
		entry, err := tree.FindEntry("entry.json")
		if err != nil {
			return nil, fmt.Errorf("read journal %s at %s: %w", j.ref, h, err)
		}
		data, err := j.w.readBlob(entry.Hash)
		if err != nil {
			return nil, fmt.Errorf("read journal %s at %s: %w", j.ref, h, err)
		}
		out = append(out, data)
		h = ""
		if len(c.ParentHashes) > 0 {
			h = c.ParentHashes[0].String()
		}
	}
	for i, k := 0, len(out)-1; i < k; i, k = i+1, k-1 {
		out[i], out[k] = out[k], out[i]
	}
	return out, nil
}

// ErrJournalMoved means another writer appended to the journal since it was opened.
var ErrJournalMoved = errors.New("journal moved: another process is writing this run")

// Append adds a record. It fails with ErrJournalMoved if another writer got there first,
// so two processes can never both drive one run.
func (j *Journal) Append(record []byte) error {
	tree, err := j.w.WriteFiles([]File{{Path: "entry.json", Content: record}})
	if err != nil {
		return fmt.Errorf("append to journal %s: %w", j.ref, err)
	}
	commit, err := j.w.commitOn(j.ref, j.head, tree, "journal entry")
	if errors.Is(err, ErrRefMoved) {
		return fmt.Errorf("append to journal %s: %w", j.ref, ErrJournalMoved)
	}
	if err != nil {
		return fmt.Errorf("append to journal %s: %w", j.ref, err)
	}
	j.head = commit
	return nil
}
