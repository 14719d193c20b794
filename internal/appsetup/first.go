package appsetup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/dixit-bot/dixit/internal/serveconfig"
)

// FirstStart is what bot serve knows on a first start (serveconfig.LoadOrFirst): the
// --config file to write, the flags that register the App, and its manifest.
type FirstStart struct {
	ConfigPath string // --config: not there yet
	PublicURL  string // --public-url
	Org        string // --org
	PingWait   time.Duration
	// Manifest and AppOptions are deploy/app.yml and deploy/app-options.yml.
	Manifest, AppOptions []byte
}

// Register serves the setup page (bot setup's) on the server's own address until the App
// is registered and f.ConfigPath is written beside its key and secret, then reads it: the
// server goes on with it, and a restart reads the same file. A webhook GitHub did not
// reach yet is logged, not fatal: the fix is in front of the server, which had better be
// answering then.
func (f FirstStart) Register(ctx context.Context, cfg serveconfig.Config, getenv func(string) string, out io.Writer, logger *slog.Logger) (serveconfig.Config, error) {
	o := Options{
		Listen: cfg.Listen, PublicURL: f.PublicURL, Org: f.Org, GitHubURL: cfg.GitHub.GitURL, APIURL: cfg.GitHub.BaseURL,
		ServeConfig: f.ConfigPath, PingWait: f.PingWait,
	}
	if cfg.Judge == "actions" { // the Actions judge dispatches workflows: it needs actions: write
		o.Features = append(o.Features, ActionsJudge)
	}
	s, err := New(o, f.Manifest, f.AppOptions, nil, logger)
	if err != nil {
		return cfg, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return cfg, fmt.Errorf("listen on %s (listen in the config, DIXIT_LISTEN) for the setup page: %w", cfg.Listen, err)
	}
	fmt.Fprintf(out, "No GitHub App is configured: registering one, to be written to %s.\n", f.ConfigPath)
	var unreachable *UnreachableError
	if err := s.Run(ctx, ln, out); errors.As(err, &unreachable) {
		logger.Warn("serving, though GitHub's ping did not reach the webhook: fix the address, then redeliver the ping", "err", err)
	} else if err != nil {
		return cfg, err
	}
	return serveconfig.Load(f.ConfigPath, getenv)
}
