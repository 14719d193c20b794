package ghtest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

func (s *Server) repoRoutes() {
	s.handle("GET repos/{owner}/{repo}", s.getRepo)
	s.handle("GET repos/{owner}/{repo}/contents/{path...}", s.getContents)
	s.handle("GET repos/{owner}/{repo}/collaborators/{user}/permission", s.getPermission)
	s.handle("POST repos/{owner}/{repo}/check-runs", s.createCheckRun)
	s.handle("GET repos/{owner}/{repo}/check-runs/{id}", s.getCheckRun)
	s.handle("PATCH repos/{owner}/{repo}/check-runs/{id}", s.updateCheckRun)
	s.pullRoutes()
}

func (s *Server) getRepo(w http.ResponseWriter, r *http.Request) {
	owner, repo := r.PathValue("owner"), r.PathValue("repo")
	s.State.mu.Lock()
	rp := s.State.example("full-repository-default-response")
	s.State.mu.Unlock()
	rp["name"], rp["full_name"], rp["default_branch"] = repo, owner+"/"+repo, "main"
	rp["owner"].(obj)["login"] = owner
	// GitHub's own example omits "language", which its schema requires.
	rp["language"] = nil
	delete(rp, "source")
	delete(rp, "parent")
	writeJSON(w, http.StatusOK, rp)
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
