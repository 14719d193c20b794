package ghtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// obj is a JSON object as the fake stores and sends it.
type obj = map[string]any

// State is the fake's in-memory GitHub. Objects start from the examples in GitHub's
// description and are patched with the values a test or a request supplies.
type State struct {
	spec   *Spec
	apiURL string // the fake's base URL, with BasePath and a trailing slash

	mu          sync.Mutex
	nextID      int64
	issues      map[string]obj // "o/r#n"
	comments    map[int64]obj
	commentKeys map[int64]string // comment id -> "o/r#n"
	files       map[string]string
	checkRuns   map[int64]obj
	pulls       map[string][]obj // "o/r", in creation order
	reviews     map[string][]obj // "o/r#n", in creation order
	perms       map[string]string
	deliveries  []obj
	tokens      int
	tokenLog    []TokenRequest

	repos         map[string]*repoInfo // lower("o/r")
	installations []obj
	canCreate     map[string]bool // lower(org): POST /orgs/{org}/repos allowed
	redeliveries  []int64
	redeliverWith *int // status_code of redelivery attempts; nil: the original's
	// manifestCodes: the manifest flow's codes, each to the App it converts to.
	manifestCodes map[string]*ManifestApp
}

func newState(spec *Spec, apiURL string) *State {
	return &State{
		spec: spec, apiURL: apiURL, nextID: 1000,
		issues: map[string]obj{}, comments: map[int64]obj{}, commentKeys: map[int64]string{},
		files: map[string]string{}, checkRuns: map[int64]obj{}, pulls: map[string][]obj{}, reviews: map[string][]obj{},
		perms: map[string]string{}, repos: map[string]*repoInfo{}, canCreate: map[string]bool{},
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

// AddIssue creates open issue number n in owner/repo, without labels. The repository
// becomes known (see AddRepo) if it was not.
func (st *State) AddIssue(owner, repo string, n int, title, body string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.touchRepo(owner, repo)
	st.issues[issueKey(owner, repo, n)] = st.newIssue(owner, repo, n, title, body)
}

// newIssue is an open issue without labels. Callers hold st.mu.
func (st *State) newIssue(owner, repo string, n int, title, body string) obj {
	is := st.example("issue")
	is["number"], is["title"], is["body"], is["state"] = n, title, body, "open"
	is["id"] = st.id()
	is["repository_url"] = fmt.Sprintf("%srepos/%s/%s", st.apiURL, owner, repo)
	is["labels"] = []any{}
	is["closed_at"], is["closed_by"], is["state_reason"] = nil, nil, nil
	delete(is, "pull_request")
	return is
}

// AddPullRequestIssue adds pull request number n as the issues API shows it: an issue
// with a "pull_request" key, listed by GET /repos/{owner}/{repo}/issues. It does not
// create a pull request for the pulls API (AddPull does both).
func (st *State) AddPullRequestIssue(owner, repo string, n int, title string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.touchRepo(owner, repo)
	st.issues[issueKey(owner, repo, n)] = st.pullIssue(owner, repo, n, title, "")
}

// pullIssue is pull request n as the issues API shows it. Callers hold st.mu.
func (st *State) pullIssue(owner, repo string, n int, title, body string) obj {
	is := st.newIssue(owner, repo, n, title, body)
	pr := st.example("issue")["pull_request"].(obj)
	pr["url"] = fmt.Sprintf("%srepos/%s/%s/pulls/%d", st.apiURL, owner, repo, n)
	pr["html_url"] = fmt.Sprintf("https://github.com/%s/%s/pull/%d", owner, repo, n)
	pr["diff_url"], pr["patch_url"] = pr["html_url"].(string)+".diff", pr["html_url"].(string)+".patch"
	pr["merged_at"] = nil
	is["pull_request"] = pr
	return is
}

// AddLabel puts a label on issue n of owner/repo (a no-op if it already has it, in any
// case); on a pull request, the pulls API shows it too. The issue must exist.
func (st *State) AddLabel(owner, repo string, n int, label string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.addLabel(owner, repo, n, label)
}

// addLabel is AddLabel for callers that hold st.mu.
func (st *State) addLabel(owner, repo string, n int, label string) {
	is := st.mustIssue(owner, repo, n)
	labels, _ := is["labels"].([]any)
	for _, l := range labels {
		if strings.EqualFold(l.(obj)["name"].(string), label) {
			return
		}
	}
	l := st.example("issue")["labels"].([]any)[0].(obj)
	l["id"], l["name"], l["description"], l["default"] = st.id(), label, nil, false
	l["url"] = fmt.Sprintf("https://api.github.com/repos/%s/%s/labels/%s", owner, repo, url.PathEscape(label))
	is["labels"] = append(labels, l)
	// A pull request's labels are its issue's.
	if p := st.findPull(owner, repo, n); p != nil {
		p["labels"] = append(p["labels"].([]any), l)
	}
}

// CloseIssue closes issue n of owner/repo as completed (a pull request: closed without
// merging). The issue must exist.
func (st *State) CloseIssue(owner, repo string, n int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	is := st.mustIssue(owner, repo, n)
	is["state"], is["closed_at"], is["state_reason"] = "closed", now(), "completed"
	if p := st.findPull(owner, repo, n); p != nil {
		p["state"], p["closed_at"] = "closed", is["closed_at"]
	}
}

func (st *State) mustIssue(owner, repo string, n int) obj {
	is, ok := st.issues[issueKey(owner, repo, n)]
	if !ok {
		panic(fmt.Sprintf("ghtest: no issue %s", issueKey(owner, repo, n)))
	}
	return is
}

// SetFile stores a file's content at ref ("" is the default branch, "main").
func (st *State) SetFile(owner, repo, ref, path, content string) {
	if ref == "" {
		ref = "main"
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.touchRepo(owner, repo)
	st.files[fileKey(owner, repo, ref, path)] = content
}

// SetPermission sets user's permission on owner/repo ("admin", "write", "read", "none").
func (st *State) SetPermission(owner, repo, user, perm string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.perms[owner+"/"+repo+"/"+user] = perm
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
