package ghtest

import (
	"net/http"
	"strconv"
)

func (s *Server) routes() {
	s.handle("GET repos/{owner}/{repo}/issues/{n}", s.getIssue)
	// One pattern for both GET issues/{n}/comments and GET issues/comments/{id}: the two
	// overlap (issues/comments/comments), which ServeMux rejects.
	s.handle("GET repos/{owner}/{repo}/issues/{a}/{b}", s.getIssueSub)
	s.handle("POST repos/{owner}/{repo}/issues/{n}/comments", s.createComment)
	s.handle("PATCH repos/{owner}/{repo}/issues/comments/{id}", s.editComment)
	s.repoRoutes()
	s.appRoutes()
}

func (s *Server) getIssue(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	is, ok := st.issues[issueKey(r.PathValue("owner"), r.PathValue("repo"), n)]
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, is)
}

func (s *Server) getIssueSub(w http.ResponseWriter, r *http.Request) {
	a, b := r.PathValue("a"), r.PathValue("b")
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case a == "comments":
		id, _ := strconv.ParseInt(b, 10, 64)
		c, ok := st.comments[id]
		if !ok {
			notFound(w)
			return
		}
		writeJSON(w, http.StatusOK, c)
	case b == "comments":
		n, _ := strconv.Atoi(a)
		key := issueKey(r.PathValue("owner"), r.PathValue("repo"), n)
		writeJSON(w, http.StatusOK, st.sortedComments(key))
	default:
		notFound(w)
	}
}

func (s *Server) createComment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Body string `json:"body"`
	}
	if !decode(w, r, &in) {
		return
	}
	n, _ := strconv.Atoi(r.PathValue("n"))
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	c := st.example("issue-comment")
	id := st.id()
	c["id"], c["body"], c["created_at"], c["updated_at"] = id, in.Body, now(), now()
	c["url"] = s.URL + "repos/" + r.PathValue("owner") + "/" + r.PathValue("repo") +
		"/issues/comments/" + strconv.FormatInt(id, 10)
	st.comments[id] = c
	st.commentKeys[id] = issueKey(r.PathValue("owner"), r.PathValue("repo"), n)
	writeJSON(w, http.StatusCreated, c)
}

func (s *Server) editComment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Body string `json:"body"`
	}
	if !decode(w, r, &in) {
		return
	}
	id, _ := pathInt(r, "id")
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	c, ok := st.comments[id]
	if !ok {
		notFound(w)
		return
	}
	c["body"], c["updated_at"] = in.Body, now()
	writeJSON(w, http.StatusOK, c)
}
