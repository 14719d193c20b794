package ghtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// ManifestApp is an App the fake created from a manifest (the GitHub App manifest flow):
// what a user confirmed on GitHub's page, and the credentials the code exchanges for.
type ManifestApp struct {
	ID            int64
	Slug          string
	Owner         string // the account that owns the App
	Org           bool   // Owner is an organization
	WebhookSecret string
	PEM           string         // the App's private key, PKCS#1
	Manifest      map[string]any // as posted to /settings/apps/new
	Converted     bool           // the code was exchanged (codes work once)
}

func (s *Server) manifestRoutes() {
	s.handle("POST app-manifests/{code}/conversions", s.convertManifest)
}

var slugRE = regexp.MustCompile(`[^a-z0-9]+`)

// AddManifestCode plays the user confirming manifest (its JSON) on GitHub's page for
// owner: GitHub creates the App and redirects to the manifest's redirect_url with code,
// which POST /app-manifests/{code}/conversions exchanges once.
func (st *State) AddManifestCode(code, owner string, org bool, manifest []byte) (ManifestApp, error) {
	var m map[string]any
	if err := json.Unmarshal(manifest, &m); err != nil {
		return ManifestApp{}, fmt.Errorf("ghtest: manifest is not JSON: %w", err)
	}
	name, _ := m["name"].(string)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return ManifestApp{}, fmt.Errorf("ghtest: app key: %w", err)
	}
	secret := make([]byte, 20)
	_, _ = rand.Read(secret)
	st.mu.Lock()
	defer st.mu.Unlock()
	app := &ManifestApp{
		ID: st.id(), Slug: strings.Trim(slugRE.ReplaceAllString(strings.ToLower(name), "-"), "-"),
		Owner: owner, Org: org, WebhookSecret: hex.EncodeToString(secret), Manifest: m,
		PEM: string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})),
	}
	if st.manifestCodes == nil {
		st.manifestCodes = map[string]*ManifestApp{}
	}
	st.manifestCodes[code] = app
	return *app, nil
}

// ManifestApps returns the Apps created from manifests, by code.
func (st *State) ManifestApps() map[string]ManifestApp {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := map[string]ManifestApp{}
	for code, a := range st.manifestCodes {
		out[code] = *a
	}
	return out
}

// convertManifest answers the code once, with the App and its credentials; GitHub asks
// no credentials for it (the code is one). An unknown or used code is a 404.
func (s *Server) convertManifest(w http.ResponseWriter, r *http.Request) {
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	app, ok := st.manifestCodes[r.PathValue("code")]
	if !ok || app.Converted {
		notFound(w)
		return
	}
	app.Converted = true
	out := st.example("integration-from-manifest")
	out["id"], out["slug"], out["name"] = app.ID, app.Slug, app.Manifest["name"]
	out["description"], _ = app.Manifest["description"].(string)
	out["external_url"], _ = app.Manifest["url"].(string)
	out["html_url"] = "https://github.com/apps/" + app.Slug
	owner := out["owner"].(obj)
	owner["login"], owner["type"] = app.Owner, "User"
	if app.Org {
		owner["type"] = "Organization"
	}
	if p, ok := app.Manifest["default_permissions"].(map[string]any); ok {
		out["permissions"] = p
	}
	if e, ok := app.Manifest["default_events"].([]any); ok {
		out["events"] = e
	}
	out["webhook_secret"], out["pem"] = app.WebhookSecret, app.PEM
	out["client_id"] = fmt.Sprintf("Iv1.fake%d", app.ID)
	writeJSON(w, http.StatusCreated, out)
}
