// Package deploy holds the deployment files; its tests keep them consistent with the
// code. The App manifest is embedded for `bot setup`.
package deploy

import _ "embed"

// AppManifest is app.yml, the GitHub App manifest of a default install.
//
//go:embed app.yml
var AppManifest []byte

// AppOptions is app-options.yml: the permissions and events each opt-in feature adds.
//
//go:embed app-options.yml
var AppOptions []byte
