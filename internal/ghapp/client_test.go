package ghapp

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"testing"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newCreator(t *testing.T, srv *ghtest.Server) *ClientCreator {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	cc, err := NewClientCreator(Config{AppID: 99, PrivateKey: pemKey, BaseURL: srv.URL, UserAgent: "dixit/0.1"})
	require.NoError(t, err)
	return cc
}

func TestInstallationClientFetchesTokenFromFake(t *testing.T) {
	srv := ghtest.NewServer(t)
	srv.State.AddIssue("o", "r", 3, "t", "b")
	cc := newCreator(t, srv)

	gc, err := cc.InstallationClient(42)
	require.NoError(t, err)
	again, err := cc.InstallationClient(42)
	require.NoError(t, err)
	assert.Same(t, gc, again, "installation clients are cached")
	other, err := cc.InstallationClient(43)
	require.NoError(t, err)
	assert.NotSame(t, gc, other)

	_, _, err = gc.Issues.Get(t.Context(), "o", "r", 3)
	require.NoError(t, err)
	_, _, err = gc.Issues.Get(t.Context(), "o", "r", 3)
	require.NoError(t, err)

	toks := srv.State.Tokens()
	require.Len(t, toks, 1, "token reused until it nears expiry")
	assert.EqualValues(t, 42, toks[0].InstallationID)
	var issueReqs []ghtest.Request
	for _, r := range srv.Requests() {
		if r.Path == "repos/o/r/issues/3" {
			issueReqs = append(issueReqs, r)
		}
	}
	require.Len(t, issueReqs, 2)
	assert.Equal(t, "token "+toks[0].Token, issueReqs[0].Header.Get("Authorization"))
	assert.Equal(t, "dixit/0.1", issueReqs[0].Header.Get("User-Agent"))
	assert.EqualValues(t, 1, cc.Stats().CacheHits)

	token, err := cc.InstallationToken(t.Context(), 42)
	require.NoError(t, err)
	assert.Equal(t, toks[0].Token, token, "git gets the same token the API client uses")
	assert.Len(t, srv.State.Tokens(), 1)
}

func TestAppClientUsesJWT(t *testing.T) {
	srv := ghtest.NewServer(t)
	cc := newCreator(t, srv)
	gc, err := cc.AppClient()
	require.NoError(t, err)
	_, resp, err := gc.Apps.Get(t.Context(), "")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	assert.Regexp(t, `^Bearer [\w-]+\.[\w-]+\.[\w-]+$`, reqs[0].Header.Get("Authorization"))
}

func TestNewClientCreatorErrors(t *testing.T) {
	_, err := NewClientCreator(Config{})
	require.ErrorContains(t, err, "app id")
	_, err = NewClientCreator(Config{AppID: 1, PrivateKey: []byte("nope")})
	require.ErrorContains(t, err, "private key")
}
