package ghtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// obj is a JSON object as the fake stores and sends it.
type obj = map[string]any

// State is the fake's in-memory GitHub. Objects start from the examples in GitHub's
// description and are patched with the values a test or a request supplies.
type State struct {
	spec *Spec

	mu          sync.Mutex
	nextID      int64
	issues      map[string]obj // "o/r#n"
	comments    map[int64]obj
	commentKeys map[int64]string // comment id -> "o/r#n"
	files       map[string]string
	checkRuns   map[int64]obj
	pulls       map[string][]obj // "o/r"
	perms       map[string]string
	deliveries  []obj
	tokens      int
	tokenLog    []TokenRequest
}

func newState(spec *Spec) *State {
	return &State{
		spec: spec, nextID: 1000,
		issues: map[string]obj{}, comments: map[int64]obj{}, commentKeys: map[int64]string{},
		files: map[string]string{}, checkRuns: map[int64]obj{}, pulls: map[string][]obj{},
		perms: map[string]string{},
	}
}

func issueKey(owner, repo string, n int) string { return fmt.Sprintf("%s/%s#%d", owner, repo, n) }

func fileKey(owner, repo, ref, path string) string {
	return owner + "/" + repo + "@" + ref + ":" + path
}

// example returns a fresh copy of a named example as an object; a broken embedded
// description is a bug in ghtest, so it panics.
func (st *State) example(name string) obj {
	v, err := st.spec.Example(name)
	if err != nil {
		panic(fmt.Sprintf("ghtest: %v", err))
	}
	if list, ok := v.([]any); ok {
		v = list[0]
	}
	return v.(obj)
}

func (st *State) id() int64 {
	st.nextID++
	return st.nextID
}

// AddIssue creates issue number n in owner/repo.
func (st *State) AddIssue(owner, repo string, n int, title, body string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	is := st.example("issue")
	is["number"], is["title"], is["body"], is["state"] = n, title, body, "open"
	is["id"] = st.id()
	delete(is, "pull_request")
	st.issues[issueKey(owner, repo, n)] = is
}

// SetFile stores a file's content at ref ("" is the default branch, "main").
func (st *State) SetFile(owner, repo, ref, path, content string) {
	if ref == "" {
		ref = "main"
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.files[fileKey(owner, repo, ref, path)] = content
}

// SetPermission sets user's permission on owner/repo ("admin", "write", "read", "none").
func (st *State) SetPermission(owner, repo, user, perm string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.perms[owner+"/"+repo+"/"+user] = perm
}

// AddDelivery records a webhook delivery for GET /app/hook/deliveries.
func (st *State) AddDelivery(guid, event, action string, status int) int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	d := st.example("hook-delivery-items")
	id := st.id()
	d["id"], d["guid"], d["event"], d["action"] = id, guid, event, action
	d["status_code"], d["status"] = status, http.StatusText(status)
	d["delivered_at"] = time.Now().UTC().Format(time.RFC3339)
	d["redelivery"] = false
	st.deliveries = append(st.deliveries, d)
	return id
}

// Comments returns the bodies of the comments on an issue, oldest first.
func (st *State) Comments(owner, repo string, n int) []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []string
	for _, c := range st.sortedComments(issueKey(owner, repo, n)) {
		out = append(out, c["body"].(string))
	}
	return out
}

func (st *State) sortedComments(key string) []obj {
	var ids []int64
	for id, k := range st.commentKeys {
		if k == key {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	out := make([]obj, 0, len(ids))
	for _, id := range ids {
		out = append(out, st.comments[id])
	}
	return out
}

// writeJSON sends v with GitHub's content type.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// notFound is GitHub's 404 body.
func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, obj{
		"message": "Not Found", "documentation_url": "https://docs.github.com/rest",
	})
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeJSON(w, http.StatusBadRequest, obj{"message": "Problems parsing JSON: " + err.Error()})
		return false
	}
	return true
}

func pathInt(r *http.Request, name string) (int64, bool) {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	return n, err == nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339) }
