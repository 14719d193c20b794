package report

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/fence"
	"github.com/dixit-bot/dixit/internal/orchestrate"
)

// Helpers that put untrusted text and figures into Markdown safely.

// details writes a collapsible block holding a file's text.
func details(b *strings.Builder, summary string, content []byte) {
	text := strings.TrimRight(strings.ToValidUTF8(string(content), "\uFFFD"), "\n")
	f := fence.For(text)
	fmt.Fprintf(b, "<details><summary>%s</summary>\n\n%s\n%s\n%s\n\n</details>\n\n", summary, f, text, f)
}

// code renders untrusted text as an inline code span that fits in a table cell: one
// line, at most 80 characters, pipes escaped, a delimiter longer than its backticks.
func code(s string) string { return codeSpan(s, 80) }

func codeSpan(s string, limit int) string {
	if s == "" {
		return ""
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\r", "⏎").Replace(s)
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit-1]) + "…"
	}
	s = strings.ReplaceAll(s, "|", `\|`)
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
