package ghtest

import (
	"net/http"
	"strconv"
	"strings"
)

func (s *Server) pullRoutes() {
	s.handle("POST repos/{owner}/{repo}/pulls", s.createPull)
	s.handle("GET repos/{owner}/{repo}/pulls", s.listPulls)
	s.handle("GET repos/{owner}/{repo}/pulls/{n}", s.getPull)
	s.handle("PATCH repos/{owner}/{repo}/pulls/{n}", s.editPull)
	s.reviewRoutes()
}

type pullInput struct {
	Title *string `json:"title"`
	Body  *string `json:"body"`
	Head  *string `json:"head"`
	Base  *string `json:"base"`
	State *string `json:"state"`
	Draft *bool   `json:"draft"`
}

func (in pullInput) apply(p obj, repoOwner string) {
	if in.Title != nil {
		p["title"] = *in.Title
	}
	if in.Body != nil {
		p["body"] = *in.Body
	}
	if in.State != nil {
		p["state"] = *in.State
	}
	if in.Draft != nil {
		p["draft"] = *in.Draft
	}
	if in.Head != nil {
		owner, branch, ok := strings.Cut(*in.Head, ":")
		if !ok {
			owner, branch = repoOwner, *in.Head
		}
		// GitHub labels a head "owner:branch" whichever way it was given.
		p["head"].(obj)["ref"] = branch
		p["head"].(obj)["label"] = owner + ":" + branch
	}
	if in.Base != nil {
		p["base"].(obj)["ref"] = *in.Base
	}
}

// simplePull reshapes a stored pull request into GitHub's pull-request-simple.
func (st *State) simplePull(p obj) obj {
	out := st.example("pull-request-simple-items")
	for k := range out {
		if v, ok := p[k]; ok {
			out[k] = v
		}
	}
	return out
}

// createPull opens a pull request by the App's bot, numbered after every issue and pull
// request of the repository, as GitHub numbers them.
func (s *Server) createPull(w http.ResponseWriter, r *http.Request) {
	var in pullInput
	if !decode(w, r, &in) {
		return
	}
	owner, repo := r.PathValue("owner"), r.PathValue("repo")
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	p := st.newPull(owner, repo, st.nextNumber(owner, repo), st.botUser())
	in.apply(p, owner)
	st.putPull(owner, repo, p)
	writeJSON(w, http.StatusCreated, p)
}

func (s *Server) listPulls(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("owner") + "/" + r.PathValue("repo")
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	out := []obj{}
	for _, p := range st.pulls[key] {
		if state != "all" && p["state"] != state {
			continue
		}
		if h := q.Get("head"); h != "" && p["head"].(obj)["label"] != h && p["head"].(obj)["ref"] != h {
			continue
		}
		out = append(out, st.simplePull(p))
	}
	writeJSON(w, http.StatusOK, out)
}

// pull finds the pull request of the request's path by its number, or answers 404.
// Callers hold st.mu.
func (s *Server) pull(w http.ResponseWriter, r *http.Request) obj {
	n, _ := strconv.Atoi(r.PathValue("n"))
	p := s.State.findPull(r.PathValue("owner"), r.PathValue("repo"), n)
	if p == nil {
		notFound(w)
	}
	return p
}

func (s *Server) getPull(w http.ResponseWriter, r *http.Request) {
	s.State.mu.Lock()
	defer s.State.mu.Unlock()
	if p := s.pull(w, r); p != nil {
		writeJSON(w, http.StatusOK, p)
	}
}

// editPull changes a pull request and its issue, which share title, body and state.
func (s *Server) editPull(w http.ResponseWriter, r *http.Request) {
	var in pullInput
	if !decode(w, r, &in) {
		return
	}
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	p := s.pull(w, r)
	if p == nil {
		return
	}
	was := p["state"]
	in.apply(p, r.PathValue("owner"))
	p["updated_at"] = now()
	if p["state"] != was {
		p["closed_at"] = nil
		if p["state"] == "closed" {
			p["closed_at"] = now()
		}
	}
	if is, ok := st.issues[issueKey(r.PathValue("owner"), r.PathValue("repo"), p["number"].(int))]; ok {
		is["title"], is["body"], is["state"] = p["title"], p["body"], p["state"]
		is["closed_at"], is["updated_at"] = p["closed_at"], p["updated_at"]
	}
	writeJSON(w, http.StatusOK, p)
}
