package swesympy

import (
	"fmt"
	"strings"
)

// pool checks every coder and returns the ones panels are drawn from: labelled, and
// unless asked otherwise, not from a resolved-only source.
func (m matrix) pool() ([]wireCoder, error) {
	coders := *m.w.Coders
	names := map[string]bool{}
	for _, c := range coders {
		names[*c.Name] = true
	}
	unlabelled := m.unlabelled()
	var pool []wireCoder
	for i, c := range coders {
		if err := checkCoder(c, names); err != nil {
			return nil, fmt.Errorf("coders[%d] (%s)%w", i, *c.Name, err)
		}
		m.notes.Coders++
		where := m.id + " " + *c.Name
		if !unlabelled[*c.Name] {
			if disagree(c.PublishedLabel, *c.Resolved) {
				m.notes.PublishedDisagree = append(m.notes.PublishedDisagree,
					fmt.Sprintf("%s: published %s, resolved=%t here", where, c.PublishedLabel, *c.Resolved))
			}
			if *c.ResolvedOnlySource && !*c.Resolved {
				m.notes.ResolvedOnlyUnresolved = append(m.notes.ResolvedOnlyUnresolved, where)
			}
		}
		switch {
		case unlabelled[*c.Name]:
			m.notes.Unlabelled = append(m.notes.Unlabelled, where)
		case *c.ResolvedOnlySource && !m.opts.IncludeResolvedOnly:
			m.notes.ResolvedOnlyLeftOut++
		default:
			if *c.ResolvedOnlySource {
				m.notes.ResolvedOnlyKept++
			}
			pool = append(pool, c)
		}
	}
	return pool, nil
}

// checkCoder checks one coder's fields; the error reads after "coders[i] (name)".
func checkCoder(c wireCoder, names map[string]bool) error {
	switch {
	case c.Source == nil || *c.Source == "":
		return fmt.Errorf(".source missing or empty")
	case c.ResolvedOnlySource == nil:
		return fmt.Errorf(".resolved_only_source missing")
	case c.PatchSHA256 == nil || *c.PatchSHA256 == "":
		return fmt.Errorf(".patch_sha256 missing or empty")
	case c.Applies == nil:
		return fmt.Errorf(".applies missing")
	case c.Resolved == nil:
		return fmt.Errorf(".resolved missing")
	case c.DuplicateOf != "" && !names[c.DuplicateOf]:
		return fmt.Errorf(".duplicate_of names %s, which is no coder of the file", c.DuplicateOf)
	case !isArray(c.LabelFailures):
		return fmt.Errorf(".label_failures is not a list")
	case *c.Resolved && !*c.Applies:
		// SWE-bench: a patch that does not apply is unresolved. Both at once is a broken file.
		return fmt.Errorf(": resolved but does not apply")
	}
	switch strings.ToLower(c.PublishedLabel) {
	case "", "resolved", "unresolved", "pass", "fail":
		return nil
	}
	return fmt.Errorf(".published_label %q: want resolved, unresolved, pass, fail or empty", c.PublishedLabel)
}

// disagree says whether a published label contradicts the label computed here.
func disagree(published string, resolved bool) bool {
	switch strings.ToLower(published) {
	case "resolved", "pass":
		return !resolved
	case "unresolved", "fail":
		return resolved
	}
	return false
}
