package differential_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/differential"
)

func TestParse(t *testing.T) {
	long := strings.Repeat("x", differential.MaxValue+10)
	tests := []struct {
		name     string
		out      string
		answers  []differential.Answer
		problems []string // substrings, one per problem, in order
	}{
		{name: "answers among framework chatter",
			out:     "=== RUN TestProbe\ndixit-probe {\"input\": 1, \"output\": \"one\"}\nPASS\ndixit-probe {\"input\":2,\"output\":\"two\"}\nok\n",
			answers: []differential.Answer{{Input: "1", Output: `"one"`}, {Input: "2", Output: `"two"`}}},
		{name: "prefix after pytest's progress dot, CRLF, no final newline",
			out:     "dixit-probe {\"input\":1,\"output\":1}\r\n.dixit-probe {\"input\":2,\"output\":4}",
			answers: []differential.Answer{{Input: "1", Output: "1"}, {Input: "2", Output: "4"}}},
		{name: "spacing and key order do not matter, number text does",
			out: "dixit-probe { \"output\" : {\"b\":1, \"a\":[1, 2.0]}, \"input\" : 9007199254740993 , \"extra\": true }\n" +
				"dixit-probe {\"input\":9007199254740992,\"output\":\"<&>\"}\n",
			answers: []differential.Answer{
				{Input: "9007199254740993", Output: `{"a":[1,2.0],"b":1}`},
				{Input: "9007199254740992", Output: `"<&>"`},
			}},
		{name: "the same answer twice counts once",
			out:     "dixit-probe {\"input\":\"a\",\"output\":1}\ndixit-probe {\"output\":1,\"input\":\"a\"}\n",
			answers: []differential.Answer{{Input: `"a"`, Output: "1"}}},
		{name: "an inconsistent repeat keeps the first answer",
			out:      "dixit-probe {\"input\":\"a\",\"output\":1}\ndixit-probe {\"input\":\"a\",\"output\":2}\n",
			answers:  []differential.Answer{{Input: `"a"`, Output: "1"}},
			problems: []string{`line 2: input "a" answered 2, earlier 1`}},
		{name: "malformed lines",
			out: "dixit-probe {\"input\":1\ndixit-probe [1,2]\ndixit-probe null\ndixit-probe {\"output\":1}\n" +
				"dixit-probe {\"input\":1}\ndixit-probe {\"input\":1,\"output\":2} trailing\ndixit-probe hello\n",
			problems: []string{"line 1: not a JSON object", "line 2: not a JSON object", "line 3: not a JSON object: null",
				`line 4: no "input" key`, `line 5: no "output" key`, "line 6: text after the JSON object: trailing",
				"line 7: not a JSON object"}},
		{name: "a line over the cap",
			out:      "dixit-probe {\"input\":1,\"output\":\"" + strings.Repeat("y", differential.MaxLine) + "\"}\n",
			problems: []string{fmt.Sprintf("line 1: longer than %d bytes", differential.MaxLine)}},
		{name: "a long chatter line is not a problem",
			out:     strings.Repeat("z", 2*differential.MaxLine) + "\ndixit-probe {\"input\":1,\"output\":1}\n",
			answers: []differential.Answer{{Input: "1", Output: "1"}}},
		{name: "invalid UTF-8 is replaced",
			out:     "dixit-probe {\"input\":\"\xff\",\"output\":\"ok\"}\n",
			answers: []differential.Answer{{Input: "\"\uFFFD\"", Output: `"ok"`}}},
		{name: "empty output", out: ""},
		{name: "long values are cut and stay distinct",
			out: "dixit-probe {\"input\":\"" + long + "1\",\"output\":1}\ndixit-probe {\"input\":\"" + long + "2\",\"output\":2}\n",
			answers: []differential.Answer{
				{Input: cutText(t, `"`+long+`1"`), Output: "1"},
				{Input: cutText(t, `"`+long+`2"`), Output: "2"},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			answers, problems := differential.Parse([]byte(tc.out))
			assert.Equal(t, tc.answers, answers)
			require.Len(t, problems, len(tc.problems), "problems: %q", problems)
			for i, want := range tc.problems {
				assert.Contains(t, problems[i], want)
			}
		})
	}
}

// cutText is what Parse makes of a value over MaxValue: its head and a marker.
func cutText(t *testing.T, value string) string {
	answers, _ := differential.Parse([]byte(`dixit-probe {"input":` + value + `,"output":0}`))
	require.Len(t, answers, 1)
	in := answers[0].Input
	assert.True(t, strings.HasPrefix(in, value[:differential.MaxValue]))
	assert.Contains(t, in, fmt.Sprintf("…[cut: %d bytes, sha256 ", len(value)))
	return in
}

func TestParseCaps(t *testing.T) {
	var b strings.Builder
	for i := range differential.MaxAnswers + 5 {
		fmt.Fprintf(&b, "dixit-probe {\"input\":%d,\"output\":%d}\n", i, i*i)
	}
	for range differential.MaxProblems + 3 {
		b.WriteString("dixit-probe nonsense\n")
	}
	answers, problems := differential.Parse([]byte(b.String()))
	assert.Len(t, answers, differential.MaxAnswers)
	assert.Equal(t, differential.Answer{Input: "9999", Output: "99980001"}, answers[len(answers)-1])
	require.Len(t, problems, differential.MaxProblems+2)
	assert.Equal(t, "and 3 more problems", problems[differential.MaxProblems])
	assert.Equal(t, fmt.Sprintf("stopped at %d answers: 5 more lines with new inputs ignored", differential.MaxAnswers),
		problems[differential.MaxProblems+1])
}

// FuzzParse holds Parse to its promises on any output: no panic, caps kept, valid
// UTF-8, one answer per input, and the same result twice.
func FuzzParse(f *testing.F) {
	f.Add([]byte("dixit-probe {\"input\":1,\"output\":2}\n"))
	f.Add([]byte(".dixit-probe {\"input\":[1,{\"b\":2,\"a\":1}],\"output\":null}\r\nchatter\n"))
	f.Add([]byte("dixit-probe {\"input\":\"\xff\xfe\",\"output\":1e400}\ndixit-probe {\"input\":\"\xff\xfe\",\"output\":2}"))
	f.Fuzz(func(t *testing.T, out []byte) {
		answers, problems := differential.Parse(out)
		again, problemsAgain := differential.Parse(out)
		assert.Equal(t, answers, again)
		assert.Equal(t, problems, problemsAgain)
		assert.LessOrEqual(t, len(answers), differential.MaxAnswers)
		assert.LessOrEqual(t, len(problems), differential.MaxProblems+2)
		seen := map[string]bool{}
		for _, a := range answers {
			assert.False(t, seen[a.Input], "input %q twice", a.Input)
			seen[a.Input] = true
			for _, v := range []string{a.Input, a.Output} {
				assert.NotEmpty(t, v)
				assert.True(t, utf8.ValidString(v), "%q", v)
				assert.LessOrEqual(t, len(v), differential.MaxValue+64)
			}
		}
		for _, p := range problems {
			assert.True(t, utf8.ValidString(p), "%q", p)
			assert.LessOrEqual(t, len(p), 1024)
		}
	})
}
