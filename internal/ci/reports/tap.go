package reports

import (
	"strconv"
	"strings"
)

// TAP reads a TAP report as node's tap reporter writes it: "ok 1 - name" and
// "not ok 2 - name" test points, "# SKIP" and "# TODO" directives, subtests indented
// under their parent, YAML diagnostics between "---" and "...", and a plan "1..N". The
// report is complete when the top-level plan counts as many points as there are.
func TAP(data []byte) Run {
	var r Run
	plan, points, yaml := -1, 0, false
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimRight(raw, " \r")
		text := strings.TrimLeft(line, " ")
		top := len(text) == len(line)
		switch {
		case yaml:
			yaml = text != "..."
		case text == "---":
			yaml = true
		case strings.HasPrefix(text, "Bail out!"):
			r.Tests = append(r.Tests, Result{Name: "the whole run (" + text + ")", Outcome: "fail"})
		case top && strings.HasPrefix(text, "1.."):
			count, _, _ := strings.Cut(text[3:], " ")
			if n, err := strconv.Atoi(count); err == nil {
				plan = n
			}
		default:
			if t, ok := TAPPoint(text); ok {
				r.Tests = append(r.Tests, t)
				if top {
					points++
				}
			}
		}
	}
	r.Complete = plan >= 0 && plan == points
	return r
}

// TAPPoint reads "ok 3 - name # SKIP why" or "not ok 4 - name".
func TAPPoint(text string) (Result, bool) {
	outcome := "pass"
	rest, ok := strings.CutPrefix(text, "ok")
	if !ok {
		if rest, ok = strings.CutPrefix(text, "not ok"); !ok {
			return Result{}, false
		}
		outcome = "fail"
	}
	if rest != "" && rest[0] != ' ' {
		return Result{}, false // "okay", not a test point
	}
	rest = strings.TrimLeft(rest, " ")
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i != 0 {
		if i < 0 {
			i = len(rest)
		}
		rest = rest[i:] // the point's number
	}
	rest = strings.TrimPrefix(strings.TrimLeft(rest, " "), "- ")
	// Names escape "#" as "\#", so " # " starts the directive.
	name, directive, _ := strings.Cut(rest, " # ")
	d := strings.ToUpper(strings.TrimSpace(directive))
	if outcome == "pass" && (strings.HasPrefix(d, "SKIP") || strings.HasPrefix(d, "TODO")) {
		outcome = "skip"
	}
	name = strings.NewReplacer(`\#`, "#", `\\`, `\`).Replace(strings.TrimSpace(name))
	return Result{Name: name, Outcome: outcome}, true
}
