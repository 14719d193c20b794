package ghtest

import (
	"fmt"
	"net/http"
	"strconv"
)

func (s *Server) reviewRoutes() {
	s.handle("GET repos/{owner}/{repo}/pulls/{n}/reviews", s.listReviews)
	s.handle("POST repos/{owner}/{repo}/pulls/{n}/reviews", s.createReview)
	s.handle("PUT repos/{owner}/{repo}/pulls/{n}/reviews/{id}", s.updateReview)
}

// Review is a pull request review as State.Reviews reports it.
type Review struct {
	ID       int64
	Body     string
	State    string // APPROVED, CHANGES_REQUESTED, COMMENTED or PENDING
	CommitID string
	User     string // login
}

// Reviews returns the reviews of pull request n of owner/repo, oldest first.
func (st *State) Reviews(owner, repo string, n int) []Review {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []Review
	for _, rv := range st.reviews[issueKey(owner, repo, n)] {
		out = append(out, Review{
			ID: rv["id"].(int64), Body: rv["body"].(string), State: rv["state"].(string),
			CommitID: rv["commit_id"].(string), User: rv["user"].(obj)["login"].(string),
		})
	}
	return out
}

// reviewStates maps a review's event to the state GitHub gives it.
var reviewStates = map[string]string{"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}

const createReviewDocs = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"

// listReviews lists a pull request's reviews in chronological order, as GitHub does.
// GitHub shows a PENDING review only to its author; here every caller is the bot.
func (s *Server) listReviews(w http.ResponseWriter, r *http.Request) {
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	p := s.pull(w, r)
	if p == nil {
		return
	}
	all := st.reviews[issueKey(r.PathValue("owner"), r.PathValue("repo"), p["number"].(int))]
	lo, hi := s.paginate(w, r, len(all))
	writeJSON(w, http.StatusOK, append([]obj{}, all[lo:hi]...))
}

// createReview reviews a pull request as the App's bot. Without an event the review is
// PENDING (not submitted: no submitted_at). Like GitHub, it refuses with 422 a
// REQUEST_CHANGES or COMMENT without a body, an approval or change request of one's own
// pull request, and a second pending review by the same user. Inline comments are not
// supported.
func (s *Server) createReview(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Body     string `json:"body"`
		Event    string `json:"event"`
		CommitID string `json:"commit_id"`
		Comments []any  `json:"comments"`
	}
	if !decode(w, r, &in) {
		return
	}
	if len(in.Comments) > 0 {
		s.t.Errorf("ghtest: %s %s: review comments are not supported by the fake", r.Method, r.URL.Path)
	}
	st := s.State
	st.mu.Lock()
	defer st.mu.Unlock()
	p := s.pull(w, r)
	if p == nil {
		return
	}
	key := issueKey(r.PathValue("owner"), r.PathValue("repo"), p["number"].(int))
	user := st.botUser()
	state, submitted := reviewStates[in.Event], in.Event != ""
	if !submitted {
		state = "PENDING"
	}
	refuse := func(why string) {
		writeJSON(w, http.StatusUnprocessableEntity, obj{
			"message": "Unprocessable Entity", "errors": []any{why}, "documentation_url": createReviewDocs,
		})
	}
	own := p["user"].(obj)["login"] == user["login"]
	switch {
	case in.Body == "" && in.Event == "REQUEST_CHANGES":
		refuse("You need to leave a comment indicating the requested changes.")
		return
	case in.Body == "" && in.Event == "COMMENT":
		refuse("Body can't be blank")
		return
	case own && in.Event == "APPROVE":
		refuse("Can not approve your own pull request")
		return
	case own && in.Event == "REQUEST_CHANGES":
		refuse("Can not request changes on your own pull request")
		return
	case !submitted && st.pendingReview(key, user["login"]):
		refuse("User can only have one pending review per pull request")
		return
	}
	if in.CommitID == "" {
		in.CommitID = p["head"].(obj)["sha"].(string)
	}
	rv := st.example("pull-request-review")
	id := st.id()
	html := fmt.Sprintf("%s#pullrequestreview-%d", p["html_url"], id)
	rv["id"], rv["user"], rv["body"], rv["state"], rv["commit_id"] = id, user, in.Body, state, in.CommitID
	rv["html_url"], rv["pull_request_url"], rv["author_association"] = html, p["url"], "NONE"
	rv["_links"] = obj{"html": obj{"href": html}, "pull_request": obj{"href": p["url"]}}
	rv["node_id"] = "PRR_fake_" + strconv.FormatInt(id, 10)
	delete(rv, "submitted_at")
	if submitted {
		rv["submitted_at"] = now()
	}
	st.reviews[key] = append(st.reviews[key], rv)
	writeJSON(w, http.StatusOK, rv)
}

// pendingReview reports whether login has a PENDING review among key's. Callers hold
// st.mu.
func (st *State) pendingReview(key string, login any) bool {
	for _, rv := range st.reviews[key] {
		if rv["state"] == "PENDING" && rv["user"].(obj)["login"] == login {
			return true
		}
	}
	return false
}

// updateReview changes a review's body; a review of another pull request is not found.
func (s *Server) updateReview(w http.ResponseWriter, r *http.Request) {
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
	p := s.pull(w, r)
	if p == nil {
		return
	}
	for _, rv := range st.reviews[issueKey(r.PathValue("owner"), r.PathValue("repo"), p["number"].(int))] {
		if rv["id"] == id {
			rv["body"] = in.Body
			writeJSON(w, http.StatusOK, rv)
			return
		}
	}
	notFound(w)
}
