// Package appsetuptest plays GitHub's side of the App manifest flow in tests, at the HTTP
// level: the web page that takes the manifest (with the fake API of ghtest behind it) and
// the person who presses the buttons.
package appsetuptest

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
	"github.com/dixit-bot/dixit/internal/webhook"
)

// Web plays GitHub's web pages in the manifest flow: it takes the manifest a user
// confirms, creates the App in the fake API, pings its webhook as GitHub does, and sends
// the browser back to redirect_url with the code. Its URL + "/" is the --github-url.
type Web struct {
	*httptest.Server
	API     *ghtest.Server
	NoPing  bool // GitHub's ping fails: record a 502 instead of sending it
	BadCode bool // redirect with a code GitHub never issued (expired)

	mu     sync.Mutex
	posted []Posted
}

// Posted is one manifest the person confirmed, and the page it was posted to.
type Posted struct {
	Manifest map[string]any
	Page     string // /settings/apps/new or /organizations/ORG/settings/apps/new
}

// NewWeb starts GitHub's web side in front of api.
func NewWeb(t *testing.T, api *ghtest.Server) *Web {
	f := &Web{API: api}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /settings/apps/new", func(w http.ResponseWriter, r *http.Request) { f.create(t, w, r, "octocat", false) })
	mux.HandleFunc("POST /organizations/{org}/settings/apps/new", func(w http.ResponseWriter, r *http.Request) {
		f.create(t, w, r, r.PathValue("org"), true)
	})
	f.Server = httptest.NewServer(mux)
	t.Cleanup(f.Close)
	return f
}

// Posted returns the manifests received, in order.
func (f *Web) Posted() []Posted {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Posted(nil), f.posted...)
}

func (f *Web) create(t *testing.T, w http.ResponseWriter, r *http.Request, owner string, org bool) {
	raw := r.PostFormValue("manifest")
	var m map[string]any
	if !assert.NoError(t, json.Unmarshal([]byte(raw), &m), "the form posts the manifest as JSON") {
		http.Error(w, "bad manifest", http.StatusUnprocessableEntity)
		return
	}
	f.mu.Lock()
	f.posted = append(f.posted, Posted{Manifest: m, Page: r.URL.Path})
	f.mu.Unlock()
	code := fmt.Sprintf("code-%d", time.Now().UnixNano())
	app, err := f.API.State.AddManifestCode(code, owner, org, []byte(raw))
	require.NoError(t, err)
	hook := m["hook_attributes"].(map[string]any)["url"].(string)
	status := 502
	if !f.NoPing {
		status = sendPing(hook, app.WebhookSecret)
	}
	f.API.State.AddDelivery(ghtest.Delivery{GUID: "ping-" + code, Event: "ping", StatusCode: status})
	if f.BadCode {
		code = "expired"
	}
	back, _ := url.Parse(m["redirect_url"].(string))
	back.RawQuery = url.Values{"code": {code}, "state": {r.URL.Query().Get("state")}}.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// sendPing sends GitHub's ping to a new App's webhook and returns the answer's status (0: none).
func sendPing(hook, secret string) int {
	req, err := webhook.SignedRequest(hook, []byte(secret), "ping", "d-1", []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`))
	if err != nil {
		return 0
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// App is the App the manifest flow created last.
func (f *Web) App() ghtest.ManifestApp {
	var last ghtest.ManifestApp
	for _, a := range f.API.State.ManifestApps() {
		if a.ID > last.ID {
			last = a
		}
	}
	return last
}

var manifestField = regexp.MustCompile(`<form action="([^"]+)" method="post">\s*<input type="hidden" name="manifest" value="([^"]+)">`)

// Register is the person: open the setup page at base, press the button, confirm on
// GitHub's page, and land on the result page, whose status and body it returns.
func Register(t *testing.T, base string) (status int, page string) {
	t.Helper()
	resp, err := http.Get(base + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := manifestField.FindStringSubmatch(string(body))
	require.NotNil(t, m, "the page has the form: %s", body)
	resp, err = http.PostForm(html.UnescapeString(m[1]), url.Values{"manifest": {html.UnescapeString(m[2])}})
	require.NoError(t, err)
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}
