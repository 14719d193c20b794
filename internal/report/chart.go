package report

import (
	"fmt"
	"strings"
)

// Mermaid is the rounds as a Mermaid xychart, which GitHub renders: bars for the vetted
// suite's size after each round, a line for the coders passing all of it.
func Mermaid(rounds []RoundFacts, coders int) string {
	var labels, suite, agreeing []string
	top := coders
	for _, r := range rounds {
		labels = append(labels, fmt.Sprintf("%d", r.Round))
		suite = append(suite, fmt.Sprintf("%d", r.SuiteAfter))
		agreeing = append(agreeing, fmt.Sprintf("%d", r.Agreeing))
		top = max(top, r.SuiteAfter)
	}
	var b strings.Builder
	b.WriteString("xychart-beta\n")
	b.WriteString("    title \"Vetted suite and agreeing coders, by round\"\n")
	fmt.Fprintf(&b, "    x-axis \"round\" [%s]\n", strings.Join(labels, ", "))
	fmt.Fprintf(&b, "    y-axis \"count\" 0 --> %d\n", top+1)
	fmt.Fprintf(&b, "    bar [%s]\n", strings.Join(suite, ", "))
	fmt.Fprintf(&b, "    line [%s]\n", strings.Join(agreeing, ", "))
	return b.String()
}
