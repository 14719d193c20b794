package appsetup

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync"
	"time"
)

// Setup is the registration server: the page that posts the manifest, the callback
// that exchanges the code, and a /webhook that collects GitHub's ping.
type Setup struct {
	opts     Options
	ends     endpoints
	manifest ManifestInput
	hc       *http.Client
	log      *slog.Logger
	state    string // ties the callback to a page this server rendered
	probe    string // answers the self-probe of the webhook URL

	mu         sync.Mutex
	exchanging bool // a callback is exchanging its code
	creds      *Credentials
	saved      Saved
	saveErr    error         // --out could not take them: Run prints them instead
	done       chan struct{} // closed once the credentials are known
	pings      []ping
}

// ping is one POST /webhook received while setting up.
type ping struct {
	event, signature string
	body             []byte
}

// New checks opts; base and options are deploy/app.yml and deploy/app-options.yml.
func New(opts Options, base, options []byte, hc *http.Client, log *slog.Logger) (*Setup, error) {
	ends, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	if opts.ServeConfig != "" { // the key and the secret go beside bot serve's --config
		opts.Out = filepath.Dir(opts.ServeConfig)
	}
	in := ManifestInput{Base: base, Options: options, Features: opts.Features, Name: opts.Name, HookURL: ends.hook}
	if _, err := Manifest(in); err != nil { // a bad opt-in fails now, not in the browser
		return nil, err
	}
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Setup{opts: opts, ends: ends, manifest: in, hc: hc, log: log,
		state: randomHex(16), probe: randomHex(16), done: make(chan struct{})}, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails on Linux (crypto/rand)
	return hex.EncodeToString(b)
}

// Handler serves the setup page (/ and /setup), the callback (/setup/callback) and /webhook.
func (s *Setup) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /setup", s.page)
	mux.HandleFunc("GET /setup/callback", s.callback)
	mux.HandleFunc("POST /webhook", s.webhook)
	mux.HandleFunc("GET /webhook", s.answerProbe)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	return mux
}

var pageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Register the Dixit GitHub App</title></head>
<body style="font-family: sans-serif; max-width: 44em; margin: 3em auto">
<h1>Register the Dixit GitHub App</h1>
<p>This sends the App's manifest to <b>{{.Host}}</b>, which shows every setting for review
before creating the App{{if .Org}} in the organization <b>{{.Org}}</b>{{else}} in your personal account{{end}}.
Its webhook will be <code>{{.Hook}}</code>.</p>
<p>Permissions asked for:</p>
<ul>{{range .Perms}}<li><code>{{.}}</code></li>{{end}}</ul>
<form action="{{.Action}}" method="post">
<input type="hidden" name="manifest" value="{{.Manifest}}">
<button type="submit">Register on {{.Host}}</button>
</form></body></html>`))

// page renders the form; redirect_url is this page's own address, as the browser used it,
// so the code comes back here even when only /webhook is published.
func (s *Setup) page(w http.ResponseWriter, r *http.Request) {
	in := s.manifest
	in.Redirect = requestBase(r) + "/setup/callback"
	m, err := Manifest(in)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	perms, err := permissionList(m)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTmpl.Execute(w, map[string]any{
		"Host": s.ends.web.Host, "Org": s.opts.Org, "Hook": s.ends.hook, "Perms": perms,
		"Action": NewAppURL(s.ends.web, s.opts.Org, s.state), "Manifest": string(m),
	})
}

func requestBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

var resultTmpl = template.Must(template.New("result").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Dixit GitHub App</title></head>
<body style="font-family: sans-serif; max-width: 44em; margin: 3em auto">
{{if .Err}}<h1>Registration did not finish</h1><p>{{.Err}}</p><p><a href="/">Start again</a></p>
{{else}}<h1>{{.Name}} is registered</h1>
<p>Its credentials are {{.Where}}. The terminal running <code>{{.Command}}</code> says what to do next.</p>
<p><a href="{{.Install}}">Install it on repositories</a></p>{{end}}
</body></html>`))

// callback receives GitHub's redirect with the code and exchanges it, once.
func (s *Setup) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	render := func(status int, data map[string]any) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		_ = resultTmpl.Execute(w, data)
	}
	// Fail closed: a code that did not come back from our own page is refused.
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(s.state)) != 1 {
		render(http.StatusBadRequest, map[string]any{"Err": "this link did not come from this setup page (its state does not match): register from the setup page"})
		return
	}
	code := q.Get("code")
	if code == "" {
		render(http.StatusBadRequest, map[string]any{"Err": "GitHub sent no code: the registration was cancelled on GitHub's page"})
		return
	}
	if taken := s.claim(); taken != "" {
		render(http.StatusConflict, map[string]any{"Err": taken})
		return
	}
	c, err := exchange(r.Context(), s.hc, s.ends.api, code)
	if err != nil {
		s.release()
		s.log.Error("setup: exchange the code", "err", err)
		render(http.StatusBadGateway, map[string]any{"Err": err.Error()})
		return
	}
	if err := s.keep(c); err != nil {
		s.log.Error("setup: keep the credentials", "err", err)
		render(http.StatusBadGateway, map[string]any{"Err": err.Error() + "; they are printed once in the terminal running " + s.opts.command() + " instead"})
		return
	}
	where := "printed in the terminal"
	if s.opts.Out != "" {
		where = "in " + s.opts.Out
	}
	render(http.StatusOK, map[string]any{"Name": c.Name, "Where": where, "Install": c.HTMLURL + "/installations/new", "Command": s.opts.command()})
}

// claim lets one callback exchange its code at a time, and none after one succeeded; it
// returns why not, or "".
func (s *Setup) claim() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.creds != nil:
		return "the App " + s.creds.Slug + " is registered already; stop " + s.opts.command() + " and run bot setup to register another"
	case s.exchanging:
		return "a registration is being completed already; wait for it"
	}
	s.exchanging = true
	return ""
}

func (s *Setup) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.exchanging = false
}

// keep saves the credentials where --out says, and hands them to Run. If they cannot be
// saved, Run prints them rather than lose them: GitHub never shows the key again.
func (s *Setup) keep(c Credentials) error {
	var err error
	var saved Saved
	if s.opts.Out != "" {
		saved, err = save(s.opts.Out, c, s.ends, s.opts)
		if err != nil {
			err = fmt.Errorf("the App %s exists on GitHub but its credentials were not saved: %w", c.HTMLURL, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.creds, s.saved, s.saveErr = &c, saved, err
	close(s.done)
	return err
}

// webhook keeps what arrives (GitHub pings the new App's webhook when it creates it, before
// the code comes back); its signature is checked once the secret is known.
func (s *Setup) webhook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if len(s.pings) < 16 {
		s.pings = append(s.pings, ping{event: r.Header.Get("X-GitHub-Event"), signature: r.Header.Get("X-Hub-Signature-256"), body: body})
	}
	s.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, "bot setup is running here; bot serve will answer deliveries\n")
}

// answerProbe lets the setup check that the public webhook URL leads to this server.
func (s *Setup) answerProbe(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(probeHeader) != s.probe {
		http.Error(w, "webhooks are POSTed", http.StatusMethodNotAllowed)
		return
	}
	_, _ = io.WriteString(w, s.probe)
}
