package differential

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Prefix starts a probe's answer line; the rest of the line is a JSON object
// {"input": ..., "output": ...}. It may follow other text on the line: pytest -s prints a
// test's progress dot right before the next test's output.
const Prefix = "dixit-probe "

// Caps on what one implementation's output can make us hold. The output is the untrusted
// code's, so every cap holds whatever it prints.
const (
	MaxLine     = 64 << 10 // an answer line longer than this is a problem
	MaxAnswers  = 10000    // distinct inputs kept per implementation; later new ones are dropped
	MaxValue    = 2 << 10  // an input's or output's JSON text longer than this is cut
	MaxProblems = 10       // problems listed per implementation; the rest are counted
)

// Answer is one input and the implementation's output for it, each as compact JSON text
// (object keys sorted, numbers as written), so equal values compare equal as strings.
// A value longer than MaxValue is cut and marked with its length and hash: no longer
// JSON, but two cut values are still equal only when the whole values were.
type Answer struct {
	Input  string `json:"input"`
	Output string `json:"output"`
}

// Parse reads a probe's output: the answers in first-seen order, one per distinct input,
// and what was wrong with the rest (lines without Prefix are ignored). A repeated input
// with another output is a problem and the first output stays: the implementation is
// not even consistent with itself. Parse never panics, whatever out holds.
func Parse(out []byte) (answers []Answer, problems []string) {
	p := parser{seen: map[string]int{}}
	for n := 1; len(out) > 0; n++ {
		line := out
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			line, out = out[:i], out[i+1:]
		} else {
			out = nil
		}
		p.line(n, bytes.TrimSuffix(line, []byte("\r")))
	}
	return p.answers, p.done()
}

type parser struct {
	answers  []Answer
	seen     map[string]int // input -> index in answers
	problems []string
	dropped  int // problems beyond MaxProblems
	extra    int // lines with a new input after MaxAnswers
}

func (p *parser) line(n int, line []byte) {
	i := bytes.Index(line, []byte(Prefix))
	if i < 0 {
		return
	}
	if len(line) > MaxLine {
		p.problem("line %d: longer than %d bytes", n, MaxLine)
		return
	}
	in, out, err := decode(line[i+len(Prefix):])
	if err != nil {
		p.problem("line %d: %v", n, err)
		return
	}
	if j, ok := p.seen[in]; ok {
		if first := p.answers[j].Output; first != out {
			p.problem("line %d: input %s answered %s, earlier %s", n, brief(in), brief(out), brief(first))
		}
		return
	}
	if len(p.answers) >= MaxAnswers {
		p.extra++
		return
	}
	p.seen[in] = len(p.answers)
	p.answers = append(p.answers, Answer{Input: in, Output: out})
}

func (p *parser) problem(format string, args ...any) {
	if len(p.problems) >= MaxProblems {
		p.dropped++
		return
	}
	p.problems = append(p.problems, strings.ToValidUTF8(fmt.Sprintf(format, args...), "\uFFFD"))
}

// done adds the summaries that must survive the cap on problems.
func (p *parser) done() []string {
	out := p.problems
	if p.dropped > 0 {
		out = append(out, fmt.Sprintf("and %d more problems", p.dropped))
	}
	if p.extra > 0 {
		out = append(out, fmt.Sprintf("stopped at %d answers: %d more lines with new inputs ignored", MaxAnswers, p.extra))
	}
	return out
}

// decode reads the JSON object after the prefix; other keys than input and output are
// ignored.
func decode(b []byte) (in, out string, err error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var obj map[string]json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		return "", "", fmt.Errorf("not a JSON object: %v", err)
	}
	if obj == nil {
		return "", "", errors.New("not a JSON object: null")
	}
	if rest := bytes.TrimSpace(b[dec.InputOffset():]); len(rest) > 0 {
		return "", "", fmt.Errorf("text after the JSON object: %s", brief(string(rest)))
	}
	rawIn, ok := obj["input"]
	if !ok {
		return "", "", errors.New(`no "input" key`)
	}
	rawOut, ok := obj["output"]
	if !ok {
		return "", "", errors.New(`no "output" key`)
	}
	if in, err = canonical(rawIn); err != nil {
		return "", "", fmt.Errorf("input: %v", err)
	}
	if out, err = canonical(rawOut); err != nil {
		return "", "", fmt.Errorf("output: %v", err)
	}
	return in, out, nil
}

// canonical re-encodes one JSON value compactly with sorted keys. Numbers keep their
// text: decoding them as float64 would make 2^53 and 2^53+1 agree.
func canonical(raw json.RawMessage) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return cut(strings.TrimSuffix(buf.String(), "\n"), MaxValue), nil
}

// cut shortens a value's text to max bytes, marked with its length and hash.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%s…[cut: %d bytes, sha256 %s]", head(s, max), len(s), hex.EncodeToString(sum[:6]))
}

// brief keeps a value short enough for a problem line.
func brief(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return head(s, max) + "…"
}

// head returns at most max leading bytes of s, not ending inside a UTF-8 sequence.
func head(s string, max int) string {
	if len(s) <= max {
		return s
	}
	k := max
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k]
}
