package report

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/runfile"
	"github.com/dixit-bot/dixit/internal/words"
)

// The spec's HTML comments: GitHub shows them to no one reading the issue, so they are
// cut from the spec before any agent reads it (agent.VisibleSpec), and the report says
// so and shows what they held.

// specCommentsLine says under the outcome how many comments were cut.
func specCommentsLine(s runfile.Summary) string {
	switch n := len(s.SpecComments); n {
	case 0:
		return ""
	case 1:
		return "**1 HTML comment was removed from the spec before the agents saw it**: GitHub does not show it to people reading the issue. Its text is under “Hidden in the spec”.\n\n"
	default:
		return fmt.Sprintf("**%d HTML comments were removed from the spec before the agents saw it**: GitHub does not show them to people reading the issue. Their text is under “Hidden in the spec”.\n\n", n)
	}
}

// instructionsLine names the repository's agent instruction files the agents were
// given with the spec, and those left out.
func instructionsLine(s runfile.Summary) string {
	if len(s.Instructions) == 0 && len(s.InstructionsSkipped) == 0 {
		return ""
	}
	var b strings.Builder
	if len(s.Instructions) > 0 {
		names := make([]string, len(s.Instructions))
		for i, f := range s.Instructions {
			names[i] = inlineCode(f)
		}
		fmt.Fprintf(&b, "The agents were given the repository's instructions for coding agents, from the base: %s (docs/agents.md).", strings.Join(names, ", "))
	}
	if len(s.InstructionsSkipped) > 0 {
		names := make([]string, len(s.InstructionsSkipped))
		for i, f := range s.InstructionsSkipped {
			names[i] = plain(f)
		}
		fmt.Fprintf(&b, " Left out: %s.", strings.Join(names, "; "))
	}
	return strings.TrimSpace(b.String()) + "\n\n"
}

// specSection shows each comment cut from the spec in a code block, where its text shows
// as written; inert besides, as someone meant it to be hidden. The short form says where
// they can be read (more).
func specSection(s runfile.Summary, text bool, more string) string {
	if len(s.SpecComments) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Hidden in the spec\n\n")
	if !text {
		fmt.Fprintf(&b, "The text of the HTML comments removed from the spec is in %s.\n\n", more)
		return b.String()
	}
	b.WriteString("GitHub renders HTML comments as nothing. These were in the spec, and no agent read them.\n\n")
	for i, c := range s.SpecComments {
		details(&b, fmt.Sprintf("comment %d (%s)", i+1, words.Count(length(c), "character", "characters")), "html", []byte(inert(c)))
	}
	return b.String()
}
