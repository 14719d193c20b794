package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/report/browsertest"
)

// TestMarksReadInABrowser shows the HTML report in headless Chromium with whatever
// fonts the machine has (Debian's DejaVu and Liberation in CI, no emoji font): the pass
// and fail cells of the verdict matrix are painted in two different colours, each
// beside its word, so they do not look alike as the emoji boxes did.
func TestMarksReadInABrowser(t *testing.T) {
	dir := t.TempDir()
	res := sampleResult()
	s := NewSummary("demo-1", res)
	paths, err := Write(dir, s, res)
	require.NoError(t, err)
	img := browsertest.Screenshot(t, paths.HTML, 1000, 3000)

	pass := browsertest.Count(img, 0xda, 0xfb, 0xe1, 2) // td.pass background
	fail := browsertest.Count(img, 0xff, 0xeb, 0xe9, 2) // td.fail background
	t.Logf("pixels painted as a pass cell: %d, as a fail cell: %d", pass, fail)
	assert.Greater(t, pass, 500, "amber's pass cell is painted as a pass")
	assert.Greater(t, fail, 500, "basil's build_failed cell is painted as a failure")
}
