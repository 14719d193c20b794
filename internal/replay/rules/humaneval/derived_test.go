package humaneval

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/replay"
	"github.com/dixit-bot/dixit/internal/replay/rules"
)

func twoProblems() []replay.Problem {
	return []replay.Problem{
		{TaskID: "T/0", Prompt: "def f(x):\n    \"\"\"Double x.\"\"\"\n",
			Coders: []replay.Coder{{ID: "a#0", Source: "a", HiddenPass: true, Code: "def f(x): return 2*x"}, {ID: "b#0", Source: "b", Code: "def f(x): return x"}},
			Tests:  []replay.Test{{ID: "t#0", Source: "t", Correct: true, Code: "assert f(1) == 2"}, {ID: "t#1", Source: "t", Correct: true, Code: "assert not f(0)"}},
			Pass:   [][]bool{{true, true}, {false, true}}},
		{TaskID: "T/1", Prompt: "def g():\n    \"\"\"One.\"\"\"\n",
			Coders: []replay.Coder{{ID: "a#0", Source: "a", HiddenPass: true, Code: "def g(): return 1"}},
			Tests:  []replay.Test{{ID: "t#0", Source: "t", Correct: false, Code: "assert g() == 2"}},
			Pass:   [][]bool{{false}}},
	}
}

func derivedFor(ps []replay.Problem, stubs ...string) []Derived {
	var out []Derived
	for i := range ps {
		out = append(out, Derived{TaskID: ps[i].TaskID, TestsSHA: testsSHA(&ps[i]), CodersSHA: codersSHA(&ps[i]),
			Stub: stubs[i], CodeGroup: make([]int, len(ps[i].Coders))})
	}
	return out
}

func TestCorpusJoinsTheDerivedLines(t *testing.T) {
	ps := twoProblems()
	ds := derivedFor(ps, "fp", "t")
	ds[0].CodeGroup = []int{0, 1}
	c, err := Corpus(ps, ds, replay.Random)
	require.NoError(t, err)
	require.Len(t, c.Instances, 2)
	assert.Equal(t, []rules.Test{{Name: "t#0", Source: "t", Gold: rules.Pass, Base: rules.Fail}, {Name: "t#1", Source: "t", Gold: rules.Pass, Base: rules.Pass}},
		c.Instances[0].Tests, "the stub fails f(1) == 2 and passes not f(0)")
	assert.Equal(t, rules.Fail, c.Instances[1].Tests[0].Base, "a timeout fails")
	assert.Equal(t, rules.Fail, c.Instances[1].Tests[0].Gold)
	assert.Equal(t, []rules.Cell{rules.Fail, rules.Pass}, c.Instances[0].Cells[1])
	assert.NotEqual(t, c.Instances[0].Coders[0].Group, c.Instances[0].Coders[1].Group)
	assert.Contains(t, c.Notes[1], "1 of 3 asserts pass on it")
	assert.Equal(t, "from typing import *\nimport math\nimport re\nimport collections\nimport itertools\nimport heapq\nimport functools\nimport string\nimport hashlib\n"+
		"def f(x):\n    \"\"\"Double x.\"\"\"\n    pass\n", Stub(&ps[0]))
}

func TestCorpusRefusesDerivedLinesOfOtherData(t *testing.T) {
	cases := []struct {
		name   string
		change func(ps []replay.Problem, ds []Derived) []Derived
		want   string
	}{
		{"a line short", func(_ []replay.Problem, ds []Derived) []Derived { return ds[:1] }, "1 derived lines for 2 problems"},
		{"lines swapped", func(_ []replay.Problem, ds []Derived) []Derived { return []Derived{ds[1], ds[0]} }, "derived line for T/1 where T/0 is"},
		{"an assert changed", func(ps []replay.Problem, ds []Derived) []Derived { ps[0].Tests[1].Code = "assert f(0) == 0"; return ds }, "T/0: the derived line was built on other tests"},
		{"a program changed", func(ps []replay.Problem, ds []Derived) []Derived {
			ps[1].Coders[0].Code = "def g(): return 2"
			return ds
		}, "T/1: the derived line was built on other coders"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := twoProblems()
			ds := c.change(ps, derivedFor(ps, "fp", "t"))
			_, err := Corpus(ps, ds, replay.Random)
			assert.ErrorContains(t, err, c.want)
		})
	}
}

func TestReadRefusesMalformedLines(t *testing.T) {
	ps := twoProblems()
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, derivedFor(ps, "fp", "t")))
	good := buf.String()
	got, err := Read(context.Background(), strings.NewReader(good), "d.jsonl")
	require.NoError(t, err)
	assert.Equal(t, derivedFor(ps, "fp", "t"), got)

	first := strings.SplitN(good, "\n", 2)[0]
	cases := map[string]string{
		"": "d.jsonl: no lines",
		strings.Replace(first, `"fp"`, `"fx"`, 1):        "d.jsonl line 1: T/0: stub has a character other than p, f, t, e",
		strings.Replace(first, `[0,0]`, `[1,0]`, 1):      "code_group[0] is 1: groups are numbered 0, 1, …",
		strings.Replace(first, `"task_id"`, `"task"`, 1): `unknown field "task"`,
		first + first: "more than one JSON value",
		strings.Replace(first, `"tests_sha256":"`, `"tests_sha256":"ab`, 1): "tests_sha256 or coders_sha256 is not a sha256",
	}
	for input, want := range cases {
		_, err := Read(context.Background(), strings.NewReader(input), "d.jsonl")
		assert.ErrorContains(t, err, want, input)
	}
}
