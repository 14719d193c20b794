package archtest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The checks on a small module in testdata/fixture, where the answers are known, so the
// tests on the real tree cannot pass by seeing nothing.

func fixture(t *testing.T) *module {
	t.Helper()
	m, err := loadModule("testdata/fixture")
	require.NoError(t, err)
	return m
}

func TestLoadModuleFindsWhatTheGoCommandBuilds(t *testing.T) {
	m := fixture(t)
	var rels []string
	for _, p := range m.sortedPkgs() {
		rels = append(rels, p.rel)
	}
	// Not nested/deep (another module), internal/hub/testdata/x, _scratch.
	assert.Equal(t, []string{"cmd/tool", "internal/hub", "internal/mid", "internal/p1", "internal/p2",
		"internal/p3", "internal/proto", "internal/sig"}, rels)
	// Neither the test file's nor the //go:build ignore file's imports.
	assert.ElementsMatch(t, []string{"fmt", "example.com/fix/internal/p1", "example.com/fix/internal/p2",
		"example.com/fix/internal/p3", "example.com/other/internal/x"}, m.pkgs["internal/hub"].imports)
}

func TestFanOutCountsOnlyThisModulesInternalPackages(t *testing.T) {
	counts := map[string]int{}
	for _, f := range fanOut(fixture(t)) {
		counts[f.key] = f.count
	}
	assert.Equal(t, 3, counts["internal/hub"], "p1, p2, p3; not fmt, not another module's internal package")
	assert.Equal(t, 1, counts["cmd/tool"])
	assert.Equal(t, 1, counts["internal/mid"], "go-github is not ours")
}

func TestParametersAreCountedOneByOne(t *testing.T) {
	counts := map[string]int{}
	where := map[string]string{}
	for _, f := range longSignatures(fixture(t)) {
		counts[f.key] = f.count
		where[f.key] = f.detail
	}
	assert.Equal(t, map[string]int{
		"cmd/tool.main":        0,
		"internal/p1.F":        0,
		"internal/p2.F":        0,
		"internal/p3.F":        0,
		"internal/sig.Wide":    4, // (a, b, c int, d string)
		"internal/sig.Unnamed": 2,
		"internal/sig.T.M":     3, // the receiver does not count; a variadic is one
		"internal/sig.G.N":     1,
	}, counts, "no test function, no ignored file, no literal, nothing from the nested module")
	assert.Equal(t, "internal/sig/sig.go:3", where["internal/sig.Wide"])
}

func TestANeverRuleNamesTheChainThatBreaksIt(t *testing.T) {
	m := fixture(t)
	rule := neverRule{name: "no GitHub here", from: []string{"internal/proto"},
		never: []string{"github.com/google/go-github"}, instead: "use a port"}
	problems, matched := checkNever(m, rule)
	assert.Equal(t, 1, matched)
	require.Len(t, problems, 1)
	assert.Equal(t, "internal/proto must not import github.com/google/go-github/v60/github (no GitHub here), and does: "+
		"internal/proto → internal/mid → github.com/google/go-github/v60/github. Instead, use a port.", problems[0])

	// The first forbidden package on the way is the one reported, not what lies behind it.
	rule.never = []string{"internal/mid", "github.com/google/go-github"}
	problems, _ = checkNever(m, rule)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0], "does: internal/proto → internal/mid.")

	// The road the rule leaves open is not followed; an exact rule forbids only what it names.
	rule.never, rule.through = []string{"github.com/google/go-github"}, []string{"internal/mid"}
	problems, _ = checkNever(m, rule)
	assert.Empty(t, problems, "proto reaches go-github only through mid, the open road")
	problems, matched = checkNever(m, neverRule{name: "no p here", from: []string{"internal"}, but: []string{"internal/mid", "internal/proto"},
		never: []string{"internal/p"}, exact: true, instead: "no"})
	assert.Empty(t, problems, "internal/p1 is not internal/p")
	assert.Equal(t, 5, matched, "every package under internal but mid and proto")
	problems, _ = checkNever(m, neverRule{name: "no p1 here", from: []string{"internal/hub"}, never: []string{"internal/p1"}, exact: true, instead: "no"})
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0], "does: internal/hub → internal/p1.")

	_, matched = checkNever(m, neverRule{from: []string{"internal/gone"}})
	assert.Zero(t, matched, "a rule about a package that moved away applies to nothing, which TestNeverImports reports")
}

func TestTheAllowlistOnlyShrinks(t *testing.T) {
	l := limit{max: 6, known: map[string]int{"p.vetHead": 12}, list: "knownLongSignatures",
		says: "takes %d parameters", fix: "Group them"}
	cases := []struct {
		name  string
		found []measure
		want  []string // substrings of the one message expected; none for no message
	}{
		{"as listed", []measure{{key: "p.vetHead", count: 12}}, nil},
		{"unlisted within the limit", []measure{{key: "p.vetHead", count: 12}, {key: "p.f", count: 6}}, nil},
		{"a new violation", []measure{{key: "p.vetHead", count: 12}, {key: "p.g", count: 7, detail: "p/g.go:3"}},
			[]string{"p.g takes 7 parameters, more than 6 (p/g.go:3). Group them.", "rename its entry"}},
		{"grown", []measure{{key: "p.vetHead", count: 13, detail: "p/vet.go:9"}},
			[]string{"p.vetHead takes 13 parameters, more than the 12 its entry in knownLongSignatures", "Bring it back to at most 12. Group them."}},
		{"better but still over", []measure{{key: "p.vetHead", count: 9}},
			[]string{"p.vetHead takes 9 parameters now, fewer than the 12", "lower its entry to 9 in " + allowlistFile}},
		{"fixed", []measure{{key: "p.vetHead", count: 6}},
			[]string{`remove "p.vetHead" from knownLongSignatures in ` + allowlistFile}},
		{"gone", nil,
			[]string{`p.vetHead no longer exists: remove "p.vetHead" from knownLongSignatures`, "still over the limit of 6"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			problems := ratchet(c.found, l)
			if c.want == nil {
				assert.Empty(t, problems)
				return
			}
			require.Len(t, problems, 1)
			for _, w := range c.want {
				assert.True(t, strings.Contains(problems[0], w), "%q\nwants %q", problems[0], w)
			}
		})
	}
}

func TestTheLayoutTableMustNameEveryPackageOnce(t *testing.T) {
	m := fixture(t)
	table := "| package | job |\n|---|---|\n"
	for _, p := range m.sortedPkgs() {
		table += "| `" + p.rel + "` | a job |\n"
	}
	readme := "# Fixture\n\n## Layout\n\n" + table + "\n## Next\n\n| `internal/later` | not the layout table |\n"
	assert.Empty(t, layoutProblems(m, readme))

	moved := strings.Replace(readme, "| `internal/mid` | a job |\n", "| `internal/middle` | a job |\n| `internal/p1` | again |\n", 1)
	assert.Equal(t, []string{
		"README.md's layout table lists internal/middle, which is not a package of the module any more: remove its row, or change it to where the package went",
		"README.md's layout table lists internal/p1 twice: keep one row",
		"README.md's layout table (## Layout) has no row for internal/mid: add \"| `internal/mid` | its job in one line |\" (its doc comment: \"\")",
	}, layoutProblems(m, moved))

	assert.Len(t, layoutProblems(m, "# No layout here\n"), 1)
}

func TestTheFloorsTableIsReadAndHeld(t *testing.T) {
	m := fixture(t)
	doc := "# Architecture\n\n## The floors\n\nWords.\n\n" +
		"| floor | packages | may import |\n|---|---|---|\n" +
		"| top | `cmd/tool` (the binary, with `words`, in parentheses) | every floor below |\n" +
		"| middle | `hub`, `proto` (the protocol) | its own floor, `p1` (only it) and bottom |\n" +
		"| bottom | `mid`, `p1`, `p2`, `p3`, `sig` | its own floor |\n" +
		"\n## Next\n\n| floor | packages | may import |\n"
	floors, problems := parseFloors(doc)
	require.Empty(t, problems)
	require.Len(t, floors, 3)
	assert.Equal(t, floor{name: "middle", pkgs: []string{"internal/hub", "internal/proto"},
		floors: []string{"middle", "bottom"}, allowed: []string{"internal/p1"}}, floors[1])
	assert.True(t, floors[0].anyBelow)
	assert.Empty(t, floorProblems(m, floors))

	// mid → p1 on its own floor is not allowed by "nothing of ours"; sig is on no floor;
	// gone is no package; p2 twice.
	moved := strings.Replace(doc, "`mid`, `p1`, `p2`, `p3`, `sig` | its own floor", "`mid`, `p1`, `p2`, `p3`, `gone`, `p2` | nothing of ours", 1)
	floors, problems = parseFloors(moved)
	require.Empty(t, problems)
	assert.Equal(t, []string{
		`docs/architecture.md's floors table lists internal/gone on "bottom", which is not a package of the module: remove it, or write where the package went`,
		`docs/architecture.md's floors table lists internal/p2 on "bottom" and on "bottom": keep it on one floor`,
		"internal/mid (bottom) imports internal/p1 (bottom), which its floor may not (it may import: nothing of ours). Move the code that needs it, or, if the floors are wrong, change the table in docs/architecture.md",
		`internal/sig is on no floor: add ` + "`sig`" + ` to the row of its floor in docs/architecture.md's floors table (its doc comment: "")`,
	}, floorProblems(m, floors))

	_, problems = parseFloors(strings.Replace(doc, "and bottom", "and the basement", 1))
	assert.Equal(t, []string{`docs/architecture.md's floors table, floor "middle" may import "the basement", which is no floor's name: ` +
		`write floors by their name in the first column, "its own floor", "every floor below", "nothing of ours" or a package in backticks`}, problems)
	_, problems = parseFloors(strings.Replace(doc, "`hub`, `proto`", "`hub` and `proto`", 1))
	assert.Len(t, problems, 1)
	_, problems = parseFloors("# No floors\n")
	assert.Len(t, problems, 1)
}
