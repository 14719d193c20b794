package appsetup

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
)

func TestDeliveriesShowWhetherGitHubReachesTheServer(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	a := App{ID: 7, Key: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})}
	cases := []struct {
		name    string
		seed    []ghtest.Delivery
		wantErr string
		lines   []string
	}{
		{"none yet", nil, "GitHub has delivered nothing to this App yet", nil},
		{"newest failed", []ghtest.Delivery{
			{GUID: "g1", Event: "ping", StatusCode: 202, DeliveredAt: time.Now().Add(-time.Minute)},
			{GUID: "g2", Event: "issues", Action: "labeled", StatusCode: 401},
		}, `the newest delivery got "Invalid HTTP Response: 401" (status 401)`, []string{"issues.labeled", "ping"}},
		{"all well", []ghtest.Delivery{{GUID: "g3", Event: "issues", Action: "labeled", StatusCode: 202}}, "", []string{"issues.labeled               202 OK  g3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := ghtest.NewServer(t)
			for _, d := range c.seed {
				s.State.AddDelivery(d)
			}
			a.APIURL = s.URL
			ds, err := RecentDeliveries(t.Context(), a, 10, nil)
			require.NoError(t, err)
			var out bytes.Buffer
			err = PrintDeliveries(&out, ds)
			if c.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, c.wantErr)
			}
			for _, l := range c.lines {
				assert.Contains(t, out.String(), l)
			}
			assert.Contains(t, s.Requests()[0].Header.Get("Authorization"), "Bearer ", "asked as the App")
		})
	}
}
