package appsetup

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/ghapp"
	"github.com/dixit-bot/dixit/internal/serveconfig"
)

// App identifies a registered App, as bot serve's configuration does.
type App struct {
	ID     int64
	Key    []byte // the private key, PEM
	APIURL string
}

// RecentDeliveries lists the App's latest webhook deliveries, newest first, as GitHub
// recorded them (GET /app/hook/deliveries, as the App): the same list as the Recent
// Deliveries of the App's Advanced tab.
func RecentDeliveries(ctx context.Context, a App, n int, log *slog.Logger) ([]*github.HookDelivery, error) {
	cc, err := ghapp.NewClientCreator(ghapp.Config{AppID: a.ID, PrivateKey: a.Key, BaseURL: a.APIURL, Logger: log})
	if err != nil {
		return nil, err
	}
	c, err := cc.AppClient()
	if err != nil {
		return nil, err
	}
	ds, _, err := c.Apps.ListHookDeliveries(ctx, &github.ListCursorOptions{PerPage: n})
	if err != nil {
		return nil, fmt.Errorf("GET %sapp/hook/deliveries as App %d: %w", a.APIURL, a.ID, err)
	}
	return ds, nil
}

// PrintDeliveries writes one line per delivery and returns an error when there is none
// or the newest failed: GitHub reaches the server only if the newest succeeded.
func PrintDeliveries(w io.Writer, ds []*github.HookDelivery) error {
	if len(ds) == 0 {
		return fmt.Errorf("GitHub has delivered nothing to this App yet: install it on a repository (or redeliver the ping from its Advanced tab)")
	}
	for _, d := range ds {
		event := d.GetEvent()
		if d.GetAction() != "" {
			event += "." + d.GetAction()
		}
		redo := ""
		if d.GetRedelivery() {
			redo = " (redelivery)"
		}
		fmt.Fprintf(w, "%s  %-28s %3d %s%s  %s\n", d.GetDeliveredAt().UTC().Format(time.RFC3339), event, d.GetStatusCode(), d.GetStatus(), redo, d.GetGUID())
	}
	if code := ds[0].GetStatusCode(); code < 200 || code >= 300 {
		return fmt.Errorf("the newest delivery got %q (status %d): docs/install.md, Troubleshooting, says what each answer means", ds[0].GetStatus(), code)
	}
	return nil
}

// ShowDeliveries is bot setup deliveries: the App's latest n deliveries as GitHub
// recorded them, one line each on w, for the App bot serve's configuration cfg names. Its
// error says when there is none or the newest failed.
func ShowDeliveries(ctx context.Context, cfg serveconfig.Config, n int, w io.Writer, log *slog.Logger) error {
	key, err := os.ReadFile(cfg.GitHub.PrivateKeyFile)
	if err != nil {
		return fmt.Errorf("setup deliveries: github.private_key_file: %w", err)
	}
	ds, err := RecentDeliveries(ctx, App{ID: cfg.GitHub.AppID, Key: key, APIURL: cfg.GitHub.BaseURL}, n, log)
	if err != nil {
		return fmt.Errorf("setup deliveries: %w", err)
	}
	return PrintDeliveries(w, ds)
}
