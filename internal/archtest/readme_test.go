package archtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeLayoutListsEveryPackage: the README's layout table is where a newcomer looks
// for the package that does a job; a package missing from it, or a row for a package that
// moved, sends them the wrong way.
func TestReadmeLayoutListsEveryPackage(t *testing.T) {
	m := repoModule(t)
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	for _, p := range layoutProblems(m, string(readme)) {
		t.Error(p)
	}
}

// layoutProblems compares the packages of m with the rows of the table under
// "## Layout" in readme, whose first cell is a package path in backticks.
func layoutProblems(m *module, readme string) []string {
	rows, ok := layoutRows(readme)
	if !ok {
		return []string{`README.md has no "## Layout" section with a table of packages: add one, a row per package ("| ` + "`internal/x`" + ` | its job |")`}
	}
	var problems []string
	listed := map[string]bool{}
	for _, r := range rows {
		if listed[r] {
			problems = append(problems, fmt.Sprintf("README.md's layout table lists %s twice: keep one row", r))
		}
		listed[r] = true
		if _, ok := m.pkgs[r]; !ok {
			problems = append(problems, fmt.Sprintf("README.md's layout table lists %s, which is not a package of the module any more: remove its row, or change it to where the package went", r))
		}
	}
	for _, p := range m.sortedPkgs() {
		if !listed[p.rel] {
			problems = append(problems, fmt.Sprintf("README.md's layout table (## Layout) has no row for %s: add \"| `%s` | its job in one line |\" (its doc comment: %q)", p.rel, p.rel, p.doc))
		}
	}
	return problems
}

// layoutRows returns the package of each row of the first table under "## Layout".
func layoutRows(readme string) ([]string, bool) {
	_, section, ok := strings.Cut(readme, "\n## Layout\n")
	if !ok {
		return nil, false
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var rows []string
	for _, line := range strings.Split(section, "\n") {
		rest, ok := strings.CutPrefix(line, "| `")
		if !ok {
			continue
		}
		if name, _, ok := strings.Cut(rest, "`"); ok {
			rows = append(rows, name)
		}
	}
	return rows, len(rows) > 0
}
