package appsetup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/go-github/v60/github"
	"gopkg.in/yaml.v3"
)

// Credentials are what GitHub returns once for a code: the App and its secrets.
type Credentials struct {
	AppID         int64
	Slug, Name    string
	HTMLURL       string // the App's page; + /installations/new installs it
	Owner         string
	PEM           string // the private key
	WebhookSecret string
}

// exchange trades the one-time code for the App's credentials (POST
// /app-manifests/{code}/conversions, which needs no authentication: the code is one).
func exchange(ctx context.Context, hc *http.Client, api, code string) (Credentials, error) {
	c := github.NewClient(hc)
	base, err := url.Parse(api)
	if err != nil {
		return Credentials{}, fmt.Errorf("api url %q: %w", api, err)
	}
	c.BaseURL = base
	cfg, _, err := c.Apps.CompleteAppManifest(ctx, code)
	var er *github.ErrorResponse
	switch {
	case errors.As(err, &er) && er.Response.StatusCode == http.StatusNotFound:
		return Credentials{}, fmt.Errorf("GitHub at %s does not know this code: it expired (a code lasts one hour) or was used already; register again from the setup page", api)
	case err != nil:
		return Credentials{}, fmt.Errorf("exchange the code at %sapp-manifests/CODE/conversions: %w", api, err)
	case cfg.GetID() == 0 || cfg.GetPEM() == "" || len(cfg.GetWebhookSecret()) < 16:
		return Credentials{}, fmt.Errorf("GitHub at %s answered the code without an App id, a private key or a webhook secret of 16 characters", api)
	}
	return Credentials{
		AppID: cfg.GetID(), Slug: cfg.GetSlug(), Name: cfg.GetName(), HTMLURL: cfg.GetHTMLURL(),
		Owner: cfg.GetOwner().GetLogin(), PEM: cfg.GetPEM(), WebhookSecret: cfg.GetWebhookSecret(),
	}, nil
}

// Saved says where the credentials went.
type Saved struct {
	Config string // serve.yml for bot serve --config; "" when printed
	Key    string // the private key file
	Secret string // the webhook secret file
}

// serveFile is the part of bot serve's configuration setup writes (deploy/dixit-serve.example.yml).
type serveFile struct {
	Listen         string `yaml:"listen,omitempty"` // where --public-url leads
	WorkshopCreate bool   `yaml:"workshop_create"`
	GitHub         struct {
		AppID          int64  `yaml:"app_id"`
		PrivateKeyFile string `yaml:"private_key_file"`
		SecretFile     string `yaml:"webhook_secret_file"`
		BaseURL        string `yaml:"base_url"`
		GitURL         string `yaml:"git_url"`
	} `yaml:"github"`
}

// save writes the private key and the webhook secret (0600, never over an existing file)
// and a serve.yml naming them into dir.
func save(dir string, c Credentials, e endpoints, o Options) (Saved, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Saved{}, fmt.Errorf("--out %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return Saved{}, fmt.Errorf("--out %s: %w", dir, err)
	}
	s := Saved{Config: filepath.Join(abs, "serve.yml"), Key: filepath.Join(abs, "private-key.pem"), Secret: filepath.Join(abs, "webhook-secret")}
	flag := "--out"
	if o.ServeConfig != "" {
		if s.Config, err = filepath.Abs(o.ServeConfig); err != nil {
			return Saved{}, fmt.Errorf("--config %s: %w", o.ServeConfig, err)
		}
		flag = "--config"
	}
	var f serveFile
	f.Listen, f.WorkshopCreate = o.Listen, slices.Contains(o.Features, WorkshopCreate)
	f.GitHub.AppID, f.GitHub.PrivateKeyFile, f.GitHub.SecretFile = c.AppID, s.Key, s.Secret
	f.GitHub.BaseURL, f.GitHub.GitURL = e.api, e.git
	conf, err := yaml.Marshal(f)
	if err != nil {
		return Saved{}, fmt.Errorf("serve.yml: %w", err)
	}
	head := fmt.Sprintf("# Written by %s for the GitHub App %s (%s).\n# bot serve --config %s; other keys: deploy/dixit-serve.example.yml.\n", o.command(), c.Slug, c.HTMLURL, s.Config)
	files := []struct {
		path, data string
	}{{s.Key, c.PEM}, {s.Secret, c.WebhookSecret + "\n"}, {s.Config, head + string(conf)}}
	for _, w := range files { // none written unless all can be: a rerun finds the directory as it was
		if _, err := os.Lstat(w.path); err == nil {
			return Saved{}, existsError(w.path, flag)
		}
	}
	for _, w := range files {
		if err := writeNew(w.path, w.data, flag); err != nil {
			return Saved{}, err
		}
	}
	return s, nil
}

// writeNew writes a file readable by its owner only, refusing to replace one: credentials
// of another App may be there. flag is the option that chose the directory.
func writeNew(path, data, flag string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return existsError(path, flag)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := io.WriteString(f, data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func existsError(path, flag string) error {
	return fmt.Errorf("%s exists already (another App's credentials?): choose another %s or move it away", path, flag)
}

// printOnce shows the credentials for a secret store: GitHub never shows the key again.
func printOnce(w io.Writer, c Credentials, e endpoints) {
	fmt.Fprintf(w, `The App's credentials, shown this once: put them in your secret store now.
(GitHub never shows this private key again; the App's page can generate a new one.)

DIXIT_GITHUB_APP_ID=%d
DIXIT_WEBHOOK_SECRET=%s
DIXIT_GITHUB_BASE_URL=%s
DIXIT_GITHUB_GIT_URL=%s
The private key, for the file DIXIT_GITHUB_PRIVATE_KEY_FILE names:
%s
`, c.AppID, c.WebhookSecret, e.api, e.git, strings.TrimSpace(c.PEM))
}
