package ghtest

import (
	"net/http"
	"sort"
	"strings"
	"time"
)

// Workflow runs and their jobs as the API lists and reads them.

// findRun returns the run addressed by a request in its repository, or answers 404.
func (a *Actions) findRun(w http.ResponseWriter, r *http.Request) (*fakeRun, bool) {
	id, _ := pathInt(r, "id")
	run, ok := a.runs[id]
	if !ok || !strings.EqualFold(run.owner, r.PathValue("owner")) || !strings.EqualFold(run.repo, r.PathValue("repo")) {
		notFound(w)
		return nil, false
	}
	return run, true
}

// listRuns lists a workflow's runs, newest first, filtered by event, branch, status and
// created (GitHub's search syntax: >=T, >T, <=T, <T, A..B or a bare date-time).
func (a *Actions) listRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	var runs []obj
	for _, run := range a.runs {
		o := run.obj
		switch {
		case !strings.EqualFold(run.owner, r.PathValue("owner")) || !strings.EqualFold(run.repo, r.PathValue("repo")),
			run.workflow != r.PathValue("workflow"),
			q.Get("event") != "" && o["event"] != q.Get("event"),
			q.Get("branch") != "" && o["head_branch"] != q.Get("branch"),
			q.Get("status") != "" && o["status"] != q.Get("status") && o["conclusion"] != q.Get("status"),
			q.Get("created") != "" && !createdMatches(o["created_at"].(string), q.Get("created")):
			continue
		}
		runs = append(runs, o)
	}
	a.mu.Unlock()
	sort.Slice(runs, func(i, j int) bool { return runs[i]["id"].(int64) > runs[j]["id"].(int64) })
	lo, hi := a.s.paginate(w, r, len(runs))
	writeJSON(w, http.StatusOK, obj{"total_count": len(runs), "workflow_runs": append([]obj{}, runs[lo:hi]...)})
}

func createdMatches(created, filter string) bool {
	t, err := time.Parse(time.RFC3339, created)
	if err != nil {
		return false
	}
	parse := func(s string) (time.Time, bool) {
		v, err := time.Parse(time.RFC3339, s)
		return v, err == nil
	}
	for _, op := range []string{">=", "<=", ">", "<"} {
		if rest, ok := strings.CutPrefix(filter, op); ok {
			v, ok := parse(rest)
			if !ok {
				return false
			}
			switch op {
			case ">=":
				return !t.Before(v)
			case "<=":
				return !t.After(v)
			case ">":
				return t.After(v)
			default:
				return t.Before(v)
			}
		}
	}
	if lo, hi, ok := strings.Cut(filter, ".."); ok {
		a, ok1 := parse(lo)
		b, ok2 := parse(hi)
		return ok1 && ok2 && !t.Before(a) && !t.After(b)
	}
	v, ok := parse(filter)
	return ok && t.Equal(v)
}

func (a *Actions) getRun(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if run, ok := a.findRun(w, r); ok {
		writeJSON(w, http.StatusOK, run.obj)
	}
}

func (a *Actions) listJobs(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	run, ok := a.findRun(w, r)
	var jobs []obj
	if ok {
		jobs = append(jobs, run.jobs...)
	}
	a.mu.Unlock()
	if !ok {
		return
	}
	lo, hi := a.s.paginate(w, r, len(jobs))
	writeJSON(w, http.StatusOK, obj{"total_count": len(jobs), "jobs": append([]obj{}, jobs[lo:hi]...)})
}
