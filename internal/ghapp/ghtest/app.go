package ghtest

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// TokenRequest is one installation token the fake handed out.
type TokenRequest struct {
	InstallationID int64
	Token          string
	Authorization  string // the app JWT it was fetched with
}

func (s *Server) appRoutes() {
	s.handle("GET app", s.getApp)
	s.handle("GET app/installations", s.listInstallations)
	s.handle("POST app/installations/{id}/access_tokens", s.createToken)
	s.handle("GET installation/repositories", s.listInstallationRepos)
	s.handle("GET app/hook/deliveries", s.listDeliveries)
	s.handle("POST app/hook/deliveries/{id}/attempts", s.redeliver)
}

func (s *Server) getApp(w http.ResponseWriter, r *http.Request) {
	if !appAuth(w, r) {
		return
	}
	s.State.mu.Lock()
	defer s.State.mu.Unlock()
	a := s.State.example("integration")
	a["slug"] = botSlug
	writeJSON(w, http.StatusOK, a)
}

// BotLogin is the login of the App's bot user ("<slug>[bot]" on GitHub): the author of
// the pull requests and reviews the fake's callers create. The fake knows no other
// caller: whatever the credentials, that is who acts.
const BotLogin = botSlug + "[bot]"

const botSlug = "dixit-bot"

// botUser is the App's bot user as GitHub shows it. Callers hold st.mu.
func (st *State) botUser() obj {
	u := st.example("pull-request")["user"].(obj)
	for k, v := range u {
		if s, ok := v.(string); ok {
			u[k] = strings.ReplaceAll(s, "users/octocat", "users/"+url.PathEscape(BotLogin))
		}
	}
	u["login"], u["id"], u["node_id"], u["type"] = BotLogin, int64(900001), "BOT_fake_dixit", "Bot"
	u["html_url"] = "https://github.com/apps/" + botSlug
	return u
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request) {
	id, _ := pathInt(r, "id")
	if !appAuth(w, r) {
		return
	}
	auth := r.Header.Get("Authorization")
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	st.tokens++
	tok := st.example("installation-token")
	token := fmt.Sprintf("ghs_fake_%d_%d", id, st.tokens)
	tok["token"] = token
	tok["expires_at"] = time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	st.tokenLog = append(st.tokenLog, TokenRequest{InstallationID: id, Token: token, Authorization: auth})
	writeJSON(w, http.StatusCreated, tok)
}

// Tokens returns the installation tokens handed out so far.
func (st *State) Tokens() []TokenRequest {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]TokenRequest(nil), st.tokenLog...)
}

// AddInstallation installs the App on account (an organization) as installation id, for
// GET /app/installations. Repositories join it with AddRepo.
func (st *State) AddInstallation(id int64, account string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	in := st.example("base-installation-items")
	in["id"] = id
	acc := in["account"].(obj)
	acc["login"], acc["type"] = account, "Organization"
	// The description's account is allOf [simple-user, enterprise] (anyOf is meant), so
	// it must also carry an enterprise's required fields, which its example lacks.
	acc["name"], acc["slug"], acc["created_at"], acc["updated_at"] = account, account, in["created_at"], in["updated_at"]
	in["access_tokens_url"] = fmt.Sprintf("https://api.github.com/app/installations/%d/access_tokens", id)
	in["html_url"] = fmt.Sprintf("https://github.com/organizations/%s/settings/installations/%d", account, id)
	st.installations = append(st.installations, in)
}

func (s *Server) listInstallations(w http.ResponseWriter, r *http.Request) {
	if !appAuth(w, r) {
		return
	}
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	lo, hi := s.paginate(w, r, len(st.installations))
	writeJSON(w, http.StatusOK, append([]obj{}, st.installations[lo:hi]...))
}

// listInstallationRepos lists the repositories of the token's installation; a token the
// fake did not issue sees every repository.
func (s *Server) listInstallationRepos(w http.ResponseWriter, r *http.Request) {
	inst, ok := installationAuth(w, r)
	if !ok {
		return
	}
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	var repos []*repoInfo
	for _, rp := range st.repos {
		if inst == 0 || rp.installation == inst {
			repos = append(repos, rp)
		}
	}
	slices.SortFunc(repos, func(a, b *repoInfo) int { return strings.Compare(repoKey(a.owner, a.name), repoKey(b.owner, b.name)) })
	lo, hi := s.paginate(w, r, len(repos))
	out := []obj{}
	for _, rp := range repos[lo:hi] {
		out = append(out, s.patchRepo(st.example("repository-paginated-2")["repositories"].([]any)[0].(obj), rp))
	}
	writeJSON(w, http.StatusOK, obj{"total_count": len(repos), "repositories": out, "repository_selection": "selected"})
}

// Delivery is one attempt at delivering a webhook, for GET /app/hook/deliveries.
type Delivery struct {
	GUID           string // X-GitHub-Delivery; redeliveries keep it
	Event, Action  string
	StatusCode     int       // the receiver's answer; 0: none (timed out)
	Status         string    // "": "OK" for 2xx, "Timed out" for 0, else "Invalid HTTP Response: <code>"
	DeliveredAt    time.Time // zero: now
	InstallationID int64
	RepositoryID   int64
	Redelivery     bool
}

func deliveryStatus(code int) string {
	switch {
	case code == 0:
		return "Timed out"
	case code >= 200 && code < 300:
		return "OK"
	}
	return fmt.Sprintf("Invalid HTTP Response: %d", code)
}

// AddDelivery records a webhook delivery and returns its id.
func (st *State) AddDelivery(d Delivery) int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.addDelivery(d)
}

func (st *State) addDelivery(d Delivery) int64 {
	if d.Status == "" {
		d.Status = deliveryStatus(d.StatusCode)
	}
	if d.DeliveredAt.IsZero() {
		d.DeliveredAt = time.Now()
	}
	e := st.example("hook-delivery-items")
	id := st.id()
	e["id"], e["guid"], e["event"], e["action"] = id, d.GUID, d.Event, d.Action
	if d.Action == "" {
		e["action"] = nil
	}
	e["status_code"], e["status"], e["redelivery"] = d.StatusCode, d.Status, d.Redelivery
	e["delivered_at"] = d.DeliveredAt.UTC().Format(time.RFC3339)
	e["installation_id"], e["repository_id"] = d.InstallationID, d.RepositoryID
	if d.InstallationID == 0 {
		e["installation_id"] = nil
	}
	if d.RepositoryID == 0 {
		e["repository_id"] = nil
	}
	e["throttled_at"] = nil
	st.deliveries = append(st.deliveries, e)
	return id
}

// SetRedeliveryStatus sets the status code the fake records for redelivery attempts
// from now on; by default an attempt gets its original delivery's status code.
func (st *State) SetRedeliveryStatus(code int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.redeliverWith = &code
}

// Redeliveries returns the ids of the deliveries redelivery was asked for, in order.
func (st *State) Redeliveries() []int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]int64(nil), st.redeliveries...)
}

// listDeliveries lists deliveries newest first, per_page at a time; the Link header's
// next page carries a cursor, as GitHub's does.
func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request) {
	if !appAuth(w, r) {
		return
	}
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	q := r.URL.Query()
	var all []obj
	for _, d := range st.deliveries {
		code := d["status_code"].(int)
		ok := code >= 200 && code < 400
		if f := q.Get("status"); (f == "success" && !ok) || (f == "failure" && ok) {
			continue
		}
		all = append(all, d)
	}
	slices.SortStableFunc(all, func(a, b obj) int {
		if c := strings.Compare(b["delivered_at"].(string), a["delivered_at"].(string)); c != 0 {
			return c
		}
		return int(b["id"].(int64) - a["id"].(int64))
	})
	start := 0
	if c := q.Get("cursor"); c != "" {
		id, err := strconv.ParseInt(strings.TrimPrefix(c, "v1_"), 10, 64)
		start = slices.IndexFunc(all, func(d obj) bool { return d["id"] == id })
		if err != nil || start < 0 {
			writeJSON(w, http.StatusBadRequest, obj{"message": "Invalid cursor", "documentation_url": "https://docs.github.com/rest"})
			return
		}
	}
	end := min(start+perPage(r), len(all))
	if end < len(all) {
		q.Set("cursor", fmt.Sprintf("v1_%d", all[end]["id"]))
		w.Header().Set("Link", fmt.Sprintf("<%s?%s>; rel=\"next\"", s.absolute(r), q.Encode()))
	}
	writeJSON(w, http.StatusOK, append([]obj{}, all[start:end]...))
}

// redeliver records a redelivery of a delivery: a new attempt with the same guid.
func (s *Server) redeliver(w http.ResponseWriter, r *http.Request) {
	if !appAuth(w, r) {
		return
	}
	id, _ := pathInt(r, "id")
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	i := slices.IndexFunc(st.deliveries, func(d obj) bool { return d["id"] == id })
	if i < 0 {
		notFound(w)
		return
	}
	d := st.deliveries[i]
	code := d["status_code"].(int)
	if st.redeliverWith != nil {
		code = *st.redeliverWith
	}
	action, _ := d["action"].(string)
	inst, _ := d["installation_id"].(int64)
	repo, _ := d["repository_id"].(int64)
	st.redeliveries = append(st.redeliveries, id)
	st.addDelivery(Delivery{GUID: d["guid"].(string), Event: d["event"].(string), Action: action,
		StatusCode: code, InstallationID: inst, RepositoryID: repo, Redelivery: true})
	writeJSON(w, http.StatusAccepted, obj{})
}
