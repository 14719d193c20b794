package replay

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// line is a valid problem with two coders and two tests; cases edit it.
const line = `{"task_id":"T/0","entry_point":"f","prompt":"","canonical_solution":"","hidden_test":"","hidden_test_plus":{"ref":"x","n_inputs":1,"atol":0},` +
	`"coders":[{"id":"a#0","source":"a","code":"","hidden_pass":true,"hidden_pass_base":true,"hidden_pass_plus":true,"label_from_source":null,"loads":true,"test_timeouts":0,"tests_skipped":0},` +
	`{"id":"b#0","source":"b","code":"","hidden_pass":false,"hidden_pass_base":false,"hidden_pass_plus":false,"label_from_source":false,"loads":true,"test_timeouts":0,"tests_skipped":0}],` +
	`"tests":[{"id":"t#0","source":"t","code":"assert f()","correct":true,"canonical_error":null,"n_samples":1},` +
	`{"id":"t#1","source":"t","code":"assert f(1)","correct":false,"canonical_error":"AssertionError","n_samples":2}],` +
	`"pass_matrix":[[1,0],[1,1]]}`

func TestLoadReadsAValidLine(t *testing.T) {
	ps, err := Load(context.Background(), strings.NewReader(line+"\n"+strings.Replace(line, "T/0", "T/1", 1)), "p.jsonl")
	require.NoError(t, err)
	require.Len(t, ps, 2)
	assert.Equal(t, Problem{
		TaskID:     "T/0",
		EntryPoint: "f",
		Coders:     []Coder{{ID: "a#0", Source: "a", HiddenPass: true}, {ID: "b#0", Source: "b"}},
		Tests:      []Test{{ID: "t#0", Source: "t", Correct: true, Code: "assert f()"}, {ID: "t#1", Source: "t", Code: "assert f(1)"}},
		Pass:       [][]bool{{true, false}, {true, true}},
	}, ps[0])
}

func TestLoadRejectsMalformedInput(t *testing.T) {
	second := strings.Replace(line, "T/0", "T/1", 1)
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{"empty file", "", "p.jsonl: no problems"},
		{"truncated line", line + "\n" + second[:len(second)/2], "p.jsonl line 2: truncated JSON"},
		{"empty line", line + "\n\n" + second, "p.jsonl line 2: empty line"},
		{"two values on a line", line + " {}", "p.jsonl line 1: more than one JSON value"},
		{"not an object", `[1, 2]`, "p.jsonl line 1: json: cannot unmarshal array"},
		{"unknown field", strings.Replace(line, `"entry_point"`, `"entrypoint"`, 1), `p.jsonl line 1: json: unknown field "entrypoint"`},
		{"missing task id", strings.Replace(line, `"task_id":"T/0",`, ``, 1), "p.jsonl line 1: task_id missing or empty"},
		{"duplicate task", line + "\n" + line, "p.jsonl line 2: task T/0 already on line 1"},
		{"missing label", strings.Replace(line, `"correct":true,`, ``, 1), "T/0: test 0 lacks id, source or correct"},
		{"missing matrix", strings.Replace(line, `,"pass_matrix":[[1,0],[1,1]]`, ``, 1), "T/0: pass_matrix missing"},
		{"label of the wrong type", strings.Replace(line, `"hidden_pass":true`, `"hidden_pass":"yes"`, 1), "cannot unmarshal string into Go struct field"},
		{"cell of the wrong type", strings.Replace(line, `[[1,0]`, `[["1",0]`, 1), "p.jsonl line 1: json: cannot unmarshal string"},
		{"fractional cell", strings.Replace(line, `[[1,0]`, `[[0.5,0]`, 1), "cannot unmarshal number 0.5"},
		{"cell out of range", strings.Replace(line, `[[1,0]`, `[[2,0]`, 1), "T/0: pass_matrix[0][0] is 2, not 0 or 1"},
		{"row missing", strings.Replace(line, `[[1,0],[1,1]]`, `[[1,0]]`, 1), "T/0: pass_matrix has 1 rows for 2 coders"},
		{"row too short", strings.Replace(line, `[[1,0],[1,1]]`, `[[1,0],[1]]`, 1), "T/0: pass_matrix row 1 (b#0) has 1 cells for 2 tests"},
		{"duplicate coder", strings.Replace(line, `"id":"b#0"`, `"id":"a#0"`, 1), "T/0: coder id a#0 twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(context.Background(), strings.NewReader(tc.input), "p.jsonl")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestLoadCapsTheLineLength(t *testing.T) {
	err := each(context.Background(), strings.NewReader(line+"\n"+line), "p.jsonl", 100, func(Problem) error { return nil })
	assert.EqualError(t, err, "p.jsonl line 1: longer than 100 bytes")
}

func TestLoadStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Load(ctx, strings.NewReader(line), "p.jsonl")
	assert.ErrorIs(t, err, context.Canceled)
}
