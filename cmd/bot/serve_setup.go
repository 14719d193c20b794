package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/dixit-bot/dixit/deploy"
	"github.com/dixit-bot/dixit/internal/appsetup"
	"github.com/dixit-bot/dixit/internal/serveconfig"
)

// registration is what bot serve's flags say about registering the App on a first start.
type registration struct {
	configPath string // --config
	publicURL  string // --public-url
	org        string // --org
	pingWait   time.Duration
}

// loadServeConfig reads bot serve's configuration. It reports a first start when --config
// names a file that is not there yet and nothing else configures an App: cfg is then the
// rest of the configuration, for registerApp.
func loadServeConfig(r registration, getenv func(string) string) (cfg serveconfig.Config, first bool, err error) {
	if r.configPath == "" {
		cfg, err = serveconfig.Load("", getenv)
		return cfg, false, err
	}
	if _, err := os.Stat(r.configPath); errors.Is(err, fs.ErrNotExist) {
		cfg, err := serveconfig.Load("", getenv)
		switch {
		case errors.Is(err, serveconfig.ErrNoApp) && r.publicURL == "":
			return cfg, false, fmt.Errorf("--config %s is not there and no GitHub App is configured: add --public-url URL (DIXIT_PUBLIC_URL), the address GitHub reaches this server at, to register the App from a page now (or run bot setup --out DIR)", r.configPath)
		case errors.Is(err, serveconfig.ErrNoApp):
			return cfg, true, nil
		}
	}
	if err := existing("config", r.configPath, aFile); err != nil {
		return cfg, false, err
	}
	cfg, err = serveconfig.Load(r.configPath, getenv)
	return cfg, false, err
}

// registerApp serves the setup page (bot setup's) on the server's own address until the App
// is registered and --config written beside its key and secret, then reads it: the server
// goes on with it, and a restart reads the same file. A webhook GitHub did not reach yet is
// logged, not fatal: the fix is in front of the server, which had better be answering then.
func registerApp(ctx context.Context, r registration, cfg serveconfig.Config, getenv func(string) string, out io.Writer, logger *slog.Logger) (serveconfig.Config, error) {
	o := appsetup.Options{
		Listen: cfg.Listen, PublicURL: r.publicURL, Org: r.org, GitHubURL: cfg.GitHub.GitURL, APIURL: cfg.GitHub.BaseURL,
		ServeConfig: r.configPath, PingWait: r.pingWait,
	}
	if cfg.Judge == "actions" { // the Actions judge dispatches workflows: it needs actions: write
		o.Features = append(o.Features, appsetup.ActionsJudge)
	}
	s, err := appsetup.New(o, deploy.AppManifest, deploy.AppOptions, nil, logger)
	if err != nil {
		return cfg, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return cfg, fmt.Errorf("listen on %s (listen in the config, DIXIT_LISTEN) for the setup page: %w", cfg.Listen, err)
	}
	fmt.Fprintf(out, "No GitHub App is configured: registering one, to be written to %s.\n", r.configPath)
	var unreachable *appsetup.UnreachableError
	if err := s.Run(ctx, ln, out); errors.As(err, &unreachable) {
		logger.Warn("serving, though GitHub's ping did not reach the webhook: fix the address, then redeliver the ping", "err", err)
	} else if err != nil {
		return cfg, err
	}
	return serveconfig.Load(r.configPath, getenv)
}
