package webhook

import (
	"errors"
	"log/slog"
	"time"
)

// Config configures a Server. Secret and QueueDir are required; every other
// field has a default.
type Config struct {
	// Secret is the App's webhook secret. New refuses an empty one.
	Secret []byte
	// MaxBody bounds a request body in bytes (default 25 MiB, GitHub's cap).
	MaxBody int64
	// MaxUnverified and MaxUnverifiedBytes bound the bodies being received whose
	// signature is not yet checked: how many at once (default 1024), and how many bytes
	// they may declare between them (default 16 × MaxBody); a body without a declared
	// length counts as MaxBody. Each is spooled to a temporary file in QueueDir. A
	// request that does not fit is answered 503 with Retry-After before its body is read.
	MaxUnverified      int
	MaxUnverifiedBytes int64
	// BodyTimeout bounds how long one body may take to arrive (default 1m).
	BodyTimeout time.Duration
	// MinBodyRate is the slowest a body may arrive, in bytes per second, once
	// BodyGrace has passed (defaults 64 KiB/s and 5s): a sender that trickles is cut
	// off long before BodyTimeout.
	MinBodyRate int64
	BodyGrace   time.Duration
	// Workers is the number of deliveries processed at once (default 4).
	Workers int
	// QueueDir is where accepted deliveries are kept until processed, and
	// afterwards (done/, failed/) for dedupe across restarts.
	QueueDir string
	// QueueSize bounds the in-memory queue (default 64). When it is full a
	// delivery still gets 202: it is on disk and a worker picks it up later.
	QueueSize int
	// Retries is how many times a Retryable handler error is retried
	// (default 3; negative means none).
	Retries int
	// RetryBackoff is the first retry's delay, doubled on each attempt up to
	// MaxRetryBackoff (defaults 1s and 1m).
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	// Logger receives the server's logs (default: discard).
	Logger *slog.Logger
}

// withDefaults checks cfg and fills in its defaults.
func (cfg Config) withDefaults() (Config, error) {
	// Fail closed: without a secret no signature can be checked, and a server
	// that skipped the check would run anything anyone posts.
	if len(cfg.Secret) == 0 {
		return cfg, errors.New("webhook secret is empty: refusing to accept unsigned deliveries")
	}
	if cfg.QueueDir == "" {
		return cfg, errors.New("webhook queue dir is empty: deliveries must be durable before they are acknowledged")
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 25 << 20
	}
	if cfg.MaxUnverified <= 0 {
		cfg.MaxUnverified = 1024
	}
	if cfg.MaxUnverifiedBytes <= 0 {
		cfg.MaxUnverifiedBytes = 16 * cfg.MaxBody
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = time.Minute
	}
	if cfg.MinBodyRate <= 0 {
		cfg.MinBodyRate = 64 << 10
	}
	if cfg.BodyGrace <= 0 {
		cfg.BodyGrace = 5 * time.Second
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = 64
	}
	switch {
	case cfg.Retries == 0:
		cfg.Retries = 3
	case cfg.Retries < 0:
		cfg.Retries = 0
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = time.Second
	}
	if cfg.MaxRetryBackoff <= 0 {
		cfg.MaxRetryBackoff = time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg, nil
}
