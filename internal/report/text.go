package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dixit-bot/dixit/internal/fence"
	"github.com/dixit-bot/dixit/internal/orchestrate"
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

// escapeLine makes untrusted text safe as Markdown on one line.
func escapeLine(s string) string {
	return codeSpan(strings.NewReplacer("\r", " ", "\n", " ").Replace(s), 300)
}

func testList(ids []string, s Summary) string {
	var parts []string
	for _, id := range ids {
		parts = append(parts, fmt.Sprintf("test %d (`%s`)", numberOf(s, id), id))
	}
	return orNone(strings.Join(parts, ", "))
}

func numberOf(s Summary, id string) int {
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

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
