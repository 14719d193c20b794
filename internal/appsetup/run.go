package appsetup

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Run serves on ln until the App is registered, checks its webhook, and prints what to do
// next on out. It returns when ctx ends, or with the check's error.
func (s *Setup) Run(ctx context.Context, ln net.Listener, out io.Writer) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	fmt.Fprintf(out, "Open http://%s/ in a browser on this machine (from another one, tunnel to it: ssh -L PORT:%[1]s HOST) and register the App.\n",
		browsable(ln.Addr()))
	select {
	case <-ctx.Done():
		return fmt.Errorf("setup stopped before the App was registered: %w", ctx.Err())
	case err := <-served:
		return fmt.Errorf("setup server: %w", err)
	case <-s.done:
	}
	s.mu.Lock()
	c, saved, saveErr := *s.creds, s.saved, s.saveErr
	s.mu.Unlock()
	if saved.Config == "" {
		printOnce(out, c, s.ends)
	}
	if saveErr != nil {
		return saveErr
	}
	var check error
	if !s.opts.NoCheck {
		check = s.checkWebhook(ctx, c)
	}
	s.summary(out, c, saved, check)
	if check != nil {
		return &UnreachableError{Slug: c.Slug, Err: check}
	}
	return nil
}

// UnreachableError is Run's error when the App is registered and its credentials kept, but
// GitHub's ping did not reach the webhook: bot serve goes on all the same (the fix is in
// front of it, and GitHub redelivers on request), bot setup fails.
type UnreachableError struct {
	Slug string
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("the App %s is registered and its credentials kept, but its webhook is not reachable: %v", e.Slug, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// browsable turns a listen address like [::]:8080 into one a browser on this host opens.
func browsable(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

func (s *Setup) summary(out io.Writer, c Credentials, saved Saved, check error) {
	fmt.Fprintf(out, "\nRegistered the GitHub App %q (id %d) owned by %s: %s\n", c.Name, c.AppID, c.Owner, c.HTMLURL)
	if saved.Config != "" {
		fmt.Fprintf(out, "Private key: %s\nWebhook secret: %s\nServer configuration: %s\n", saved.Key, saved.Secret, saved.Config)
	}
	switch {
	case s.opts.NoCheck:
		fmt.Fprintf(out, "Webhook: not checked. Once bot serve answers %s, redeliver the ping from %s/advanced and see it get 202.\n", s.ends.hook, s.settingsURL(c.Slug))
	case check == nil:
		fmt.Fprintf(out, "Webhook: GitHub's ping reached %s and its signature matches.\n", s.ends.hook)
	}
	fmt.Fprintf(out, "\nNext:\n  1. Install it on the repositories to watch: %s/installations/new\n", c.HTMLURL)
	switch {
	case s.opts.ServeConfig != "":
		fmt.Fprintf(out, "  2. Nothing: bot serve goes on now with %s, and reads it when started again.\n", saved.Config)
	case saved.Config != "":
		fmt.Fprintf(out, "  2. Start the App on this address (%s): bot serve --config %s\n", s.opts.Listen, saved.Config)
	default:
		fmt.Fprintf(out, "  2. Start the App with the variables above and DIXIT_GITHUB_PRIVATE_KEY_FILE: bot serve\n")
	}
	fmt.Fprintf(out, "  3. Label an issue %q in an installed repository (docs/install.md, step 4).\n", "dixit")
}
