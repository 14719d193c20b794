package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/dixit-bot/dixit/deploy"
	"github.com/dixit-bot/dixit/internal/appsetup"
	"github.com/dixit-bot/dixit/internal/cli"
	"github.com/dixit-bot/dixit/internal/doctor"
	"github.com/dixit-bot/dixit/internal/serveconfig"
	"github.com/dixit-bot/dixit/internal/server"
)

// newServe is `bot serve`: the GitHub App.
func newServe(getenv func(string) string) *cobra.Command {
	reg := appsetup.FirstStart{Manifest: deploy.AppManifest, AppOptions: deploy.AppOptions}
	var models modelFlags
	cmd := &cobra.Command{
		Use:   "serve [--config FILE] [--public-url URL]",
		Short: "Run the GitHub App: webhooks in, runs on labelled issues, vetting of labelled pull requests",
		Long: `Serves GitHub's webhooks and runs the protocol for issues and pull requests labelled dixit.
Settings come from --config (see deploy/dixit-serve.example.yml) and DIXIT_* variables, which
override it; the model endpoint from OPENAI_API_KEY / OPENAI_BASE_URL. DIXIT_MODEL makes
every run use that model, whatever the repositories' dixit.yml say. At start, one short
completion checks the endpoint (bot doctor checks more): an unreachable endpoint, a refused
key or, with DIXIT_MODEL, an unknown model stops the server. See docs/install.md.

On a first start, when --config names a file that is not there yet and no DIXIT_* variable
configures an App, it registers one first: the page bot setup serves, on the server's own
address, with --public-url as the webhook's. The file and the App's key and secret beside
it are written, then the server goes on with them; later starts read the file.`,
		Example: `  DIXIT_GITHUB_APP_ID=12345 DIXIT_GITHUB_PRIVATE_KEY_FILE=app.pem DIXIT_WEBHOOK_SECRET=... bot serve
  bot serve --config /etc/dixit/serve.yml
  bot serve --config /var/lib/dixit/serve.yml --public-url https://dixit.example.com --org acme   # first start`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, first, err := serveconfig.LoadOrFirst(reg.ConfigPath, reg.PublicURL, getenv)
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			logger := cli.CommandLogger(cmd, cmd.ErrOrStderr(), true, slog.LevelInfo)
			client, err := doctor.ServeClient(cmd.Context(), models.start(getenv, logger, nil))
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			if first {
				if client == nil && cfg.Population == "" { // said before the App exists, not after
					return errors.New("serve: no model: set OPENAI_API_KEY or OPENAI_BASE_URL, or population (DIXIT_POPULATION), then start again to register the App")
				}
				if cfg, err = reg.Register(cmd.Context(), cfg, getenv, cmd.OutOrStdout(), logger); err != nil {
					return fmt.Errorf("serve: %w", err)
				}
			}
			s, err := server.New(cfg, client, logger)
			if err != nil {
				return fmt.Errorf("serve: %w", err)
			}
			ln, err := net.Listen("tcp", cfg.Listen)
			if err != nil {
				return fmt.Errorf("serve: listen on %s (listen in the config, DIXIT_LISTEN): %w", cfg.Listen, err)
			}
			return s.Run(cmd.Context(), ln)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&models.SkipCheck, "skip-doctor", false, "start without checking the model endpoint (also DIXIT_SKIP_DOCTOR=1)")
	f.StringVar(&reg.ConfigPath, "config", "", "YAML configuration `FILE` (see deploy/dixit-serve.example.yml); DIXIT_* variables override it. Not there yet: register the App and write it")
	f.StringVar(&reg.PublicURL, "public-url", getenv("DIXIT_PUBLIC_URL"), "first start only: the `URL` GitHub reaches this server at; the webhook is URL/webhook (default $DIXIT_PUBLIC_URL)")
	f.StringVar(&reg.Org, "org", "", "first start only: the organization (`ORG`) that owns the App (default: your personal account)")
	f.DurationVar(&reg.PingWait, "ping-wait", 30*time.Second, "first start only: how long to wait for GitHub's ping to reach the webhook, as `1m30s`")
	return cmd
}
