package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/dixit-bot/dixit/internal/serveconfig"
	"github.com/dixit-bot/dixit/internal/server"
)

// benchSecret is the child's webhook secret; the bench never signs with it.
const benchSecret = "intake-bench-secret-never-used-to-sign"

// serveChild runs the App's server on a loopback port of its choice, prints the address,
// and serves until SIGTERM or until the parent closes stdin.
func serveChild() error {
	state, err := os.MkdirTemp("", "dixit-bench-intake-")
	if err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	defer os.RemoveAll(state)
	cfg, err := childConfig(state)
	if err != nil {
		return err
	}
	s, err := server.New(cfg, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		return fmt.Errorf("new server: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen on loopback: %w", err)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() { // the parent died or is done
		_, _ = io.Copy(io.Discard, os.Stdin)
		stop()
	}()
	return s.Run(ctx, ln)
}

// childConfig is `bot serve`'s configuration as an operator would set it, on a fresh state
// directory, with scripted agents (no model), no reconciler (no GitHub to reach) and no
// metrics listener (a fixed port two runs would share).
func childConfig(state string) (serveconfig.Config, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return serveconfig.Config{}, fmt.Errorf("generate App key: %w", err)
	}
	keyFile := filepath.Join(state, "app.pem")
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(keyFile, pemKey, 0o600); err != nil {
		return serveconfig.Config{}, fmt.Errorf("write App key: %w", err)
	}
	env := map[string]string{
		"DIXIT_GITHUB_APP_ID": "1", "DIXIT_GITHUB_PRIVATE_KEY_FILE": keyFile, "DIXIT_WEBHOOK_SECRET": benchSecret,
		"DIXIT_STATE_DIR": state, "DIXIT_POPULATION": "examples/semver", "DIXIT_GITHUB_BASE_URL": "http://127.0.0.1:1/",
	}
	cfg, err := serveconfig.Load("", func(k string) string { return env[k] })
	if err != nil {
		return cfg, fmt.Errorf("serve config: %w", err)
	}
	cfg.Reconcile, cfg.MetricsListen = 0, "off"
	return cfg, nil
}
