package deploy

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slug is GitHub's anchor for a Markdown heading.
func slug(heading string) string {
	s := strings.ToLower(strings.TrimSpace(heading))
	s = regexp.MustCompile("[^a-z0-9 _-]").ReplaceAllString(s, "")
	return strings.ReplaceAll(s, " ", "-")
}

// docs/install.md is followed end to end by people: its links within the page land on a
// heading, the flags it shows for bot setup exist, and no line promises what is done.
func TestInstallDocsLinksAndFlagsAreReal(t *testing.T) {
	data, err := os.ReadFile("../docs/install.md")
	require.NoError(t, err)
	doc := string(data)
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllStringSubmatch(doc, -1) {
		anchors[slug(m[1])] = true
	}
	for _, m := range regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(doc, -1) {
		assert.True(t, anchors[m[1]], "link #%s lands on a heading", m[1])
	}

	setup, err := os.ReadFile("../cmd/bot/setup.go")
	require.NoError(t, err)
	flags := map[string]bool{}
	for _, m := range regexp.MustCompile(`Var[P]?\(&[^,]+, "([a-z-]+)"`).FindAllStringSubmatch(string(setup), -1) {
		flags[m[1]] = true
	}
	require.Contains(t, flags, "public-url")
	for _, line := range strings.Split(doc, "\n") {
		if !strings.Contains(line, "bot setup") && !strings.HasPrefix(line, "| `--") {
			continue
		}
		for _, m := range regexp.MustCompile(`--([a-z][a-z-]+)`).FindAllStringSubmatch(line, -1) {
			assert.True(t, flags[m[1]] || m[1] == "config", "docs/install.md shows bot setup --%s, which it does not take: %s", m[1], line)
		}
	}
	for _, stale := range []string{"Still to come", "issue 6)", "unused by the bot"} {
		assert.NotContains(t, doc, stale)
	}
	assert.Contains(t, doc, "deploy/tryout-repo.sh", "the try-out repository is made by a command")
	assert.Contains(t, doc, "/app/hook/deliveries")
	assert.Contains(t, doc, "## Troubleshooting")
}
