package ghtest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

func (s *Server) repoRoutes() {
	s.handle("GET repos/{owner}/{repo}", s.getRepo)
	s.handle("POST orgs/{org}/repos", s.createOrgRepo)
	s.handle("GET repos/{owner}/{repo}/contents/{path...}", s.getContents)
	s.handle("GET repos/{owner}/{repo}/collaborators/{user}/permission", s.getPermission)
	s.handle("POST repos/{owner}/{repo}/check-runs", s.createCheckRun)
	s.handle("GET repos/{owner}/{repo}/check-runs/{id}", s.getCheckRun)
	s.handle("PATCH repos/{owner}/{repo}/check-runs/{id}", s.updateCheckRun)
	s.handle("GET repos/{owner}/{repo}/commits/{ref}/check-runs", s.listCheckRunsForRef)
	s.pullRoutes()
}

// repoInfo is what the fake knows of a repository.
type repoInfo struct {
	id           int64
	owner, name  string
	private      bool
	installation int64 // the installation that can see it; 0: none in particular
}

func repoKey(owner, repo string) string { return strings.ToLower(owner + "/" + repo) }

// AddRepo declares owner/name (or redeclares it: its visibility and installation
// change). Only known repositories exist for GET /repos/{owner}/{repo}, the issues list
// and POST /orgs/{org}/repos; AddIssue and SetFile declare theirs implicitly (public, no
// installation). installation is the one whose token lists it in
// GET /installation/repositories.
func (st *State) AddRepo(owner, name string, private bool, installation int64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	r := st.touchRepo(owner, name)
	r.private, r.installation = private, installation
}

// touchRepo returns owner/name's record, declaring it if needed. Callers hold st.mu.
func (st *State) touchRepo(owner, name string) *repoInfo {
	k := repoKey(owner, name)
	if r, ok := st.repos[k]; ok {
		return r
	}
	r := &repoInfo{id: st.id(), owner: owner, name: name}
	st.repos[k] = r
	return r
}

// repo returns owner/name's record. A fake where no repository was ever declared
// answers for any name (as it did before repositories were tracked), so tests that
// need no repository state need not declare one. Callers hold st.mu.
func (st *State) repo(owner, name string) (*repoInfo, bool) {
	if r, ok := st.repos[repoKey(owner, name)]; ok {
		return r, true
	}
	if len(st.repos) == 0 {
		return &repoInfo{id: 1296269, owner: owner, name: name}, true
	}
	return nil, false
}

// Repo reports whether owner/name exists and whether it is private.
func (st *State) Repo(owner, name string) (exists, private bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	r, ok := st.repos[repoKey(owner, name)]
	return ok, ok && r.private
}

// patchRepo writes a repository's identity into a repository-shaped example.
func (s *Server) patchRepo(rp obj, r *repoInfo) obj { return s.State.patchRepo(rp, r) }

func (st *State) patchRepo(rp obj, r *repoInfo) obj {
	full := r.owner + "/" + r.name
	rp["id"], rp["name"], rp["full_name"], rp["default_branch"] = r.id, r.name, full, "main"
	rp["private"], rp["visibility"] = r.private, "public"
	if r.private {
		rp["visibility"] = "private"
	}
	rp["url"] = st.apiURL + "repos/" + full
	rp["html_url"] = "https://github.com/" + full
	rp["owner"].(obj)["login"] = r.owner
	// GitHub's own examples omit "language", which its schema requires.
	rp["language"] = nil
	return rp
}

// fullRepo is the full-repository shape (GET /repos/{owner}/{repo}). Callers hold st.mu.
func (s *Server) fullRepo(r *repoInfo) obj {
	rp := s.patchRepo(s.State.example("full-repository-default-response"), r)
	delete(rp, "source")
	delete(rp, "parent")
	return rp
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request) {
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	rp, ok := st.repo(r.PathValue("owner"), r.PathValue("repo"))
	// An installation sees a private repository only if it is installed on it; to any
	// other installation GitHub answers 404, as if it did not exist.
	if ok && rp.private && rp.installation != 0 {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "token ")
		if inst := tokenInstallation(tok); inst != 0 && inst != rp.installation {
			ok = false
		}
	}
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, s.fullRepo(rp))
}

// AllowRepoCreation lets installations create repositories in org (POST
// /orgs/{org}/repos); without it GitHub answers 403, as for an App without the
// administration permission.
func (st *State) AllowRepoCreation(org string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.canCreate[strings.ToLower(org)] = true
}

const createOrgRepoDocs = "https://docs.github.com/rest/repos/repos#create-an-organization-repository"

func (s *Server) createOrgRepo(w http.ResponseWriter, r *http.Request) {
	inst, ok := installationAuth(w, r)
	if !ok {
		return
	}
	var in struct {
		Name       string `json:"name"`
		Private    *bool  `json:"private"`
		Visibility string `json:"visibility"`
	}
	if !decode(w, r, &in) {
		return
	}
	org := r.PathValue("org")
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.canCreate[strings.ToLower(org)] {
		writeJSON(w, http.StatusForbidden, obj{"message": "Resource not accessible by integration", "documentation_url": createOrgRepoDocs})
		return
	}
	invalid := func(code, msg string) {
		e := obj{"resource": "Repository", "code": code, "field": "name"}
		if msg != "" {
			e["message"] = msg
		}
		writeJSON(w, http.StatusUnprocessableEntity, obj{
			"message": "Repository creation failed.", "errors": []any{e}, "documentation_url": createOrgRepoDocs,
		})
	}
	if in.Name == "" {
		invalid("missing_field", "")
		return
	}
	if _, exists := st.repos[repoKey(org, in.Name)]; exists {
		invalid("custom", "name already exists on this account")
		return
	}
	private := in.Private != nil && *in.Private
	if in.Visibility != "" {
		private = in.Visibility == "private"
	}
	rp := st.touchRepo(org, in.Name)
	rp.private, rp.installation = private, inst
	out := s.fullRepo(rp)
	out["owner"].(obj)["type"] = "Organization"
	w.Header().Set("Location", out["url"].(string))
	writeJSON(w, http.StatusCreated, out)
}

func (s *Server) getContents(w http.ResponseWriter, r *http.Request) {
	owner, repo, path := r.PathValue("owner"), r.PathValue("repo"), r.PathValue("path")
	ref := r.URL.Query().Get("ref")
	if ref == "" {
		ref = "main"
	}
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	content, ok := st.files[fileKey(owner, repo, ref, path)]
	if !ok {
		notFound(w)
		return
	}
	f := st.example("content-file-response-if-content-is-a-file")
	name := path[strings.LastIndex(path, "/")+1:]
	f["name"], f["path"], f["size"] = name, path, len(content)
	f["content"], f["encoding"] = base64.StdEncoding.EncodeToString([]byte(content)), "base64"
	f["sha"] = fmt.Sprintf("%x", len(content)) + "fake"
	writeJSON(w, http.StatusOK, f)
}

func (s *Server) getPermission(w http.ResponseWriter, r *http.Request) {
	owner, repo, user := r.PathValue("owner"), r.PathValue("repo"), r.PathValue("user")
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	perm, ok := st.perms[owner+"/"+repo+"/"+user]
	if !ok {
		perm = "none"
	}
	p := st.example("repository-collaborator-permission-response-if-user-has-admin-permissions")
	p["permission"] = perm
	u := p["user"].(obj)
	u["login"] = user
	// GitHub's own example omits "role_name", which its schema requires.
	u["role_name"], p["role_name"] = perm, perm
	writeJSON(w, http.StatusOK, p)
}

// checkRunInput is the subset of create/update check run fields the fake keeps.
type checkRunInput struct {
	Name       *string `json:"name"`
	HeadSHA    *string `json:"head_sha"`
	Status     *string `json:"status"`
	Conclusion *string `json:"conclusion"`
	DetailsURL *string `json:"details_url"`
	ExternalID *string `json:"external_id"`
	Output     *struct {
		Title   string  `json:"title"`
		Summary string  `json:"summary"`
		Text    *string `json:"text"`
	} `json:"output"`
}

func (in checkRunInput) apply(c obj) {
	set := func(k string, v *string) {
		if v != nil {
			c[k] = *v
		}
	}
	set("name", in.Name)
	set("head_sha", in.HeadSHA)
	set("status", in.Status)
	set("conclusion", in.Conclusion)
	set("details_url", in.DetailsURL)
	set("external_id", in.ExternalID)
	if in.Conclusion != nil && in.Status == nil {
		c["status"] = "completed"
	}
	if in.Output != nil {
		out := c["output"].(obj)
		out["title"], out["summary"] = in.Output.Title, in.Output.Summary
		out["text"] = nil
		if in.Output.Text != nil {
			out["text"] = *in.Output.Text
		}
	}
}

func (s *Server) createCheckRun(w http.ResponseWriter, r *http.Request) {
	var in checkRunInput
	if !decode(w, r, &in) {
		return
	}
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	c := st.example("check-run")
	id := st.id()
	c["id"], c["status"], c["conclusion"], c["started_at"], c["completed_at"] = id, "queued", nil, now(), nil
	in.apply(c)
	st.checkRuns[id] = c
	writeJSON(w, http.StatusCreated, c)
}

func (s *Server) getCheckRun(w http.ResponseWriter, r *http.Request) {
	id, _ := pathInt(r, "id")
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	c, ok := st.checkRuns[id]
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, c)
}

func (s *Server) updateCheckRun(w http.ResponseWriter, r *http.Request) {
	var in checkRunInput
	if !decode(w, r, &in) {
		return
	}
	id, _ := pathInt(r, "id")
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	c, ok := st.checkRuns[id]
	if !ok {
		notFound(w)
		return
	}
	in.apply(c)
	if c["status"] == "completed" && c["completed_at"] == nil {
		c["completed_at"] = now()
	}
	writeJSON(w, http.StatusOK, c)
}

// CheckRun returns a stored check run's JSON object (nil if none).
func (st *State) CheckRun(id int64) map[string]any {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.checkRuns[id]
}

// listCheckRunsForRef lists the check runs on a commit (the fake knows refs only as
// commit SHAs), newest first, filtered by check_name and status as GitHub does.
func (s *Server) listCheckRunsForRef(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	q := r.URL.Query()
	st := s.State
	st.mu.Lock()
	var runs []obj
	for _, c := range st.checkRuns {
		if c["head_sha"] != ref {
			continue
		}
		if name := q.Get("check_name"); name != "" && c["name"] != name {
			continue
		}
		if status := q.Get("status"); status != "" && c["status"] != status {
			continue
		}
		runs = append(runs, c)
	}
	st.mu.Unlock()
	sort.Slice(runs, func(i, j int) bool { return runs[i]["id"].(int64) > runs[j]["id"].(int64) })
	lo, hi := s.paginate(w, r, len(runs))
	writeJSON(w, http.StatusOK, obj{"total_count": len(runs), "check_runs": append([]obj{}, runs[lo:hi]...)})
}
