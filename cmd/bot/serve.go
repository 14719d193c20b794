package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/serveconfig"
	"github.com/dixit-bot/dixit/internal/server"
)

// runServe runs `bot serve`: the GitHub App.
func runServe(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "YAML configuration (see deploy/dixit-serve.example.yml); DIXIT_* variables override it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := serveconfig.Load(*configPath, getenv)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	var client llm.Client
	if getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != "" {
		if client, err = clientFromEnv(getenv, logger); err != nil {
			return err
		}
	}
	s, err := server.New(cfg, client, logger)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("serve: listen on %s: %w", cfg.Listen, err)
	}
	return s.Run(ctx, ln)
}
