// Package appsetup registers the Dixit GitHub App through GitHub's manifest flow, the way
// probot does: a page posts the manifest to GitHub, GitHub sends the browser back with a
// one-time code, and the code is exchanged for the App's id, private key and webhook secret.
package appsetup

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Features are the opt-in blocks of deploy/app-options.yml, by name.
type Features []string

// The opt-in features bot setup knows; their names are the keys of app-options.yml.
const (
	WorkshopCreate = "workshop-create"
	ActionsJudge   = "actions-judge"
)

// ManifestInput is what the manifest is built from.
type ManifestInput struct {
	Base     []byte   // deploy/app.yml
	Options  []byte   // deploy/app-options.yml
	Features Features // blocks of Options to add
	Name     string   // "" keeps the manifest's; GitHub App names are unique on the whole host
	HookURL  string   // where GitHub sends webhooks
	Redirect string   // where GitHub sends the browser back with the code
}

// Manifest returns the manifest GitHub's /settings/apps/new takes as JSON.
func Manifest(in ManifestInput) ([]byte, error) {
	var m map[string]any
	if err := yaml.Unmarshal(in.Base, &m); err != nil {
		return nil, fmt.Errorf("app manifest: %w", err)
	}
	var opts map[string]map[string]any
	if err := yaml.Unmarshal(in.Options, &opts); err != nil {
		return nil, fmt.Errorf("app manifest options: %w", err)
	}
	perms, _ := m["default_permissions"].(map[string]any)
	events, _ := m["default_events"].([]any)
	for _, f := range in.Features {
		block, ok := opts[f]
		if !ok {
			return nil, fmt.Errorf("no opt-in %q in the manifest options (known: %s)", f, strings.Join(sortedKeys(opts), ", "))
		}
		extra, _ := block["default_permissions"].(map[string]any)
		for k, v := range extra {
			perms[k] = v
		}
		more, _ := block["default_events"].([]any)
		for _, e := range more {
			if !slices.Contains(events, e) {
				events = append(events, e)
			}
		}
	}
	m["default_permissions"], m["default_events"] = perms, events
	hook, _ := m["hook_attributes"].(map[string]any)
	if hook == nil {
		hook = map[string]any{"active": true}
	}
	hook["url"] = in.HookURL
	m["hook_attributes"], m["redirect_url"] = hook, in.Redirect
	if in.Name != "" {
		m["name"] = in.Name
	}
	return json.Marshal(m)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// loginRE is what GitHub accepts as an account name.
var loginRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$`)

// NewAppURL is GitHub's page that takes a manifest: the personal account's, or org's.
func NewAppURL(web *url.URL, org, state string) string {
	path := "settings/apps/new"
	if org != "" {
		path = "organizations/" + url.PathEscape(org) + "/settings/apps/new"
	}
	u := web.JoinPath(path)
	u.RawQuery = url.Values{"state": {state}}.Encode()
	return u.String()
}
