// Package commands recognises the bot's slash commands in issue and pull-request comments.
// Only a line that starts with /dixit, outside code blocks and quotes, is a command;
// everything else in a comment (or an issue body) is text the bot never acts on.
package commands

import (
	"strings"
	"unicode/utf8"
)

// Command is one recognised command.
type Command struct {
	Verb string   // lower-cased: status, stop, resume, … ; "help" for a bare /dixit
	Args []string // the remaining words on the line
	Line string   // the line as written, for replies
}

// Known verbs; a command with another verb is returned so the bot can answer with help.
var Known = map[string]string{
	"status": "show the run's state",
	"stop":   "stop the run (it can be resumed)",
	"resume": "resume a stopped or failed run",
	"vet":    "on a pull request: vet it against independent implementations (`--fresh`: new coders and testers)",
	"help":   "list the commands",
}

// maxScan bounds how much of a comment is read: a command is a short line near the top.
const (
	maxScan  = 64 << 10
	maxLine  = 512
	maxWords = 64 // a decision's reason is words too (/dixit drop t2 …)
)

// Parse returns the first command in a comment body.
func Parse(body string) (Command, bool) {
	if len(body) > maxScan {
		body = body[:maxScan]
	}
	if !utf8.ValidString(body) {
		body = strings.ToValidUTF8(body, "\uFFFD")
	}
	fence := ""
	for _, raw := range strings.Split(body, "\n") {
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if f := fenceOf(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(line, fence):
				fence = ""
			}
			continue
		}
		if fence != "" || strings.HasPrefix(line, ">") || len(line) > maxLine {
			continue
		}
		words := strings.Fields(line)
		if len(words) == 0 || !strings.EqualFold(words[0], "/dixit") {
			continue
		}
		if len(words) > maxWords {
			words = words[:maxWords]
		}
		c := Command{Verb: "help", Line: line}
		if len(words) > 1 {
			c.Verb = strings.ToLower(words[1])
			c.Args = words[2:]
		}
		return c, true
	}
	return Command{}, false
}

// fenceOf returns the code fence a line opens or closes, if any.
func fenceOf(line string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, f) {
			n := len(line) - len(strings.TrimLeft(line, f[:1]))
			return strings.Repeat(f[:1], n)
		}
	}
	return ""
}
