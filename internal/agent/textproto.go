package agent

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/dixit-bot/dixit/internal/agent/workspace"
	"github.com/dixit-bot/dixit/internal/fence"
)

// The text protocol, for models without tool calling (agents.tools: text): a coder
// writes each file as a fenced block that names its path, or a unified diff in a diff
// block, and says DONE on a line of its own; a tester writes its test as one fenced
// block and asks for a file of the repository with a line READ <path>.

// textBlock is one fenced block of a reply.
type textBlock struct {
	info string // the info string after the opening fence
	path string // the path it names, "" when it names none
	body string
	// closed: the block has its closing fence; a reply cut off at the token limit may
	// end inside one, and half a file is never written.
	closed bool
}

// diff reports a block holding a unified diff.
func (b textBlock) diff() bool {
	lang := strings.ToLower(firstWord(b.info))
	return lang == "diff" || lang == "patch"
}

var (
	fenceLine = regexp.MustCompile("^[ \t]{0,3}(`{3,}|~{3,})[ \t]*(.*?)[ \t]*$")
	// A line before the fence naming the file: "File: calc.go", "**calc.go**", "### `calc.go`".
	pathLine  = regexp.MustCompile("(?i)^[ \t]*(?:#+[ \t]*)?(?:[*_]{1,2})?((?:file|path|filename)[ \t]*:[ \t]*)?(?:[*_]{1,2})?`?([^`*\\s:]+)`?(?:[*_]{1,2})?:?[ \t]*$")
	pathChars = regexp.MustCompile(`^[\w.@+-]+(?:/[\w.@+-]+)*$`)
	fileExt   = regexp.MustCompile(`[^/.]\.[A-Za-z0-9]+$`)
	// The block's first line naming the file: "// path: calc.go", "# File: calc.py".
	headerLine = regexp.MustCompile(`(?i)^[ \t]*(?://|#|--|;|/\*)[ \t]*(?:file|path|filename)[ \t]*:[ \t]*(\S+?)[ \t]*(?:\*/)?[ \t]*$`)
	pathAttr   = regexp.MustCompile(`(?i)(?:^|\s)(?:path|file|filename)=["']?([^"'\s]+)`)
	readLine   = regexp.MustCompile(`^[ \t]*READ[ \t]+` + "`?" + `([^\s` + "`" + `]+)` + "`?" + `[ \t]*$`)
)

// parseText splits a reply into its fenced blocks, and reports a line DONE outside them.
// A block without a closing fence runs to the end of the reply, as a cut-off reply does.
func parseText(content string) (blocks []textBlock, done bool) {
	lines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	prev := "" // the last non-blank line outside a block
	for i := 0; i < len(lines); i++ {
		m := fenceLine.FindStringSubmatch(lines[i])
		if m == nil {
			if t := strings.TrimSpace(lines[i]); t != "" {
				prev = t
				done = done || strings.Trim(t, "*_`.") == "DONE"
			}
			continue
		}
		fence, info := m[1], m[2]
		var b textBlock
		var body []string
		for i++; i < len(lines); i++ {
			if c := fenceLine.FindStringSubmatch(lines[i]); c != nil && c[2] == "" &&
				c[1][0] == fence[0] && len(c[1]) >= len(fence) {
				b.closed = true
				break
			}
			body = append(body, lines[i])
		}
		b.info, b.body = info, strings.Join(body, "\n")
		if len(body) > 0 {
			b.body += "\n"
		}
		b.path = blockPath(info, prev)
		if b.path == "" && len(body) > 0 && !b.diff() {
			if h := headerLine.FindStringSubmatch(body[0]); h != nil {
				b.path, b.body = h[1], strings.Join(body[1:], "\n")+"\n"
			}
		}
		blocks = append(blocks, b)
		prev = ""
	}
	return blocks, done
}

// blockPath is the path an info string or the line before the block names.
func blockPath(info, prev string) string {
	if m := pathAttr.FindStringSubmatch(info); m != nil {
		return m[1]
	}
	words := strings.Fields(info)
	switch {
	case len(words) == 1 && strings.Contains(words[0], ":"):
		if _, p, _ := strings.Cut(words[0], ":"); looksLikePath(p) { // ```go:calc.go
			return p
		}
	case len(words) == 1 && looksLikePath(words[0]): // ```calc.go
		return words[0]
	case len(words) >= 2 && looksLikePath(words[1]): // ```go calc.go
		return words[1]
	}
	if m := pathLine.FindStringSubmatch(prev); m != nil && (m[1] != "" && pathChars.MatchString(m[2]) || looksLikePath(m[2])) {
		return m[2] // "File: Makefile" is a path; "Makefile" alone may be a word
	}
	return ""
}

// looksLikePath tells a file name from a language label or a word: it has an
// extension or a directory.
func looksLikePath(s string) bool {
	return pathChars.MatchString(s) && (strings.Contains(s, "/") || fileExt.MatchString(s))
}

// readRequests are the paths a reply asks for with READ lines outside its blocks: a
// file that holds such a line is not a request.
func readRequests(content string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n") {
		m := fenceLine.FindStringSubmatch(line)
		switch {
		case fence == "" && m != nil:
			fence = m[1]
		case fence != "" && m != nil && m[2] == "" && m[1][0] == fence[0] && len(m[1]) >= len(fence):
			fence = ""
		case fence == "":
			if r := readLine.FindStringSubmatch(line); r != nil {
				out = append(out, r[1])
			}
		}
	}
	return out
}

// maxReads bounds the files one reply may ask for with READ lines.
const maxReads = 5

// readFiles answers READ lines with the files' contents as read_file shows them
// (cut at its limit), at most maxReads of them.
func readFiles(ctx context.Context, ws *workspace.Workspace, paths []string) (string, error) {
	var b strings.Builder
	for i, p := range paths {
		if i == maxReads {
			fmt.Fprintf(&b, "Only %d files are shown per reply; ask again for the others.\n\n", maxReads)
			break
		}
		out, err := ws.Call(ctx, toolCall("read_file", map[string]any{"path": p}))
		if err != nil {
			return "", fmt.Errorf("read %s: %w", p, err)
		}
		f := fence.For(out)
		fmt.Fprintf(&b, "READ %s:\n%s\n%s\n%s\n\n", p, f, strings.TrimSuffix(out, "\n"), f)
	}
	return b.String(), nil
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}
