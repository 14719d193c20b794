package ghtest

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestManifestCodeConvertsOnceToTheAppAndItsCredentials(t *testing.T) {
	s := NewServer(t)
	manifest := `{"name":"Dixit Acme","url":"https://example.com/dixit","hook_attributes":{"url":"https://h/webhook"},
		"default_permissions":{"issues":"write","metadata":"read"},"default_events":["issues"]}`
	want, err := s.State.AddManifestCode("c0de", "acme", true, []byte(manifest))
	require.NoError(t, err)
	c := s.Client(nil)

	cfg, _, err := c.Apps.CompleteAppManifest(t.Context(), "c0de")
	require.NoError(t, err, "the response matches GitHub's description (checked by the fake)")
	assert.Equal(t, want.ID, cfg.GetID())
	assert.Equal(t, "dixit-acme", cfg.GetSlug())
	assert.Equal(t, "acme", cfg.GetOwner().GetLogin())
	assert.Equal(t, "Organization", cfg.GetOwner().GetType())
	assert.Equal(t, want.WebhookSecret, cfg.GetWebhookSecret())
	assert.Equal(t, want.PEM, cfg.GetPEM())
	assert.Contains(t, cfg.GetPEM(), "BEGIN RSA PRIVATE KEY")
	assert.Equal(t, "https://github.com/apps/dixit-acme", cfg.GetHTMLURL())
	assert.True(t, s.State.ManifestApps()["c0de"].Converted)

	_, _, err = c.Apps.CompleteAppManifest(t.Context(), "c0de")
	assert.Equal(t, http.StatusNotFound, status(t, err), "a code works once")
	_, _, err = c.Apps.CompleteAppManifest(t.Context(), "never-issued")
	assert.Equal(t, http.StatusNotFound, status(t, err))
}
