package strictyaml

import (
	"bytes"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// plainSyntax rewords the YAML parser's complaints. The parser reports them only as English
// text, so we match it; a complaint not listed keeps the parser's words.
var plainSyntax = []struct{ problem, say string }{
	{"tab character", tabIndent},
	{"cannot start any token", "a value cannot start with this character; put the value in quotes"},
	{"mapping values are not allowed", `a ":" cannot go here; check the indentation, or put a value that holds ": " in quotes`},
	{"did not find expected key", "this line does not line up with the keys above it, or text follows a closing quote"},
	{"unexpected end of stream", "a quote that opens here is never closed"},
	{"expected ',' or ']'", "a [list] that opens here is not closed, or its items are not separated by commas"},
	{"expected ',' or '}'", "a {section} that opens here is not closed, or its keys are not separated by commas"},
	{"expected '-' indicator", "list items (- ...) and keys are mixed at one indentation"},
	{"could not find expected ':'", `expected "key: value" here`},
	{"did not find expected node content", "a value is missing here"},
	{"unknown anchor", "an alias (*name) refers to no anchor (&name) above it"},
	{"control characters", "the file holds control characters; it must be plain text"},
	{"UTF-8", "the file is not UTF-8 text"},
	{"Unicode", "the file is not UTF-8 text"},
}

const tabIndent = "indented with a tab; indent with spaces only"

var parserProblem = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// syntaxError turns a parse failure into an *Error on the line to fix.
func syntaxError(file string, data []byte, err error) error {
	m := parserProblem.FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{File: file, Err: errors.New("not valid YAML")}
	}
	problem := m[2]
	line, _ := strconv.Atoi(m[1])
	if l := firstBadLine(data, problem); l > 0 {
		line = l
	}
	say := "not valid YAML (" + problem + ")"
	for _, p := range plainSyntax {
		if strings.Contains(problem, p.problem) {
			say = p.say
			break
		}
	}
	if strings.Contains(problem, "cannot start any token") || strings.Contains(problem, "tab character") {
		if l := tabIndented(data); l > 0 {
			line, say = l, tabIndent
		}
	}
	return &Error{File: file, Line: line, Err: errors.New(say)}
}

// maxRescan bounds the bytes firstBadLine parses in all: a file of a few hundred lines is
// rescanned whole in milliseconds; a bigger one keeps the parser's line.
const maxRescan = 1 << 20

// firstBadLine is the first line after which the file fails as it fails whole. The parser
// names the line where the enclosing block began, often above the mistake, and none at
// all on the first line; the shortest failing prefix ends on the mistake.
func firstBadLine(data []byte, problem string) int {
	end, parsed := 0, 0
	for i, l := range bytes.SplitAfter(data, []byte("\n")) {
		end += len(l)
		if parsed += end; parsed > maxRescan {
			return 0
		}
		var n yaml.Node
		err := yaml.Unmarshal(data[:end], &n)
		if m := parserProblem.FindStringSubmatch(errString(err)); m != nil && m[2] == problem {
			return i + 1
		}
	}
	return 0
}

// tabIndented is the first line whose indentation holds a tab.
func tabIndented(data []byte) int {
	for i, l := range bytes.Split(data, []byte("\n")) {
		indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
		if bytes.IndexByte(indent, '\t') >= 0 && len(bytes.TrimSpace(l)) > 0 {
			return i + 1
		}
	}
	return 0
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
