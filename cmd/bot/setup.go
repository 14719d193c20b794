package main

import (
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/spf13/cobra"

	"github.com/dixit-bot/dixit/deploy"
	"github.com/dixit-bot/dixit/internal/appsetup"
	"github.com/dixit-bot/dixit/internal/cli"
	"github.com/dixit-bot/dixit/internal/serveconfig"
)

// newSetup is `bot setup`: register the GitHub App from deploy/app.yml.
func newSetup(getenv func(string) string) *cobra.Command {
	var o appsetup.Options
	var workshopCreate, actionsJudge bool
	cmd := &cobra.Command{
		Use:   "setup --public-url URL [--org ORG] [--out DIR]",
		Short: "Register the GitHub App from its manifest (deploy/app.yml) in one click",
		Long: `Serves a page on --listen whose button sends the App's manifest to GitHub. GitHub shows
every setting for review, creates the App and sends the browser back here with a one-time
code, which bot setup exchanges for the App's id, private key and webhook secret. With --out
they are written there (0600) with a serve.yml for bot serve --config; without it they are
printed once, for a secret store. Then it checks that GitHub's ping reached --public-url's
/webhook and prints the install URL and the next command. See docs/install.md.

The default manifest asks only for what a default install uses. --workshop-create adds
administration: write (the App creates its private workshop repositories);
--actions-judge adds actions: write and workflow_run (tests on GitHub Actions).`,
		Example: `  bot setup --public-url https://dixit.example.com --org acme --out /etc/dixit
  bot setup --public-url https://smee.io/CHANNEL --listen localhost:8080
  bot setup --public-url https://dixit.example.com --github-url https://github.example.com/`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if workshopCreate {
				o.Features = append(o.Features, appsetup.WorkshopCreate)
			}
			if actionsJudge {
				o.Features = append(o.Features, appsetup.ActionsJudge)
			}
			logger := cli.CommandLogger(cmd, cmd.ErrOrStderr(), false, slog.LevelInfo)
			s, err := appsetup.New(o, deploy.AppManifest, deploy.AppOptions, nil, logger)
			if err != nil {
				return usagef(cmd, "%v", err)
			}
			ln, err := net.Listen("tcp", o.Listen)
			if err != nil {
				return fmt.Errorf("setup: listen on --listen %s: %w", o.Listen, err)
			}
			return s.Run(cmd.Context(), ln, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Listen, "listen", ":8080", "`ADDRESS` of the setup page and of the webhook while setting up (the one bot serve will listen on)")
	f.StringVar(&o.PublicURL, "public-url", getenv("DIXIT_PUBLIC_URL"), "the `URL` GitHub reaches this server at; the webhook is URL/webhook (default $DIXIT_PUBLIC_URL)")
	f.StringVar(&o.Org, "org", "", "the organization (`ORG`) that owns the App (default: your personal account)")
	f.StringVar(&o.GitHubURL, "github-url", "https://github.com/", "GitHub's `URL`; for GitHub Enterprise Server https://HOST/")
	f.StringVar(&o.APIURL, "api-url", "", "the REST API's `URL` (default https://api.github.com/, or https://HOST/api/v3/ with --github-url)")
	f.StringVar(&o.Name, "name", "", "the App's `NAME`, unique on the whole GitHub host (default the manifest's, Dixit)")
	f.StringVar(&o.Out, "out", "", "`DIR` for the private key, the webhook secret and serve.yml (default: print them once)")
	f.BoolVar(&workshopCreate, "workshop-create", false, "also ask administration: write, so the App creates its private workshop repositories")
	f.BoolVar(&actionsJudge, "actions-judge", false, "also ask actions: write and workflow_run events, to run tests on GitHub Actions")
	f.DurationVar(&o.PingWait, "ping-wait", 30*time.Second, "how long to wait for GitHub's ping to reach the webhook, as `1m30s`")
	cmd.AddCommand(newSetupDeliveries(getenv))
	f.BoolVar(&o.NoCheck, "no-webhook-check", false, "do not check the webhook: --public-url leads to a server that starts later (Kubernetes)")
	return cmd
}

// newSetupDeliveries is `bot setup deliveries`: GitHub's record of the App's deliveries.
func newSetupDeliveries(getenv func(string) string) *cobra.Command {
	var configPath string
	var n int
	cmd := &cobra.Command{
		Use:   "deliveries [--config FILE]",
		Short: "List the App's latest webhook deliveries as GitHub recorded them, to see them arrive",
		Long: `Asks GitHub, as the App, for its latest webhook deliveries (GET /app/hook/deliveries, the
Recent Deliveries of the App's Advanced tab) and prints one line each: when, event, the
server's answer. It exits 1 when there is none or the newest failed. It reads the App's id,
key and API URL as bot serve does: --config and DIXIT_* variables.`,
		Example: `  bot setup deliveries --config /etc/dixit/serve.yml`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if configPath != "" {
				if err := existing("config", configPath, aFile); err != nil {
					return usagef(cmd, "%v", err)
				}
			}
			cfg, err := serveconfig.Load(configPath, getenv)
			if err != nil {
				return fmt.Errorf("setup deliveries: %w", err)
			}
			logger := cli.CommandLogger(cmd, cmd.ErrOrStderr(), false, slog.LevelWarn)
			return appsetup.ShowDeliveries(cmd.Context(), cfg, n, cmd.OutOrStdout(), logger)
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "bot serve's configuration `FILE` (bot setup --out wrote DIR/serve.yml); DIXIT_* variables override it")
	cmd.Flags().IntVarP(&n, "number", "n", 20, "how many deliveries, newest first (at most 100)")
	return cmd
}
