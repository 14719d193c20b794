// Package humaneval turns the recorded HumanEval matrix (../shared/data/humaneval-replay)
// into rules.Instances: the canonical solution is the gold, an empty-body stub is the base,
// and coders with the same normalised program share a group for the majority vote.
//
// The stub's results and the groups are not in the data set; Build computes them once
// (the stub's asserts run in the judge's sandbox) into a small derived file kept in the
// repository, and Instances checks that file against the data set line by line.
package humaneval

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dixit-bot/dixit/internal/replay"
)

// DerivedFile is where the derived file lives in the repository.
const DerivedFile = "data/humaneval-derived/derived.jsonl"

// Derived is what one problem gains beyond the data set.
type Derived struct {
	TaskID    string `json:"task_id"`
	TestsSHA  string `json:"tests_sha256"`  // of the problem's test ids and asserts, in order
	CodersSHA string `json:"coders_sha256"` // of its coder ids and programs, in order
	// Stub is one character per test: the assert on the empty-body stub passed (p), failed
	// (f), ran out of time (t, failing, as the data set counts it) or gave no result (e).
	Stub string `json:"stub"`
	// CodeGroup is per coder the index of its normalised program among the problem's, in
	// order of first appearance: equal indices, identical programs once normalised.
	CodeGroup []int `json:"code_group"`
}

// stubChars are the Stub characters and the results they stand for.
var stubChars = map[string]byte{replay.AssertPass: 'p', replay.AssertFail: 'f', replay.AssertTimeout: 't',
	replay.AssertEnvironment: 'e', replay.AssertUnknown: 'e'}

// testsSHA and codersSHA pin a derived line to the exact tests and coders it was built on.
func testsSHA(p *replay.Problem) string {
	h := sha256.New()
	for _, t := range p.Tests {
		fmt.Fprintf(h, "%q %q\n", t.ID, t.Code)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func codersSHA(p *replay.Problem) string {
	h := sha256.New()
	for _, c := range p.Coders {
		fmt.Fprintf(h, "%q %q\n", c.ID, c.Code)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Write writes the derived lines, one JSON object per line, in the data set's order.
func Write(w io.Writer, ds []Derived) error {
	enc := json.NewEncoder(w)
	for _, d := range ds {
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("write derived line for %s: %w", d.TaskID, err)
		}
	}
	return nil
}

// ReadFile reads a derived file; see Read.
func ReadFile(ctx context.Context, path string) ([]Derived, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open derived HumanEval file: %w", err)
	}
	defer f.Close()
	return Read(ctx, f, path)
}

// Read reads derived lines strictly: known fields only, every field present and well
// formed. Errors name the file, the line and the field. Whether a line fits its problem
// is Instances' check.
func Read(ctx context.Context, r io.Reader, name string) ([]Derived, error) {
	var out []Derived
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, err := parseDerived(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no lines", name)
	}
	return out, nil
}

func parseDerived(b []byte) (Derived, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var d Derived
	if err := dec.Decode(&d); err != nil {
		return Derived{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Derived{}, errors.New("more than one JSON value on the line")
	}
	switch {
	case d.TaskID == "":
		return Derived{}, errors.New("task_id missing or empty")
	case len(d.TestsSHA) != 64 || len(d.CodersSHA) != 64:
		return Derived{}, fmt.Errorf("%s: tests_sha256 or coders_sha256 is not a sha256", d.TaskID)
	case strings.Trim(d.Stub, "pfte") != "":
		return Derived{}, fmt.Errorf("%s: stub has a character other than p, f, t, e", d.TaskID)
	}
	next := 0
	for i, g := range d.CodeGroup {
		if g < 0 || g > next {
			return Derived{}, fmt.Errorf("%s: code_group[%d] is %d: groups are numbered 0, 1, … in order of first appearance", d.TaskID, i, g)
		}
		if g == next {
			next++
		}
	}
	return d, nil
}
