package archtest

import (
	"fmt"
	"sort"
)

// allowlistFile is where the known violations live; every message that asks for an
// edit names it.
const allowlistFile = "internal/archtest/allowlist_test.go"

// measure is one thing a limit applies to, as found in the tree.
type measure struct {
	key    string // a package ("internal/apprun") or a function ("internal/apprun.vetHead")
	count  int
	detail string // where, or what: shown with a new violation
}

// limit is one rule with a ceiling and the known violations it tolerates.
type limit struct {
	max   int
	known map[string]int // key → the count tolerated today; lowered as code improves
	list  string         // the Go name of known in allowlistFile
	says  string         // what the count means, as a format: "imports %d internal packages"
	fix   string         // how to bring a new violation under max
}

// ratchet compares what was measured with the limit and its allowlist, and returns one
// message per problem, each saying what to change:
//   - over max and not listed: fix the code (the list is only for issue 19's violations);
//   - listed but grown: bring it back;
//   - listed and better, or gone: lower or remove the entry, so it cannot grow back.
func ratchet(found []measure, l limit) []string {
	var problems []string
	seen := map[string]bool{}
	for _, m := range found {
		seen[m.key] = true
		known, listed := l.known[m.key]
		switch {
		case !listed && m.count > l.max:
			problems = append(problems, fmt.Sprintf(
				"%s %s, more than %d (%s). %s. If it is one of the violations in %s under a new name, rename its entry in %s instead.",
				m.key, l.count(m.count), l.max, m.detail, l.fix, l.list, allowlistFile))
		case listed && m.count > known:
			problems = append(problems, fmt.Sprintf(
				"%s %s, more than the %d its entry in %s (%s) tolerates (%s). Bring it back to at most %d. %s.",
				m.key, l.count(m.count), known, l.list, allowlistFile, m.detail, known, l.fix))
		case listed && m.count <= l.max:
			problems = append(problems, fmt.Sprintf(
				"%s %s now, within the limit of %d: remove %q from %s in %s.",
				m.key, l.count(m.count), l.max, m.key, l.list, allowlistFile))
		case listed && m.count < known:
			problems = append(problems, fmt.Sprintf(
				"%s %s now, fewer than the %d in %s: lower its entry to %d in %s so it cannot grow back.",
				m.key, l.count(m.count), known, l.list, m.count, allowlistFile))
		}
	}
	var gone []string
	for key := range l.known {
		if !seen[key] {
			gone = append(gone, key)
		}
	}
	sort.Strings(gone)
	for _, key := range gone {
		problems = append(problems, fmt.Sprintf(
			"%s no longer exists: remove %q from %s in %s (if it was renamed and is still over the limit of %d, it is reported under its new name).",
			key, key, l.list, allowlistFile, l.max))
	}
	return problems
}

func (l limit) count(n int) string { return fmt.Sprintf(l.says, n) }
