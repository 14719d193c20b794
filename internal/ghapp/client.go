package ghapp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v60/github"
)

// Config says how to reach GitHub as the App.
type Config struct {
	AppID      int64
	PrivateKey []byte       // PEM
	BaseURL    string       // default https://api.github.com/; GHES: https://host/api/v3/
	UserAgent  string       // versioned, e.g. "dixit/1.2.0"
	Logger     *slog.Logger // nil: discard
	HTTPClient *http.Client // its Transport is the base transport; nil: http.DefaultTransport
	Sleep      SleepFunc    // rate-limit waits and retry backoff; nil: Sleep
	// ResponseTimeout bounds the wait for an answer's headers when HTTPClient is nil
	// (default 30 s: GitHub itself ends REST requests after 10 s); the request is then
	// retried if it is safe to send twice.
	ResponseTimeout time.Duration
}

const defaultResponseTimeout = 30 * time.Second

// ClientCreator makes app and installation clients sharing one middleware stack and
// one set of Metrics. Installation clients are cached by installation id; their
// ghinstallation transport refreshes tokens before they expire.
type ClientCreator struct {
	cfg     Config
	base    *url.URL
	tr      http.RoundTripper
	metrics *Metrics
	apps    *ghinstallation.AppsTransport

	mu         sync.Mutex
	installs   map[int64]*github.Client
	transports map[int64]*ghinstallation.Transport
}

// NewClientCreator validates cfg and builds the shared transport.
func NewClientCreator(cfg Config) (*ClientCreator, error) {
	if cfg.AppID == 0 {
		return nil, errors.New("github app: app id is required")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.github.com/"
	}
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	base, err := url.Parse(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("github app: parse base url %q: %w", cfg.BaseURL, err)
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "dixit/dev"
	}
	var inner http.RoundTripper
	if cfg.HTTPClient != nil {
		inner = cfg.HTTPClient.Transport
	} else {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.ResponseHeaderTimeout = cmp.Or(cfg.ResponseTimeout, defaultResponseTimeout)
		inner = t
	}
	m := NewMetrics()
	tr := Chain(inner,
		m.Middleware(),
		RateLimit(cfg.Logger, cfg.Sleep),
		Retry(cfg.Logger, cfg.Sleep),
		ETagCache(0),
		Logging(cfg.Logger),
		UserAgent(cfg.UserAgent),
	)
	apps, err := ghinstallation.NewAppsTransport(tr, cfg.AppID, cfg.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("github app %d: read private key: %w", cfg.AppID, err)
	}
	apps.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	return &ClientCreator{cfg: cfg, base: base, tr: tr, metrics: m, apps: apps, installs: map[int64]*github.Client{},
		transports: map[int64]*ghinstallation.Transport{}}, nil
}

// Stats returns the shared HTTP counters.
func (c *ClientCreator) Stats() Stats { return c.metrics.Stats() }

// AppClient returns a client authenticated as the App itself (JWT).
func (c *ClientCreator) AppClient() (*github.Client, error) {
	return c.client(c.apps)
}

// InstallationClient returns the cached client for an installation, creating it on
// first use.
func (c *ClientCreator) InstallationClient(installationID int64) (*github.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gc, ok := c.installs[installationID]; ok {
		return gc, nil
	}
	gc, err := c.client(c.transport(installationID))
	if err != nil {
		return nil, fmt.Errorf("installation %d: %w", installationID, err)
	}
	c.installs[installationID] = gc
	return gc, nil
}

// InstallationToken returns a current token of an installation, for git over HTTPS; the
// same cached transport refreshes it before it expires.
func (c *ClientCreator) InstallationToken(ctx context.Context, installationID int64) (string, error) {
	c.mu.Lock()
	itr := c.transport(installationID)
	c.mu.Unlock()
	token, err := itr.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("installation %d: token: %w", installationID, err)
	}
	return token, nil
}

// transport returns the installation's token-refreshing transport; c.mu must be held.
func (c *ClientCreator) transport(installationID int64) *ghinstallation.Transport {
	if itr, ok := c.transports[installationID]; ok {
		return itr
	}
	itr := ghinstallation.NewFromAppsTransport(c.apps, installationID)
	// Without options ghinstallation posts the body "null", which GitHub's description
	// of POST /app/installations/{id}/access_tokens does not allow; send {} instead.
	itr.InstallationTokenOptions = &github.InstallationTokenOptions{}
	c.transports[installationID] = itr
	return itr
}

func (c *ClientCreator) client(tr http.RoundTripper) (*github.Client, error) {
	hc := &http.Client{Transport: tr}
	if c.cfg.HTTPClient != nil {
		hc.Timeout = c.cfg.HTTPClient.Timeout
	}
	gc := github.NewClient(hc)
	gc.BaseURL = c.base
	gc.UploadURL = c.base
	gc.UserAgent = c.cfg.UserAgent
	return gc, nil
}
