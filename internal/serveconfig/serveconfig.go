// Package serveconfig reads the configuration of `bot serve`: an optional YAML file, then
// environment variables, which win. It is strict: unknown keys and bad values are errors
// that name the key, and the server refuses to start without the secrets it needs.
package serveconfig

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dixit-bot/dixit/internal/strictyaml"
)

// Config is everything `bot serve` needs.
type Config struct {
	Listen string `yaml:"listen"` // address of the webhook and health endpoints
	// MetricsListen is the address of /metrics, apart from the webhook's port so that
	// the counters are not served wherever GitHub can reach; "" or off turns it off.
	MetricsListen string `yaml:"metrics_listen"`
	StateDir      string `yaml:"state_dir"` // deliveries, runs, caches
	// BuildCache is the judge's toolchain build cache; default state_dir/cache/build.
	BuildCache string `yaml:"build_cache"`
	// ResultCache holds verdicts and probe runs by content; servers may share one (a
	// shared volume) so a run that moves between them is not judged twice. Default
	// state_dir/cache.
	ResultCache string `yaml:"result_cache"`
	Label       string `yaml:"label"`   // the issue label that starts a run
	Workers     int    `yaml:"workers"` // deliveries processed at once
	// Workshop names the private repository that holds a target repository's hidden
	// work; {owner} and {repo} are replaced.
	Workshop string `yaml:"workshop"`
	// WorkshopCreate lets the App create a missing workshop, private, in an organization
	// where it has the Administration permission.
	WorkshopCreate bool `yaml:"workshop_create"`
	// Name identifies this server in run leases; two servers must not share one.
	// Default: host name and process id.
	Name string `yaml:"name"`
	// LeaseTTL is how long a run stays with a server that stopped renewing its lease.
	LeaseTTL time.Duration `yaml:"lease_ttl"`
	// Reconcile is the period of the pass that starts labelled issues without a run and
	// asks GitHub again for failed deliveries; 0 turns it off.
	Reconcile time.Duration `yaml:"reconcile_interval"`
	Judge     string        `yaml:"judge"` // auto, local (this server's sandbox) or actions (GitHub Actions)
	// Sandbox isolates the code under test and agents' commands on this server: bwrap
	// (the default; the server refuses to start without it) or none, chosen knowingly.
	Sandbox string  `yaml:"sandbox"`
	Actions Actions `yaml:"actions"`
	// Population, when set, makes scripted agents from this directory stand in for the
	// model: for trying the App without an LLM endpoint.
	Population string        `yaml:"population"`
	GitHub     GitHub        `yaml:"github"`
	Shutdown   time.Duration `yaml:"shutdown_grace"` // how long in-flight work may take on SIGTERM
}

// Actions configures the GitHub Actions judge (judge: actions).
type Actions struct {
	// BotVersion is what the runners `go install` (a tag or a commit of this module).
	BotVersion   string        `yaml:"bot_version"`
	PollInterval time.Duration `yaml:"poll_interval"` // fallback when a workflow_run webhook is missed
	FindTimeout  time.Duration `yaml:"find_timeout"`  // how long a dispatched run may take to appear
	RunTimeout   time.Duration `yaml:"run_timeout"`   // how long one classification run may take
	Retries      int           `yaml:"retries"`       // dispatches again after a cancelled or broken run
}

// GitHub identifies the App.
type GitHub struct {
	AppID          int64  `yaml:"app_id"`
	PrivateKeyFile string `yaml:"private_key_file"`
	WebhookSecret  string `yaml:"-"` // from a file or the environment only, never from YAML
	SecretFile     string `yaml:"webhook_secret_file"`
	BaseURL        string `yaml:"base_url"` // GitHub Enterprise Server: https://HOST/api/v3/
	GitURL         string `yaml:"git_url"`  // where repositories are cloned from; GitHub Enterprise Server: https://HOST/
}

// Defaults are used for every key nobody set.
func Defaults() Config {
	return Config{
		Listen: ":8080", MetricsListen: "127.0.0.1:9090", StateDir: "/var/lib/dixit", Label: "dixit", Workers: 4,
		Workshop: "{repo}-dixit", WorkshopCreate: true, LeaseTTL: 2 * time.Minute, Reconcile: 10 * time.Minute,
		Judge: "auto", Sandbox: "bwrap", Shutdown: 30 * time.Second,
		GitHub: GitHub{BaseURL: "https://api.github.com/", GitURL: "https://github.com/"},
	}
}

// Load reads the YAML file at path (if path is not empty), then the environment. Its
// errors name the file and the line of a bad key, or the variable that set it.
func Load(path string, getenv func(string) string) (Config, error) {
	c := Defaults()
	lines := strictyaml.Lines{}
	if path != "" {
		data, err := readLimited(path)
		if err != nil {
			return Config{}, err
		}
		if lines, err = strictyaml.Decode(path, data, &c); err != nil {
			return Config{}, err
		}
	}
	fromEnv, err := c.fromEnv(getenv)
	if err != nil {
		return Config{}, err
	}
	locate := func(err error) error {
		if e, ok := err.(*strictyaml.Error); ok && fromEnv[e.Key] != "" {
			// The variable won over the file: the line there is not the one to fix.
			return &strictyaml.Error{Key: fromEnv[e.Key], Err: e.Err}
		}
		return lines.Locate(path, err)
	}
	if c.GitHub.WebhookSecret == "" && c.GitHub.SecretFile != "" {
		data, err := readLimited(c.GitHub.SecretFile)
		if err != nil {
			return Config{}, locate(unreadable("github.webhook_secret_file", c.GitHub.SecretFile, err))
		}
		c.GitHub.WebhookSecret = strings.TrimSpace(string(data))
	}
	return c, locate(c.Validate())
}

// fromEnv applies DIXIT_* variables over the file's values and returns which keys they
// set, by key: workers → DIXIT_WORKERS.
func (c *Config) fromEnv(getenv func(string) string) (map[string]string, error) {
	set := map[string]string{}
	str := []struct {
		name, key string
		dst       *string
	}{
		{"DIXIT_LISTEN", "listen", &c.Listen}, {"DIXIT_METRICS_LISTEN", "metrics_listen", &c.MetricsListen},
		{"DIXIT_STATE_DIR", "state_dir", &c.StateDir},
		{"DIXIT_BUILD_CACHE", "build_cache", &c.BuildCache}, {"DIXIT_RESULT_CACHE", "result_cache", &c.ResultCache},
		{"DIXIT_LABEL", "label", &c.Label}, {"DIXIT_WORKSHOP", "workshop", &c.Workshop},
		{"DIXIT_JUDGE", "judge", &c.Judge}, {"DIXIT_SANDBOX", "sandbox", &c.Sandbox}, {"DIXIT_POPULATION", "population", &c.Population},
		{"DIXIT_NAME", "name", &c.Name}, {"DIXIT_ACTIONS_BOT_VERSION", "actions.bot_version", &c.Actions.BotVersion},
		{"DIXIT_GITHUB_PRIVATE_KEY_FILE", "github.private_key_file", &c.GitHub.PrivateKeyFile},
		{"DIXIT_WEBHOOK_SECRET", "github.webhook_secret", &c.GitHub.WebhookSecret},
		{"DIXIT_WEBHOOK_SECRET_FILE", "github.webhook_secret_file", &c.GitHub.SecretFile},
		{"DIXIT_GITHUB_BASE_URL", "github.base_url", &c.GitHub.BaseURL}, {"DIXIT_GITHUB_GIT_URL", "github.git_url", &c.GitHub.GitURL},
	}
	for _, v := range str {
		if val := getenv(v.name); val != "" {
			*v.dst, set[v.key] = val, v.name
		}
	}
	if v := getenv("DIXIT_GITHUB_APP_ID"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, envError("DIXIT_GITHUB_APP_ID", c.GitHub.AppID, v)
		}
		c.GitHub.AppID, set["github.app_id"] = id, "DIXIT_GITHUB_APP_ID"
	}
	if v := getenv("DIXIT_LEASE_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, envError("DIXIT_LEASE_TTL", c.LeaseTTL, v)
		}
		c.LeaseTTL, set["lease_ttl"] = d, "DIXIT_LEASE_TTL"
	}
	if v := getenv("DIXIT_WORKERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, envError("DIXIT_WORKERS", c.Workers, v)
		}
		c.Workers, set["workers"] = n, "DIXIT_WORKERS"
	}
	return set, nil
}

// envError says what variable name should hold, in the words the file's errors use.
func envError(name string, like any, got string) error {
	return &strictyaml.Error{Key: name, Err: fmt.Errorf("must be %s (got %q)", strictyaml.Describe(like), got)}
}

// botVersionRE is what `go install module@version` takes: a semantic version or a commit.
var botVersionRE = regexp.MustCompile(`^(v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?|[0-9a-f]{7,40})$`)

var labelRE = regexp.MustCompile(`^[^,\s][^,]{0,49}$`)

// ErrNoApp is Validate's error when no part of the App is configured (no id, private key or
// webhook secret) and every other setting is valid: bot serve can register one then.
var ErrNoApp = errors.New("github.app_id (DIXIT_GITHUB_APP_ID) is required: no GitHub App is configured")

// Validate names the first missing or bad setting. Missing secrets are errors: the server
// fails closed rather than accepting unsigned webhooks.
func (c Config) Validate() error {
	g := c.GitHub
	if g.AppID == 0 && g.PrivateKeyFile == "" && g.WebhookSecret == "" && g.SecretFile == "" {
		if err := c.validateServer(); err != nil {
			return err
		}
		return fmt.Errorf("%w (register one: bot setup, or bot serve --config FILE --public-url URL, FILE not there yet)", ErrNoApp)
	}
	switch {
	case g.AppID <= 0:
		return errors.New("github.app_id (DIXIT_GITHUB_APP_ID) is required")
	case g.PrivateKeyFile == "":
		return errors.New("github.private_key_file (DIXIT_GITHUB_PRIVATE_KEY_FILE) is required")
	case len(g.WebhookSecret) < 16:
		return errors.New("a webhook secret of at least 16 characters is required (DIXIT_WEBHOOK_SECRET, DIXIT_WEBHOOK_SECRET_FILE or github.webhook_secret_file): without it anyone could send the bot events")
	}
	if err := c.validateServer(); err != nil {
		return err
	}
	if _, err := os.Stat(g.PrivateKeyFile); err != nil {
		return unreadable("github.private_key_file", g.PrivateKeyFile, err)
	}
	return nil
}

// validateServer checks every setting but the App's identity and secrets.
func (c Config) validateServer() error {
	switch {
	case !strings.HasPrefix(c.GitHub.BaseURL, "https://") && !strings.HasPrefix(c.GitHub.BaseURL, "http://"):
		return strictyaml.Errorf("github.base_url", "must be an http(s) URL (got %q)", c.GitHub.BaseURL)
	case !strings.HasSuffix(c.GitHub.BaseURL, "/"):
		return strictyaml.Errorf("github.base_url", "must end with / (got %q)", c.GitHub.BaseURL)
	case !strings.HasPrefix(c.GitHub.GitURL, "https://") && !strings.HasPrefix(c.GitHub.GitURL, "http://"):
		return strictyaml.Errorf("github.git_url", "must be an http(s) URL (got %q)", c.GitHub.GitURL)
	case !strings.HasSuffix(c.GitHub.GitURL, "/"):
		return strictyaml.Errorf("github.git_url", "must end with / (got %q)", c.GitHub.GitURL)
	case c.Listen == "":
		return strictyaml.Errorf("listen", "must be an address such as :8080")
	case c.MetricsListen != "" && c.MetricsListen != "off" && !isHostPort(c.MetricsListen):
		return strictyaml.Errorf("metrics_listen", "must be an address such as 127.0.0.1:9090, or off (got %q)", c.MetricsListen)
	case c.StateDir == "":
		return strictyaml.Errorf("state_dir", "must be a directory")
	case !labelRE.MatchString(c.Label):
		return strictyaml.Errorf("label", "not a GitHub label name (got %q)", c.Label)
	case c.Workers < 1 || c.Workers > 64:
		return strictyaml.Errorf("workers", "must be between 1 and 64 (got %d)", c.Workers)
	case !strings.Contains(c.Workshop, "{repo}"):
		return strictyaml.Errorf("workshop", "must contain {repo}, so each repository gets its own workshop (got %q)", c.Workshop)
	case c.Judge != "local" && c.Judge != "actions" && c.Judge != "auto":
		return strictyaml.Errorf("judge", "must be auto, local or actions (got %q)", c.Judge)
	case c.Sandbox != "bwrap" && c.Sandbox != "none":
		return strictyaml.Errorf("sandbox", "must be bwrap or none (got %q): a server never falls back to running tests without a sandbox by itself", c.Sandbox)
	case c.Actions.BotVersion != "" && !botVersionRE.MatchString(c.Actions.BotVersion):
		return strictyaml.Errorf("actions.bot_version", "not a version go install takes, such as v0.4.0 or a commit (got %q)", c.Actions.BotVersion)
	case c.Judge == "actions" && !botVersionRE.MatchString(c.Actions.BotVersion):
		return strictyaml.Errorf("actions.bot_version", "required with judge: actions: the version of bot the runners install, a tag such as v0.4.0 or a commit (or DIXIT_ACTIONS_BOT_VERSION)")
	case c.Actions.PollInterval < 0:
		return strictyaml.Errorf("actions.poll_interval", "must be 0 (the default) or more (got %s)", c.Actions.PollInterval)
	case c.Actions.FindTimeout < 0:
		return strictyaml.Errorf("actions.find_timeout", "must be 0 (the default) or more (got %s)", c.Actions.FindTimeout)
	case c.Actions.RunTimeout < 0:
		return strictyaml.Errorf("actions.run_timeout", "must be 0 (the default) or more (got %s)", c.Actions.RunTimeout)
	case c.Actions.Retries < 0:
		return strictyaml.Errorf("actions.retries", "must be 0 or more (got %d)", c.Actions.Retries)
	case c.LeaseTTL < 10*time.Second || c.LeaseTTL > time.Hour:
		return strictyaml.Errorf("lease_ttl", "must be between 10s and 1h (got %s)", c.LeaseTTL)
	case c.Reconcile != 0 && (c.Reconcile < time.Minute || c.Reconcile > 24*time.Hour):
		return strictyaml.Errorf("reconcile_interval", "must be 0 (off) or between 1m and 24h (got %s)", c.Reconcile)
	case c.Shutdown < time.Second || c.Shutdown > time.Hour:
		return strictyaml.Errorf("shutdown_grace", "must be between 1s and 1h (got %s)", c.Shutdown)
	}
	return nil
}

// isHostPort reports whether addr is host:port, as net.Listen takes it.
func isHostPort(addr string) bool {
	_, port, err := net.SplitHostPort(addr)
	return err == nil && port != ""
}

// unreadable names the file key points at without the system call that failed.
func unreadable(key, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return strictyaml.Errorf(key, "cannot read %s: %w", path, err)
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > 1<<20 {
		return nil, fmt.Errorf("%s is larger than 1 MiB", path)
	}
	return data, nil
}
