package ghtest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

func (s *Server) routes() {
	s.handle("GET repos/{owner}/{repo}/issues", s.listIssues)
	s.handle("GET repos/{owner}/{repo}/issues/{n}", s.getIssue)
	// One pattern for both GET issues/{n}/comments and GET issues/comments/{id}: the two
	// overlap (issues/comments/comments), which ServeMux rejects.
	s.handle("GET repos/{owner}/{repo}/issues/{a}/{b}", s.getIssueSub)
	s.handle("POST repos/{owner}/{repo}/issues/{n}/comments", s.createComment)
	s.handle("PATCH repos/{owner}/{repo}/issues/comments/{id}", s.editComment)
	s.repoRoutes()
	s.appRoutes()
	s.actionRoutes()
	s.manifestRoutes()
}

// listIssues lists a repository's issues and pull requests (those carry a
// "pull_request" key), newest first unless direction=asc, filtered by state (open by
// default) and by labels (comma-separated; an issue must have all of them, in any case).
func (s *Server) listIssues(w http.ResponseWriter, r *http.Request) {
	owner, repo := r.PathValue("owner"), r.PathValue("repo")
	q := r.URL.Query()
	state := q.Get("state")
	if state == "" {
		state = "open"
	}
	var want []string
	for l := range strings.SplitSeq(q.Get("labels"), ",") {
		if l = strings.TrimSpace(l); l != "" {
			want = append(want, l)
		}
	}
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.repo(owner, repo); !ok {
		notFound(w)
		return
	}
	prefix := owner + "/" + repo + "#"
	var out []obj
	for k, is := range st.issues {
		if !strings.HasPrefix(k, prefix) || (state != "all" && is["state"] != state) || !hasLabels(is, want) {
			continue
		}
		out = append(out, is)
	}
	slices.SortFunc(out, func(a, b obj) int {
		if q.Get("direction") == "asc" {
			a, b = b, a
		}
		return int(b["id"].(int64) - a["id"].(int64))
	})
	lo, hi := s.paginate(w, r, len(out))
	writeJSON(w, http.StatusOK, append([]obj{}, out[lo:hi]...))
}

func hasLabels(is obj, want []string) bool {
	labels, _ := is["labels"].([]any)
	for _, w := range want {
		if !slices.ContainsFunc(labels, func(l any) bool { return strings.EqualFold(l.(obj)["name"].(string), w) }) {
			return false
		}
	}
	return true
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
	c["user"] = st.botUser() // the fake's only caller is the App
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
