// Package server wires `bot serve` on one page: configuration → GitHub clients → run
// executor and manager → webhook intake and handlers → HTTP endpoints. cmd/bot only
// parses flags and calls New and Run.
package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/dixit-bot/dixit/internal/app"
	"github.com/dixit-bot/dixit/internal/apprun"
	"github.com/dixit-bot/dixit/internal/cast"
	"github.com/dixit-bot/dixit/internal/ci/actions"
	"github.com/dixit-bot/dixit/internal/ci/sandbox"
	"github.com/dixit-bot/dixit/internal/ghapp"
	"github.com/dixit-bot/dixit/internal/llm"
	"github.com/dixit-bot/dixit/internal/reconcile"
	"github.com/dixit-bot/dixit/internal/serveconfig"
	"github.com/dixit-bot/dixit/internal/webhook"
)

// Server is the running App.
type Server struct {
	cfg   serveconfig.Config
	log   *slog.Logger
	hook  *webhook.Server
	runs  *app.Manager
	gh    *ghapp.ClientCreator
	ready atomic.Bool
	http  *http.Server
	// metrics serves /metrics on metrics_listen, apart from the webhook's port; nil when off.
	metrics     *http.Server
	metricsAddr atomic.Value // the address it listens on, once Run has opened it

	reconciler *reconcile.Reconciler // nil when turned off
}

// New builds every part from the configuration; client is the model endpoint (nil when a
// scripted population stands in for it).
func New(cfg serveconfig.Config, client llm.Client, logger *slog.Logger) (*Server, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if client == nil && cfg.Population == "" {
		return nil, errors.New("no model: set OPENAI_API_KEY or OPENAI_BASE_URL, or population (scripted agents) in the configuration")
	}
	sandbox, err := checkSandbox(cfg, logger)
	if err != nil {
		return nil, err
	}
	key, err := os.ReadFile(cfg.GitHub.PrivateKeyFile)
	if err != nil {
		return nil, fmt.Errorf("read the App's private key: %w", err)
	}
	gh, err := ghapp.NewClientCreator(ghapp.Config{
		AppID: cfg.GitHub.AppID, PrivateKey: key, BaseURL: cfg.GitHub.BaseURL, UserAgent: "dixit", Logger: logger,
	})
	if err != nil {
		return nil, err
	}
	hub := actions.NewHub() // workflow_run webhooks → the Actions judges waiting on them
	exec := &apprun.Executor{
		Clients: gh, Token: gh.InstallationToken, StateDir: cfg.StateDir, BuildCache: cfg.BuildCache, ResultCache: cfg.ResultCache,
		Sandbox: sandbox, Agents: cast.Agents{Client: client, Population: cfg.Population}, Logger: logger,
		Workshop: cfg.Workshop, CreateWorkshop: cfg.WorkshopCreate, Holder: cfg.Name, LeaseTTL: cfg.LeaseTTL, Label: cfg.Label,
		GitURL: func(owner, repo string) string { return cfg.GitHub.GitURL + owner + "/" + repo + ".git" },
		Judge:  cfg.Judge, Hub: hub, BotVersion: cfg.Actions.BotVersion,
		Actions: actions.Config{PollInterval: cfg.Actions.PollInterval, FindTimeout: cfg.Actions.FindTimeout,
			RunTimeout: cfg.Actions.RunTimeout, Retries: cfg.Actions.Retries},
	}
	runs, err := app.NewManager(filepath.Join(cfg.StateDir, "issues"), exec, logger)
	if err != nil {
		return nil, err
	}
	// A run another server drives is asked for again once its lease could have lapsed.
	runs.RetryElsewhere = cfg.LeaseTTL
	// GitHub failing on the way (5xx, rate limits, dropped connections) is waited out.
	runs.Transient = ghapp.Transient
	base := app.Base{Clients: gh, Runs: runs, Label: cfg.Label, Logger: logger}
	issues := &app.IssuesHandler{Base: base}
	hook, err := webhook.New(webhook.Config{
		Secret: []byte(cfg.GitHub.WebhookSecret), Workers: cfg.Workers,
		QueueDir: filepath.Join(cfg.StateDir, "deliveries"), Logger: logger,
	}, issues, &app.CommentHandler{Base: base}, &app.PullRequestHandler{Base: base}, &app.CheckHandler{Base: base}, &app.WorkflowRunHandler{Notify: hub.Notify})
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: logger, hook: hook, runs: runs, gh: gh}
	if cfg.Reconcile > 0 {
		s.reconciler, err = reconcile.New(reconcile.Config{
			AppClient: gh.AppClient, Clients: gh, Label: cfg.Label,
			HasRun: func(i app.Issue) (bool, error) {
				_, ok, err := runs.Record(i)
				return ok, err
			},
			Start: issues.StartIssue, Seen: hook.Seen,
			StateFile: filepath.Join(cfg.StateDir, "reconcile.json"), Interval: cfg.Reconcile, Logger: logger,
		})
		if err != nil {
			return nil, err
		}
	}
	mux := http.NewServeMux()
	mux.Handle("POST /webhook", hook)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("GET /readyz", s.readyz)
	s.http = newHTTPServer(mux)
	if cfg.MetricsListen != "" && cfg.MetricsListen != "off" {
		metrics := http.NewServeMux()
		metrics.HandleFunc("GET /metrics", s.serveMetrics)
		s.metrics = newHTTPServer(metrics)
	}
	return s, nil
}

// newHTTPServer bounds what a client may hold before it has proven anything: its headers
// must come within 10 s and fit in 32 KiB, a whole request within a minute (the webhook
// intake cuts slow bodies sooner), and an idle connection is closed after 2 minutes.
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: 2 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 32 << 10,
	}
}

// checkSandbox proves, before any webhook is taken, that the configured sandbox starts
// here and that the code it will judge cannot read the App's secret files. Fail closed:
// a server runs untrusted code only with the isolation its operator chose.
func checkSandbox(cfg serveconfig.Config, logger *slog.Logger) (sandbox.Mode, error) {
	mode := sandbox.Mode(cmp.Or(cfg.Sandbox, string(sandbox.Bwrap)))
	results := cmp.Or(cfg.ResultCache, filepath.Join(cfg.StateDir, "cache"))
	isolation, err := sandbox.CheckHost(sandbox.HostCheck{
		Mode: mode, StateDir: cfg.StateDir, Private: []string{cfg.StateDir, results}, Logger: logger,
		Secrets: map[string]string{"github.private_key_file": cfg.GitHub.PrivateKeyFile, "github.webhook_secret_file": cfg.GitHub.SecretFile},
	})
	var unavailable *sandbox.UnavailableError
	if errors.As(err, &unavailable) {
		return "", fmt.Errorf("%w. Or, knowing that tests then run without any isolation, set sandbox: none in the configuration (DIXIT_SANDBOX=none)", err)
	}
	if err != nil {
		return "", fmt.Errorf("sandbox %s: %w", mode, err)
	}
	logger.Info("server: sandbox", "sandbox", string(mode), "isolation", isolation)
	return mode, nil
}

func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	if !s.ready.Load() {
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ready")
}

func (s *Server) serveMetrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	if err := s.hook.Stats().WritePrometheus(w); err != nil {
		s.log.Warn("server: metrics", "err", err)
	}
	st := s.gh.Stats()
	fmt.Fprintf(w, "# TYPE dixit_github_rate_limit_waits_total counter\ndixit_github_rate_limit_waits_total %d\n", st.RateLimitWaits)
}

// MetricsAddr is the address /metrics is served on once Run has opened metrics_listen;
// empty before, and when metrics are off.
func (s *Server) MetricsAddr() string {
	addr, _ := s.metricsAddr.Load().(string)
	return addr
}

// listenMetrics opens metrics_listen and serves /metrics there until stop is called.
func (s *Server) listenMetrics() (stop func(), err error) {
	if s.metrics == nil {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", s.cfg.MetricsListen)
	if err != nil {
		return nil, fmt.Errorf("listen for /metrics on %s (metrics_listen in the config, DIXIT_METRICS_LISTEN; off turns it off): %w", s.cfg.MetricsListen, err)
	}
	s.metricsAddr.Store(ln.Addr().String())
	s.log.Info("server: metrics listening", "addr", ln.Addr().String())
	go func() {
		if err := s.metrics.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("server: metrics stopped", "error", err)
		}
	}()
	return func() { _ = s.metrics.Close() }, nil
}

// Run serves on ln until ctx ends, then stops taking deliveries, lets work in flight
// finish within the grace period, and returns. Interrupted runs resume on the next start.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	stopMetrics, err := s.listenMetrics()
	if err != nil {
		return err
	}
	defer stopMetrics()
	if err := s.hook.Start(ctx); err != nil {
		return err
	}
	resumed, err := s.runs.ResumeAll()
	if err != nil {
		return err
	}
	s.log.Info("server: listening", "addr", ln.Addr().String(), "resumed_runs", resumed)
	s.ready.Store(true)
	rctx, stopReconciling := context.WithCancel(ctx)
	reconciled := make(chan struct{})
	go func() {
		defer close(reconciled)
		if s.reconciler != nil {
			s.reconciler.Run(rctx) // a first pass at once: what was missed while down
		}
	}()
	defer func() { stopReconciling(); <-reconciled }()
	served := make(chan error, 1)
	go func() { served <- s.http.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	s.ready.Store(false)
	grace, cancel := context.WithTimeout(context.Background(), s.cfg.Shutdown)
	defer cancel()
	errs := []error{s.hook.Shutdown(grace), s.runs.Shutdown(grace), s.http.Shutdown(grace)}
	return errors.Join(errs...)
}
