// Package fence makes Markdown code fences that text cannot close: agents' prompts,
// reports and PR bodies all quote files written by someone else.
package fence

import "strings"

// For returns a backtick fence longer than any run of backticks in text (three at least).
func For(text string) string {
	return strings.Repeat("`", max(3, Longest(text)+1))
}

// Longest is the length of the longest run of backticks in text.
func Longest(text string) int {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
