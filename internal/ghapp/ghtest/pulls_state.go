package ghtest

import (
	"fmt"
	"strconv"
	"strings"
)

// PullSpec is a pull request a test opened (AddPull). Empty fields keep the values of
// GitHub's example, except BaseRef, which defaults to the default branch "main".
type PullSpec struct {
	Title, Body, User string
	HeadRef, HeadSHA  string // a branch of the same repository
	BaseRef, BaseSHA  string
	Labels            []string
}

// AddPull opens pull request number n in owner/repo, as both the pulls API and the
// issues API show it (an issue with a "pull_request" key). Number n must be free; the
// repository becomes known (see AddRepo) if it was not.
func (st *State) AddPull(owner, repo string, n int, ps PullSpec) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.issues[issueKey(owner, repo, n)]; ok {
		panic(fmt.Sprintf("ghtest: AddPull: %s is taken", issueKey(owner, repo, n)))
	}
	st.touchRepo(owner, repo)
	user := st.example("pull-request")["user"].(obj)
	if ps.User != "" {
		user["login"] = ps.User
		user["url"] = "https://api.github.com/users/" + ps.User
		user["html_url"] = "https://github.com/" + ps.User
	}
	p := st.newPull(owner, repo, n, user)
	p["title"], p["body"] = ps.Title, ps.Body
	head, base := p["head"].(obj), p["base"].(obj)
	if ps.HeadRef != "" {
		head["ref"] = ps.HeadRef
	}
	if ps.BaseRef != "" {
		base["ref"] = ps.BaseRef
	}
	if ps.HeadSHA != "" {
		st.setHead(p, ps.HeadSHA)
	}
	if ps.BaseSHA != "" {
		base["sha"] = ps.BaseSHA
	}
	head["label"], base["label"] = owner+":"+head["ref"].(string), owner+":"+base["ref"].(string)
	st.putPull(owner, repo, p)
	for _, l := range ps.Labels {
		st.addLabel(owner, repo, n, l)
	}
}

// SetPullHead moves the head of pull request n of owner/repo to sha, as a push to its
// branch does. The pull request must exist (AddPull or POST /pulls).
func (st *State) SetPullHead(owner, repo string, n int, sha string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	p := st.findPull(owner, repo, n)
	if p == nil {
		panic(fmt.Sprintf("ghtest: SetPullHead: no pull request %s", issueKey(owner, repo, n)))
	}
	st.setHead(p, sha)
	p["updated_at"] = now()
}

// newPull is open pull request n of owner/repo by user, from GitHub's example, with
// what names the example's repository, number, author or history patched; head and
// base are branches of owner/repo. Callers hold st.mu.
func (st *State) newPull(owner, repo string, n int, user obj) obj {
	p := st.example("pull-request")
	// GitHub's own example lists teams without the "type" its schema requires.
	p["requested_teams"] = []any{}
	p["id"], p["number"], p["state"], p["user"] = st.id(), n, "open", user
	p["created_at"], p["updated_at"] = now(), now()
	p["closed_at"], p["merged_at"], p["merge_commit_sha"], p["merged"], p["merged_by"] = nil, nil, nil, false, nil
	p["labels"], p["milestone"], p["assignee"], p["assignees"], p["requested_reviewers"] = []any{}, nil, nil, []any{}, []any{}
	p["comments"], p["review_comments"] = 0, 0
	rp, ok := st.repo(owner, repo)
	if !ok {
		rp = &repoInfo{id: 1296269, owner: owner, name: repo}
	}
	p["base"].(obj)["ref"] = "main"
	for _, side := range []string{"head", "base"} {
		b := p[side].(obj)
		st.patchRepo(b["repo"].(obj), rp)
		b["user"].(obj)["login"] = owner
		b["label"] = owner + ":" + b["ref"].(string)
	}
	api := fmt.Sprintf("%srepos/%s/%s", st.apiURL, owner, repo)
	html := fmt.Sprintf("https://github.com/%s/%s/pull/%d", owner, repo, n)
	self := fmt.Sprintf("%s/pulls/%d", api, n)
	issue := fmt.Sprintf("%s/issues/%d", api, n)
	p["url"], p["html_url"], p["diff_url"], p["patch_url"] = self, html, html+".diff", html+".patch"
	p["issue_url"], p["comments_url"], p["commits_url"] = issue, issue+"/comments", self+"/commits"
	p["review_comments_url"], p["review_comment_url"] = self+"/comments", api+"/pulls/comments{/number}"
	p["_links"] = obj{
		"self": obj{"href": self}, "html": obj{"href": html}, "issue": obj{"href": issue},
		"comments": obj{"href": issue + "/comments"}, "review_comments": obj{"href": self + "/comments"},
		"review_comment": obj{"href": api + "/pulls/comments{/number}"}, "commits": obj{"href": self + "/commits"},
		"statuses": obj{"href": ""},
	}
	st.setHead(p, p["head"].(obj)["sha"].(string))
	return p
}

// setHead points pull request p's head at sha. Callers hold st.mu.
func (st *State) setHead(p obj, sha string) {
	p["head"].(obj)["sha"] = sha
	statuses := p["base"].(obj)["repo"].(obj)["url"].(string) + "/statuses/" + sha
	p["statuses_url"] = statuses
	p["_links"].(obj)["statuses"] = obj{"href": statuses}
}

// putPull stores pull request p and the issue that is its face in the issues API.
// Callers hold st.mu.
func (st *State) putPull(owner, repo string, p obj) {
	n := p["number"].(int)
	body, _ := p["body"].(string)
	is := st.pullIssue(owner, repo, n, p["title"].(string), body)
	is["user"], is["created_at"], is["updated_at"] = p["user"], p["created_at"], p["updated_at"]
	st.issues[issueKey(owner, repo, n)] = is
	key := owner + "/" + repo
	st.pulls[key] = append(st.pulls[key], p)
}

// findPull returns pull request n of owner/repo, or nil. Callers hold st.mu.
func (st *State) findPull(owner, repo string, n int) obj {
	for _, p := range st.pulls[owner+"/"+repo] {
		if p["number"] == n {
			return p
		}
	}
	return nil
}

// nextNumber is the number GitHub gives the next issue or pull request of owner/repo:
// the two share one sequence. Callers hold st.mu.
func (st *State) nextNumber(owner, repo string) int {
	last := 0
	prefix := owner + "/" + repo + "#"
	for k := range st.issues {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			if n, err := strconv.Atoi(rest); err == nil {
				last = max(last, n)
			}
		}
	}
	for _, p := range st.pulls[owner+"/"+repo] {
		last = max(last, p["number"].(int))
	}
	return last + 1
}
