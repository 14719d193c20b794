package report

import (
	"fmt"
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/dixit-bot/dixit/internal/fence"
	"github.com/dixit-bot/dixit/internal/orchestrate"
	"github.com/dixit-bot/dixit/internal/runfile"
)

// Helpers that put untrusted text and figures into Markdown safely.

// details writes a collapsible block holding a file's text, fenced as lang ("" when
// unknown) so that GitHub and readers know what it is.
func details(b *strings.Builder, summary, lang string, content []byte) {
	text := strings.TrimRight(strings.ToValidUTF8(string(content), "\uFFFD"), "\n")
	f := fence.For(text)
	fmt.Fprintf(b, "<details><summary>%s</summary>\n\n%s%s\n%s\n%s\n\n</details>\n\n", summary, f, lang, text, f)
}

// languages maps a test file's extension to the info string of its code blocks.
var languages = map[string]string{
	".go": "go", ".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".ts": "typescript", ".rb": "ruby", ".rs": "rust", ".java": "java", ".kt": "kotlin",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cs": "csharp", ".php": "php",
	".swift": "swift", ".sh": "sh", ".bash": "bash",
}

// Language is the code-block language of tests placed at path (the contract's path:),
// "" when its extension is not one we know.
func Language(path string) string {
	return languages[strings.ToLower(filepath.Ext(path))]
}

// cellChars is how much of an untrusted text a table cell shows.
const cellChars = 80

// code renders untrusted text as an inline code span that fits in a table cell: one
// line, at most cellChars characters, pipes escaped, a delimiter longer than its backticks.
func code(s string) string { return codeSpan(s, cellChars) }

// cellCut reports whether code cuts s short.
func cellCut(s string) bool { return length(oneLine(s)) > cellChars }

// oneLine is untrusted text as valid UTF-8 on one line, line breaks shown as ⏎.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\r", "⏎").Replace(strings.ToValidUTF8(s, "\uFFFD"))
}

func codeSpan(s string, limit int) string {
	if s == "" {
		return ""
	}
	s = oneLine(s)
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit-1]) + "…"
	}
	return inlineCode(strings.ReplaceAll(s, "|", `\|`))
}

// inlineCode puts one line of text in a code span whose delimiter is longer than any run
// of backticks in it; outside tables, pipes need no escaping.
func inlineCode(s string) string {
	f := strings.Repeat("`", fence.Longest(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return f + s + f
}

// Text that people wrote (decision reasons, who decided, names, the spec) and text from
// models outside code blocks is plain text in the report: it must show as written, make
// no element, link or emphasis, and on GitHub mention no one and close no issue. Code
// (tests, outputs) is shown exactly, inside a fence: GitHub reads no mention or closing
// keyword in code. People's words in a code block (the event log, the spec's comments)
// are made inert all the same.

// plain renders text as inline Markdown that shows as written, on one line: the
// characters Markdown and HTML act on escaped, and inert (below). It is for the middle of
// a line (a table cell, after a label), not for the start of one.
func plain(s string) string {
	s = flat(s)
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == '_' && intraword(s, i):
			// foo_bar is never emphasis: keep identifiers readable in report.md.
		case r < utf8.RuneSelf && strings.ContainsRune("\\`*_~[]<>&|", r):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return inert(b.String())
}

// intraword reports whether the byte at i sits between two letters or digits.
func intraword(s string, i int) bool {
	return i > 0 && i+1 < len(s) && isAlnum(s[i-1]) && isAlnum(s[i+1])
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// plainHTML renders text inside the report's own HTML (a collapsible block's summary),
// where Markdown is not read: HTML-escaped, and inert.
func plainHTML(s string) string {
	return inert(html.EscapeString(flat(s)))
}

// flat is text as valid UTF-8 on one line, line breaks turned into spaces.
func flat(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(strings.ToValidUTF8(s, "\uFFFD"))
}

// Inert is text a person wrote, made safe to quote in a GitHub comment or pull request
// on one line: it shows as written, mentions no one and closes no issue.
func Inert(s string) string { return plain(s) }

// zwsp is a zero-width space: invisible, and it breaks a word for GitHub's parsers.
const zwsp = "\u200b"

var (
	// mention is what GitHub reads as @user or @org/team.
	mention = regexp.MustCompile(`@([A-Za-z0-9])`)
	// closingKeyword is a word with which a pull request's body closes an issue
	// (docs.github.com, "Linking a pull request to an issue": close, closes, closed, fix,
	// fixes, fixed, resolve, resolves, resolved, in any case). Broken whatever follows
	// it, so no form of reference (#2, o/r#3, a URL) can complete it.
	closingKeyword = regexp.MustCompile(`(?i)\b(c)(lose[sd]?)\b|\b(f)(ix(?:e[sd])?)\b|\b(r)(esolve[sd]?)\b`)
)

// inert keeps GitHub from acting on text: a zero-width space after every @ that starts
// a mention, and inside every closing keyword, so "@team" notifies no one and
// "Closes #2" closes nothing, while both read the same.
func inert(s string) string {
	s = mention.ReplaceAllString(s, "@"+zwsp+"$1")
	return closingKeyword.ReplaceAllString(s, "$1$3$5"+zwsp+"$2$4$6")
}

// escapeLine makes untrusted text safe as Markdown on one line.
func escapeLine(s string) string {
	return codeSpan(strings.NewReplacer("\r", " ", "\n", " ").Replace(s), 300)
}

func testList(ids []string, s runfile.Summary) string {
	var parts []string
	for _, id := range ids {
		parts = append(parts, fmt.Sprintf("test %d (`%s`)", numberOf(s, id), id))
	}
	return orNone(strings.Join(parts, ", "))
}

func numberOf(s runfile.Summary, id string) int {
	for _, v := range s.Vetted {
		if v.ID == id {
			return v.Number
		}
	}
	return 0
}

// vector renders a suite run as one mark per test, in suite order.
func vector(cells []orchestrate.Cell) string {
	var b strings.Builder
	for _, c := range cells {
		if c.Outcome == "pass" {
			b.WriteString("ACC ")
		} else {
			b.WriteString("WA ")
		}
	}
	return strings.TrimSpace(b.String())
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func seconds(s float64) string {
	if s >= 120 {
		return fmt.Sprintf("%.1f min", s/60)
	}
	return fmt.Sprintf("%.1f s", s)
}
