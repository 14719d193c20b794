package classify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/dixit-bot/dixit/internal/ci"
	"github.com/dixit-bot/dixit/internal/config"
)

// BatchSchema names the version of batch.json, the input a backend writes for a runner.
const BatchSchema = "dixit.batch/v1"

// Caps on the input.
const (
	MaxBatchSize = 16 << 20 // batch.json
	MaxTestSize  = 1 << 20  // one test file, as a population allows
)

// Batch is batch.json: the candidate tests of one tester turn, the contract that places,
// builds and runs them, and the reruns. Every coder of the matrix gets the same batch.
type Batch struct {
	Schema string `json:"schema"` // BatchSchema
	Run    string `json:"run,omitempty"`
	Batch  string `json:"batch"`
	Reruns int    `json:"reruns,omitempty"` // 0: the contract source's reruns, else 20
	// Contract is the `test:` section of dixit.yml written as JSON, for example
	// {"preset": "go", "timeout": "30s"}; it is read by the same code as dixit.yml.
	Contract json.RawMessage `json:"contract,omitempty"`
	Tests    []BatchTest     `json:"tests"`
}

// BatchTest is one candidate test. Content is the file's text (UTF-8).
type BatchTest struct {
	ID string `json:"id"`
	// Path is where its tester put it (the contract's paths); empty: the contract's path.
	Path    string `json:"path,omitempty"`
	Content string `json:"content"`
	// Select are the node ids a diff's proposal runs (ci.Test.Select); empty: the file.
	Select []string `json:"select,omitempty"`
}

// NewBatch builds batch.json content for tests; contract is the JSON form of a dixit.yml
// `test:` section (nil to leave the contract to the runner's flags).
func NewBatch(run, batch string, reruns int, contract json.RawMessage, tests []ci.Test) ([]byte, error) {
	b := Batch{Schema: BatchSchema, Run: run, Batch: batch, Reruns: reruns, Contract: contract}
	for _, t := range tests {
		if !utf8.Valid(t.Content) {
			return nil, fmt.Errorf("test %s: content is not UTF-8 text", t.ID)
		}
		b.Tests = append(b.Tests, BatchTest{ID: t.ID, Path: t.Path, Content: string(t.Content), Select: t.Select})
	}
	if _, err := b.tests(); err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// ReadBatch reads and checks batch.json.
func ReadBatch(name string) (Batch, []ci.Test, error) {
	data, err := readCapped(name, MaxBatchSize)
	if err != nil {
		return Batch{}, nil, err
	}
	var b Batch
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return Batch{}, nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Batch{}, nil, fmt.Errorf("%s: trailing data after the object", name)
	}
	if b.Schema != BatchSchema {
		return Batch{}, nil, fmt.Errorf("%s: schema %q, want %q", name, b.Schema, BatchSchema)
	}
	if b.Run != "" && !namePattern.MatchString(b.Run) {
		return Batch{}, nil, fmt.Errorf("%s: run %q: want letters, digits, '.', '_' and '-'", name, b.Run)
	}
	if !namePattern.MatchString(b.Batch) {
		return Batch{}, nil, fmt.Errorf("%s: batch %q: want 1 to 100 letters, digits, '.', '_' and '-'", name, b.Batch)
	}
	tests, err := b.tests()
	if err != nil {
		return Batch{}, nil, fmt.Errorf("%s: %w", name, err)
	}
	return b, tests, nil
}

func (b Batch) tests() ([]ci.Test, error) {
	if len(b.Tests) == 0 || len(b.Tests) > MaxTests {
		return nil, fmt.Errorf("%d tests, want 1 to %d", len(b.Tests), MaxTests)
	}
	out := make([]ci.Test, len(b.Tests))
	for i, t := range b.Tests {
		out[i] = ci.Test{ID: t.ID, Path: t.Path, Content: []byte(t.Content), Select: t.Select}
	}
	return out, checkTests(out)
}

// DirTests reads every regular file directly in dir as one test. A test's id is its file
// name up to the first '.', so compare_test.go is the test "compare_test".
func DirTests(dir string) ([]ci.Test, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("tests: %w", err)
	}
	var tests []ci.Test
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := readCapped(filepath.Join(dir, e.Name()), MaxTestSize)
		if err != nil {
			return nil, err
		}
		id, _, _ := strings.Cut(e.Name(), ".")
		tests = append(tests, ci.Test{ID: id, Content: data})
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i].ID < tests[j].ID })
	if err := checkTests(tests); err != nil {
		return nil, fmt.Errorf("tests in %s: %w", dir, err)
	}
	return tests, nil
}

// checkTests checks ids (unique, safe in a path and a command) and sizes.
func checkTests(tests []ci.Test) error {
	if len(tests) == 0 || len(tests) > MaxTests {
		return fmt.Errorf("%d tests, want 1 to %d", len(tests), MaxTests)
	}
	seen := map[string]bool{}
	for _, t := range tests {
		if !idPattern.MatchString(t.ID) {
			return fmt.Errorf("test id %q: want 1 to 100 letters, digits, '.', '_' and '-', not first '.' or '-'", t.ID)
		}
		if seen[t.ID] {
			return fmt.Errorf("test id %q appears twice", t.ID)
		}
		seen[t.ID] = true
		if len(t.Content) > MaxTestSize {
			return fmt.Errorf("test %s: larger than %d bytes", t.ID, MaxTestSize)
		}
	}
	return nil
}

// ContractFromJSON reads the JSON (or YAML) form of a dixit.yml `test:` section with the
// same strict code as dixit.yml, presets included.
func ContractFromJSON(section []byte) (ci.Contract, error) {
	if len(bytes.TrimSpace(section)) == 0 {
		return ci.Contract{}, errors.New("contract: empty")
	}
	doc := append([]byte(`{"test": `), section...)
	doc = append(doc, '}')
	if !json.Valid(doc) {
		// YAML form: indent it under test:.
		var b strings.Builder
		b.WriteString("test:\n")
		for _, line := range strings.Split(strings.TrimRight(string(section), "\n"), "\n") {
			b.WriteString("  " + line + "\n")
		}
		doc = []byte(b.String())
	}
	s, err := config.Parse(doc)
	if err != nil {
		return ci.Contract{}, fmt.Errorf("contract: %w", err)
	}
	return s.Test, nil
}

// ContractFromConfig reads the contract and reruns of a dixit.yml file.
func ContractFromConfig(name string) (ci.Contract, int, error) {
	s, err := config.Load(name)
	if err != nil {
		return ci.Contract{}, 0, err
	}
	return s.Test, s.Reruns, nil
}

func readCapped(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, limit)
	}
	return data, nil
}
