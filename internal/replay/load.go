package replay

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxLine caps one problem's line: the largest in the data set is about 300 KB, so 64 MiB
// leaves room for bigger sets while still refusing a runaway file.
const MaxLine = 64 << 20

// Problem is one task with what the replay needs: who passed which test, and who is right.
type Problem struct {
	TaskID     string
	EntryPoint string
	Prompt     string // the signature and docstring the coders were given
	Coders     []Coder
	Tests      []Test
	Pass       [][]bool // Pass[coder][test], in Coders × Tests order
}

// Coder is one recorded solution.
type Coder struct {
	ID         string
	Source     string
	HiddenPass bool   // the original check() and every HumanEval+ input pass
	Code       string // a self-contained program (--execute runs it)
	Timeouts   int    // asserts that timed out when the matrix was recorded
}

// Test is one generated assert.
type Test struct {
	ID      string
	Source  string
	Correct bool   // the canonical solution passes it
	Code    string // one assert statement
}

// wireProblem is a line of problems.jsonl. Pointers mark the fields the replay needs, so
// a missing one is an error rather than a silent zero.
type wireProblem struct {
	TaskID            *string         `json:"task_id"`
	EntryPoint        string          `json:"entry_point"`
	Prompt            string          `json:"prompt"`
	CanonicalSolution string          `json:"canonical_solution"`
	HiddenTest        string          `json:"hidden_test"`
	HiddenTestPlus    json.RawMessage `json:"hidden_test_plus"`
	Coders            *[]wireCoder    `json:"coders"`
	Tests             *[]wireTest     `json:"tests"`
	PassMatrix        *[][]int8       `json:"pass_matrix"`
}

type wireCoder struct {
	ID              *string `json:"id"`
	Source          *string `json:"source"`
	Code            string  `json:"code"`
	HiddenPass      *bool   `json:"hidden_pass"`
	HiddenPassBase  bool    `json:"hidden_pass_base"`
	HiddenPassPlus  bool    `json:"hidden_pass_plus"`
	LabelFromSource *bool   `json:"label_from_source"`
	Loads           bool    `json:"loads"`
	TestTimeouts    int     `json:"test_timeouts"`
	TestsSkipped    int     `json:"tests_skipped"`
}

type wireTest struct {
	ID             *string `json:"id"`
	Source         *string `json:"source"`
	Code           string  `json:"code"`
	Correct        *bool   `json:"correct"`
	CanonicalError *string `json:"canonical_error"`
	NSamples       int     `json:"n_samples"`
}

// LoadFile reads a problems.jsonl file; see Load.
func LoadFile(ctx context.Context, path string) ([]Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open replay data: %w", err)
	}
	defer f.Close()
	if !strings.HasSuffix(path, ".gz") {
		return Load(ctx, f, path)
	}
	// The data sets ship compressed (data/humaneval-replay is 22 MB as JSON, 1 MB so).
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read replay data %s: %w", path, err)
	}
	defer z.Close()
	return Load(ctx, z, path)
}

// Load reads problems.jsonl strictly: every line one problem, known fields only, the
// matrix aligned with coders and tests, task ids unique. Errors name the source and line.
func Load(ctx context.Context, r io.Reader, name string) ([]Problem, error) {
	var out []Problem
	err := Each(ctx, r, name, func(p Problem) error {
		out = append(out, p)
		return nil
	})
	return out, err
}

// Each streams the problems of r to fn, one line at a time, stopping at the first error.
func Each(ctx context.Context, r io.Reader, name string, fn func(Problem) error) error {
	return each(ctx, r, name, MaxLine, fn)
}

func each(ctx context.Context, r io.Reader, name string, maxLine int, fn func(Problem) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(maxLine, 1<<20)), maxLine)
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := parseLine(sc.Bytes())
		if err != nil {
			return fmt.Errorf("%s line %d: %w", name, line, err)
		}
		if first, dup := seen[p.TaskID]; dup {
			return fmt.Errorf("%s line %d: task %s already on line %d", name, line, p.TaskID, first)
		}
		seen[p.TaskID] = line
		if err := fn(p); err != nil {
			return fmt.Errorf("%s line %d (%s): %w", name, line, p.TaskID, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s line %d: longer than %d bytes", name, line+1, maxLine)
		}
		return fmt.Errorf("%s line %d: %w", name, line+1, err)
	}
	if line == 0 {
		return fmt.Errorf("%s: no problems", name)
	}
	return nil
}

func parseLine(b []byte) (Problem, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return Problem{}, errors.New("empty line")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var w wireProblem
	if err := dec.Decode(&w); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return Problem{}, fmt.Errorf("truncated JSON: %w", err)
		}
		return Problem{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Problem{}, errors.New("more than one JSON value on the line")
	}
	return w.problem()
}

func (w *wireProblem) problem() (Problem, error) {
	switch {
	case w.TaskID == nil || *w.TaskID == "":
		return Problem{}, errors.New("task_id missing or empty")
	case w.Coders == nil:
		return Problem{}, fmt.Errorf("%s: coders missing", *w.TaskID)
	case w.Tests == nil:
		return Problem{}, fmt.Errorf("%s: tests missing", *w.TaskID)
	case w.PassMatrix == nil:
		return Problem{}, fmt.Errorf("%s: pass_matrix missing", *w.TaskID)
	}
	p := Problem{TaskID: *w.TaskID, EntryPoint: w.EntryPoint, Prompt: w.Prompt}
	ids := map[string]bool{}
	for i, c := range *w.Coders {
		if c.ID == nil || *c.ID == "" || c.Source == nil || *c.Source == "" || c.HiddenPass == nil {
			return Problem{}, fmt.Errorf("%s: coder %d lacks id, source or hidden_pass", p.TaskID, i)
		}
		if ids[*c.ID] {
			return Problem{}, fmt.Errorf("%s: coder id %s twice", p.TaskID, *c.ID)
		}
		ids[*c.ID] = true
		p.Coders = append(p.Coders, Coder{ID: *c.ID, Source: *c.Source, HiddenPass: *c.HiddenPass, Code: c.Code, Timeouts: c.TestTimeouts})
	}
	clear(ids)
	for i, t := range *w.Tests {
		if t.ID == nil || *t.ID == "" || t.Source == nil || *t.Source == "" || t.Correct == nil {
			return Problem{}, fmt.Errorf("%s: test %d lacks id, source or correct", p.TaskID, i)
		}
		if ids[*t.ID] {
			return Problem{}, fmt.Errorf("%s: test id %s twice", p.TaskID, *t.ID)
		}
		ids[*t.ID] = true
		p.Tests = append(p.Tests, Test{ID: *t.ID, Source: *t.Source, Correct: *t.Correct, Code: t.Code})
	}
	m := *w.PassMatrix
	if len(m) != len(p.Coders) {
		return Problem{}, fmt.Errorf("%s: pass_matrix has %d rows for %d coders", p.TaskID, len(m), len(p.Coders))
	}
	p.Pass = make([][]bool, len(m))
	for i, row := range m {
		if len(row) != len(p.Tests) {
			return Problem{}, fmt.Errorf("%s: pass_matrix row %d (%s) has %d cells for %d tests",
				p.TaskID, i, p.Coders[i].ID, len(row), len(p.Tests))
		}
		p.Pass[i] = make([]bool, len(row))
		for j, v := range row {
			if v != 0 && v != 1 {
				return Problem{}, fmt.Errorf("%s: pass_matrix[%d][%d] is %d, not 0 or 1", p.TaskID, i, j, v)
			}
			p.Pass[i][j] = v == 1
		}
	}
	return p, nil
}
