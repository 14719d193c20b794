package appsetup

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/dixit-bot/dixit/internal/webhook"
)

// probeHeader carries the nonce of the self-probe: GET on the public webhook URL.
const probeHeader = "X-Dixit-Setup-Probe"

// checkWebhook tells whether GitHub reaches the webhook: GitHub's ping must have arrived
// here signed with the new App's secret. When it did not, a request to the public URL
// tells whether it leads here at all, and GitHub's own record of the ping (GET
// /app/hook/deliveries) says what GitHub got. A relay that forwards only POSTs (smee)
// passes with the ping alone.
func (s *Setup) checkWebhook(ctx context.Context, c Credentials) error {
	wait := time.NewTimer(s.opts.PingWait)
	defer wait.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		signed, unsigned := s.pingsSeen(c.WebhookSecret)
		if signed {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
			continue
		case <-wait.C:
		}
		if unsigned > 0 {
			return fmt.Errorf("%d deliveries reached %s, none signed with the new App's webhook secret: another App sends to this URL, or a proxy changes the body", unsigned, s.ends.hook)
		}
		if err := s.selfProbe(ctx); err != nil {
			return fmt.Errorf("%s does not lead to this server (%v): make --public-url the address that reaches --listen %s (through your proxy, Ingress or smee channel)", s.ends.hook, err, s.opts.Listen)
		}
		return s.whyNoPing(ctx, c)
	}
}

func (s *Setup) selfProbe(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.ends.hook, nil)
	if err != nil {
		return err
	}
	req.Header.Set(probeHeader, s.probe)
	resp, err := s.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 256))
	if resp.StatusCode != http.StatusOK || subtle.ConstantTimeCompare(body, []byte(s.probe)) != 1 {
		return fmt.Errorf("another server answered, with %s", resp.Status)
	}
	return nil
}

// pingsSeen reports whether a delivery signed with secret arrived, and how many others did.
func (s *Setup) pingsSeen(secret string) (signed bool, others int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pings {
		want := webhook.Sign([]byte(secret), p.body)
		if subtle.ConstantTimeCompare([]byte(p.signature), []byte(want)) == 1 {
			return true, 0
		}
		others++
	}
	return false, others
}

// whyNoPing reads GitHub's record of the App's deliveries, as the App (JWT).
func (s *Setup) whyNoPing(ctx context.Context, c Credentials) error {
	advanced := s.settingsURL(c.Slug) + "/advanced"
	ds, err := RecentDeliveries(ctx, App{ID: c.AppID, Key: []byte(c.PEM), APIURL: s.ends.api}, 20, s.log)
	if err != nil {
		return fmt.Errorf("no ping arrived within %s, and the App's deliveries cannot be read: %w (see %s)", s.opts.PingWait, err, advanced)
	}
	for _, d := range ds {
		if d.GetEvent() == "ping" {
			return fmt.Errorf("GitHub's ping to %s got %q (status %d), per GET /app/hook/deliveries; fix the address or what stands in front of it, then use Redeliver on %s", s.ends.hook, d.GetStatus(), d.GetStatusCode(), advanced)
		}
	}
	return fmt.Errorf("GitHub has sent no ping to %s in %s: see the Recent Deliveries on %s", s.ends.hook, s.opts.PingWait, advanced)
}

// settingsURL is the App's settings page on GitHub.
func (s *Setup) settingsURL(slug string) string {
	if s.opts.Org != "" {
		return s.ends.web.JoinPath("organizations", s.opts.Org, "settings/apps", slug).String()
	}
	return s.ends.web.JoinPath("settings/apps", slug).String()
}

// permissionList is the manifest's permissions, "name: level", sorted by name.
func permissionList(manifest []byte) ([]string, error) {
	var m struct {
		Perms map[string]string `json:"default_permissions"`
	}
	if err := json.Unmarshal(manifest, &m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	out := make([]string, 0, len(m.Perms))
	for _, k := range sortedKeys(m.Perms) {
		out = append(out, k+": "+m.Perms[k])
	}
	return out, nil
}
