package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/cli"
	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
)

func TestSetupSaysWhichFlagToChange(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"setup"}, cli.ExitUsage, "--public-url is required"},
		{[]string{"setup", "--public-url", "dixit.example.com"}, cli.ExitUsage, `--public-url "dixit.example.com": must be an address such as https://`},
		{[]string{"setup", "--public-url", "https://d.example.com", "--org", "a b"}, cli.ExitUsage, `--org "a b"`},
		{[]string{"setup", "--public-url", "https://d.example.com", "--listen", "256.0.0.1:1"}, cli.ExitError, "setup: listen on --listen 256.0.0.1:1"},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := cli.ExitCode(run(context.Background(), c.args, &out, &errOut), &errOut)
		assert.Equal(t, c.code, code, "%v", c.args)
		assert.Contains(t, errOut.String(), c.want)
	}
}

// bot setup deliveries reads the App as bot serve does and shows GitHub's record.
func TestSetupDeliveriesShowsWhatGitHubSent(t *testing.T) {
	gh := ghtest.NewServer(t)
	gh.State.AddDelivery(ghtest.Delivery{GUID: "g1", Event: "issues", Action: "labeled", StatusCode: 401})
	dir := t.TempDir()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	keyFile := filepath.Join(dir, "app.pem")
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600))
	conf := filepath.Join(dir, "serve.yml")
	require.NoError(t, os.WriteFile(conf, []byte("github:\n  app_id: 7\n  private_key_file: "+keyFile+"\n  base_url: "+gh.URL+"\n"), 0o600))
	t.Setenv("DIXIT_WEBHOOK_SECRET", "0123456789abcdef0123")
	var out, errOut bytes.Buffer
	code := cli.ExitCode(run(context.Background(), []string{"setup", "deliveries", "--config", conf}, &out, &errOut), &errOut)
	assert.Equal(t, cli.ExitError, code)
	assert.Contains(t, out.String(), "issues.labeled")
	assert.Contains(t, errOut.String(), `the newest delivery got "Invalid HTTP Response: 401"`)
}
