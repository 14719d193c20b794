package ghtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// GitHub Actions, as far as the actions judge uses it: dispatching a workflow, its runs,
// their jobs and artifacts, and artifact downloads through a 302 to a blob host.
//
// A dispatch reads the workflow file from the repository's files (State.SetFile at the
// dispatch's ref) as GitHub does: no file, no run (404). Its `name`, `run-name` and
// workflow_dispatch inputs are honoured: the run's display_title is the run-name with
// ${{ inputs.X }} filled in, and inputs the file does not declare, or required ones that
// are missing, are refused (422). What the run then does is the test's script
// (Actions.OnDispatch): complete at once, stay in progress until Actions.Finish, or never
// appear at all.
//
// Artifacts download from a second server (another host, like GitHub's blob storage)
// that needs no credentials and answers 401 to a request that carries any Authorization
// header: a client that forwards its GitHub token there is caught.

// Dispatch is one workflow_dispatch the fake accepted.
type Dispatch struct {
	Owner, Repo string
	Workflow    string // the workflow's file name, e.g. "dixit-classify.yml"
	Ref         string
	Inputs      map[string]string // as sent, with the workflow's defaults filled in
	RunID       int64             // 0 when the script said no run appears
	Title       string            // the run's display_title
}

// Artifact is an artifact a run uploads: its name and the zip archive's bytes.
type Artifact struct {
	Name    string
	Zip     []byte
	Expired bool // listed, but the download answers 410 Gone
}

// RunScript is what a dispatched run does.
type RunScript struct {
	// NoRun: GitHub accepts the dispatch (204) but no run ever appears.
	NoRun bool
	// Conclusion completes the run at once ("success", "failure", "cancelled",
	// "timed_out", "startup_failure", ...). Empty: the run stays in progress until
	// Actions.Finish.
	Conclusion string
	Artifacts  []Artifact
	// JobDuration is each job's time from started_at to completed_at (default 1s).
	JobDuration time.Duration
}

// Actions is the fake's GitHub Actions state; Server.Actions returns it.
type Actions struct {
	s    *Server
	blob *httptest.Server

	mu           sync.Mutex
	onDispatch   func(Dispatch) RunScript
	noRunDetails bool
	dispatches   []Dispatch
	runs         map[int64]*fakeRun
	artifacts    map[int64]*fakeArtifact
	blobGets     int
	leaked       int
}

type fakeRun struct {
	obj      obj
	owner    string
	repo     string
	workflow string
	coders   []string
	jobs     []obj
	jobTime  time.Duration
	arts     []int64
}

type fakeArtifact struct {
	id    int64
	run   int64
	obj   obj
	zip   []byte
	token string // the blob URL's secret part
}

// Actions returns the fake's GitHub Actions state.
func (s *Server) Actions() *Actions { return s.actions }

func (s *Server) actionRoutes() {
	a := &Actions{s: s, runs: map[int64]*fakeRun{}, artifacts: map[int64]*fakeArtifact{}}
	a.blob = httptest.NewServer(http.HandlerFunc(a.serveBlob))
	s.actions = a
	s.t.Cleanup(a.blob.Close)
	s.handle("POST repos/{owner}/{repo}/actions/workflows/{workflow}/dispatches", a.dispatch)
	s.handle("GET repos/{owner}/{repo}/actions/workflows/{workflow}/runs", a.listRuns)
	s.handle("GET repos/{owner}/{repo}/actions/runs/{id}", a.getRun)
	s.handle("GET repos/{owner}/{repo}/actions/runs/{id}/jobs", a.listJobs)
	s.handle("GET repos/{owner}/{repo}/actions/runs/{id}/artifacts", a.listArtifacts)
	s.handle("GET repos/{owner}/{repo}/actions/artifacts/{id}/{format}", a.downloadArtifact)
}

// OnDispatch sets what each dispatched run does. fn runs inside the dispatch request,
// with Dispatch.RunID already set: a runner that takes time should run in a goroutine
// and call Finish. Without a script a
// run stays in progress until Finish.
func (a *Actions) OnDispatch(fn func(Dispatch) RunScript) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.onDispatch = fn
}

// WithoutRunDetails makes dispatches answer 204 even when the request asks for
// return_run_details, as GitHub did before it returned run ids (and as older GitHub
// Enterprise Server versions still do): the client must find its run by listing.
func (a *Actions) WithoutRunDetails() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.noRunDetails = true
}

// Dispatches returns the dispatches accepted so far, oldest first.
func (a *Actions) Dispatches() []Dispatch {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Dispatch(nil), a.dispatches...)
}

// BlobDownloads counts artifact downloads from the blob host, and LeakedTokens those
// that carried an Authorization header (answered 401).
func (a *Actions) BlobDownloads() (downloads, leakedTokens int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.blobGets, a.leaked
}

// ActionsForbidden is GitHub's answer to a dispatch by an App without `actions: write`
// on the repository (or where Actions is disabled); inject it with Server.Inject.
func ActionsForbidden() Fault {
	return Fault{
		Method: http.MethodPost,
		Status: http.StatusForbidden,
		Body: `{"message":"Resource not accessible by integration",` +
			`"documentation_url":"https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event","status":"403"}`,
	}
}

// Finish completes a run that is in progress, with its conclusion and artifacts.
func (a *Actions) Finish(runID int64, conclusion string, artifacts []Artifact) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, ok := a.runs[runID]
	if !ok {
		a.s.t.Errorf("ghtest: Finish of unknown run %d", runID)
		return
	}
	a.complete(r, conclusion, artifacts)
}

// Run returns a run's JSON object (nil if none).
func (a *Actions) Run(runID int64) map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r, ok := a.runs[runID]; ok {
		return r.obj
	}
	return nil
}

// workflowFile is what the fake reads from a workflow file.
type workflowFile struct {
	Name    string `yaml:"name"`
	RunName string `yaml:"run-name"`
	On      struct {
		Dispatch *struct {
			Inputs map[string]struct {
				Required bool   `yaml:"required"`
				Default  string `yaml:"default"`
			} `yaml:"inputs"`
		} `yaml:"workflow_dispatch"`
	} `yaml:"on"`
}

var inputExpr = regexp.MustCompile(`\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}`)

func (a *Actions) dispatch(w http.ResponseWriter, r *http.Request) {
	if _, ok := installationAuth(w, r); !ok {
		return
	}
	var in struct {
		Ref              string         `json:"ref"`
		Inputs           map[string]any `json:"inputs"`
		ReturnRunDetails bool           `json:"return_run_details"`
	}
	if !decode(w, r, &in) {
		return
	}
	owner, repo, file := r.PathValue("owner"), r.PathValue("repo"), r.PathValue("workflow")
	st := a.s.State
	st.mu.Lock()
	_, known := st.repo(owner, repo)
	content, ok := st.files[fileKey(owner, repo, in.Ref, ".github/workflows/"+file)]
	st.mu.Unlock()
	if !known || !ok {
		// GitHub answers 404, which its description does not document for this
		// operation: the validator flags it, as it should flag a test that dispatches
		// a workflow it never put in place (test a client's 404 handling with Inject).
		notFound(w)
		return
	}
	var wf workflowFile
	if err := yaml.Unmarshal([]byte(content), &wf); err != nil || wf.On.Dispatch == nil {
		a.s.t.Errorf("ghtest: dispatch of %s: no workflow_dispatch trigger (%v)", file, err)
		writeJSON(w, http.StatusUnprocessableEntity, obj{"message": "Workflow does not have 'workflow_dispatch' trigger"})
		return
	}
	inputs := map[string]string{}
	for k, v := range in.Inputs {
		if _, declared := wf.On.Dispatch.Inputs[k]; !declared {
			a.s.t.Errorf("ghtest: dispatch of %s: unexpected input %q", file, k)
			writeJSON(w, http.StatusUnprocessableEntity, obj{"message": fmt.Sprintf("Unexpected inputs provided: [%q]", k)})
			return
		}
		s, isString := v.(string)
		if !isString {
			a.s.t.Errorf("ghtest: dispatch of %s: input %q is %T, GitHub wants strings", file, k, v)
		}
		inputs[k] = s
	}
	for k, decl := range wf.On.Dispatch.Inputs {
		if _, given := inputs[k]; given {
			continue
		}
		if decl.Required && decl.Default == "" {
			a.s.t.Errorf("ghtest: dispatch of %s: required input %q missing", file, k)
			writeJSON(w, http.StatusUnprocessableEntity, obj{"message": fmt.Sprintf("Required input '%s' not provided", k)})
			return
		}
		inputs[k] = decl.Default
	}
	title := inputExpr.ReplaceAllStringFunc(wf.RunName, func(m string) string {
		return inputs[inputExpr.FindStringSubmatch(m)[1]]
	})
	if wf.RunName == "" {
		title = wf.Name
	}
	d := Dispatch{Owner: owner, Repo: repo, Workflow: file, Ref: in.Ref, Inputs: inputs, Title: title}

	// The run exists before the script runs, so that a runner the script starts in
	// the background can Finish it at any time; a script that says NoRun removes it.
	a.mu.Lock()
	run := a.newRun(d, wf.Name)
	d.RunID = run.obj["id"].(int64)
	fn := a.onDispatch
	a.mu.Unlock()
	script := RunScript{}
	if fn != nil {
		script = fn(d)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if script.NoRun {
		delete(a.runs, d.RunID)
		d.RunID = 0
		a.dispatches = append(a.dispatches, d)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	a.dispatches = append(a.dispatches, d)
	if script.JobDuration > 0 {
		run.jobTime = script.JobDuration
	}
	if script.Conclusion != "" && run.obj["status"] != "completed" {
		a.complete(run, script.Conclusion, script.Artifacts)
	}
	if !in.ReturnRunDetails || a.noRunDetails {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, obj{
		"workflow_run_id": d.RunID, "run_url": run.obj["url"], "html_url": run.obj["html_url"],
	})
}

// newRun creates an in-progress run of a dispatch, with one queued job per coder of the
// matrix (the "coders" input) or a single job. Callers hold a.mu.
func (a *Actions) newRun(d Dispatch, workflowName string) *fakeRun {
	st := a.s.State
	st.mu.Lock()
	id := st.id()
	rp, _ := st.repo(d.Owner, d.Repo)
	run := st.example("workflow-run")
	st.mu.Unlock()
	full := d.Owner + "/" + d.Repo
	api := a.s.URL + "repos/" + full + "/actions/runs/" + strconv.FormatInt(id, 10)
	ts := now()
	run["id"], run["name"], run["display_title"] = id, workflowName, d.Title
	run["event"], run["status"], run["conclusion"] = "workflow_dispatch", "in_progress", nil
	run["head_branch"], run["path"] = d.Ref, ".github/workflows/"+d.Workflow
	run["run_number"], run["run_attempt"] = len(a.dispatches)+1, 1
	run["created_at"], run["updated_at"], run["run_started_at"] = ts, ts, ts
	run["url"], run["html_url"] = api, "https://github.com/"+full+"/actions/runs/"+strconv.FormatInt(id, 10)
	run["jobs_url"], run["artifacts_url"], run["logs_url"] = api+"/jobs", api+"/artifacts", api+"/logs"
	run["cancel_url"], run["rerun_url"] = api+"/cancel", api+"/rerun"
	run["previous_attempt_url"] = nil
	for _, k := range []string{"repository", "head_repository"} {
		a.s.patchRepo(run[k].(obj), rp)
	}
	run["pull_requests"] = []any{}
	fr := &fakeRun{obj: run, owner: d.Owner, repo: d.Repo, workflow: d.Workflow, jobTime: time.Second}
	var coders []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal([]byte(d.Inputs["coders"]), &coders); err == nil && len(coders) > 0 {
		for _, c := range coders {
			fr.coders = append(fr.coders, c.Name)
		}
	} else {
		fr.coders = []string{""}
	}
	for _, c := range fr.coders {
		job := st.example("job-paginated")["jobs"].([]any)[0].(obj)
		st.mu.Lock()
		jid := st.id()
		st.mu.Unlock()
		name := "classify"
		if c != "" {
			name = "classify " + c
		}
		job["id"], job["run_id"], job["name"], job["workflow_name"] = jid, id, name, workflowName
		job["run_url"], job["url"] = api, a.s.URL+"repos/"+full+"/actions/jobs/"+strconv.FormatInt(jid, 10)
		job["status"], job["conclusion"], job["started_at"], job["completed_at"] = "in_progress", nil, ts, nil
		job["head_branch"], job["steps"] = d.Ref, []any{}
		// GitHub's example lacks "created_at", which its schema requires.
		job["created_at"] = ts
		fr.jobs = append(fr.jobs, job)
	}
	a.runs[id] = fr
	return fr
}

// complete finishes a run: its jobs end jobTime after they started (a startup failure
// has no jobs), and its artifacts appear. Callers hold a.mu.
func (a *Actions) complete(r *fakeRun, conclusion string, artifacts []Artifact) {
	if r.obj["status"] == "completed" {
		a.s.t.Errorf("ghtest: run %v completed twice", r.obj["id"])
		return
	}
	r.obj["status"], r.obj["conclusion"], r.obj["updated_at"] = "completed", conclusion, now()
	if conclusion == "startup_failure" {
		r.jobs = nil
	}
	for _, j := range r.jobs {
		started, _ := time.Parse(time.RFC3339, j["started_at"].(string))
		j["status"], j["conclusion"] = "completed", conclusion
		j["completed_at"] = started.Add(r.jobTime).UTC().Format(time.RFC3339)
	}
	st := a.s.State
	for _, art := range artifacts {
		st.mu.Lock()
		id := st.id()
		ex := st.example("artifact-paginated")["artifacts"].([]any)[0].(obj)
		st.mu.Unlock()
		full := r.owner + "/" + r.repo
		api := a.s.URL + "repos/" + full + "/actions/artifacts/" + strconv.FormatInt(id, 10)
		ex["id"], ex["name"], ex["size_in_bytes"], ex["expired"] = id, art.Name, len(art.Zip), art.Expired
		ex["url"], ex["archive_download_url"] = api, api+"/zip"
		ex["created_at"], ex["updated_at"] = now(), now()
		ex["expires_at"] = time.Now().Add(72 * time.Hour).UTC().Format(time.RFC3339)
		if wr, ok := ex["workflow_run"].(obj); ok {
			wr["id"] = r.obj["id"]
		}
		delete(ex, "digest")
		a.artifacts[id] = &fakeArtifact{id: id, run: r.obj["id"].(int64), obj: ex, zip: art.Zip,
			token: fmt.Sprintf("%x", time.Now().UnixNano())}
		r.arts = append(r.arts, id)
	}
}

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

func (a *Actions) listArtifacts(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	run, ok := a.findRun(w, r)
	var arts []obj
	if ok {
		for _, id := range run.arts {
			art := a.artifacts[id].obj
			if name := r.URL.Query().Get("name"); name == "" || art["name"] == name {
				arts = append(arts, art)
			}
		}
	}
	a.mu.Unlock()
	if !ok {
		return
	}
	lo, hi := a.s.paginate(w, r, len(arts))
	writeJSON(w, http.StatusOK, obj{"total_count": len(arts), "artifacts": append([]obj{}, arts[lo:hi]...)})
}

// downloadArtifact answers 302 to the artifact's zip on the blob host (410 once expired).
func (a *Actions) downloadArtifact(w http.ResponseWriter, r *http.Request) {
	if _, ok := installationAuth(w, r); !ok {
		return
	}
	id, _ := pathInt(r, "id")
	a.mu.Lock()
	art, ok := a.artifacts[id]
	var run *fakeRun
	if ok {
		run = a.runs[art.run]
	}
	a.mu.Unlock()
	if !ok || r.PathValue("format") != "zip" || !strings.EqualFold(run.owner, r.PathValue("owner")) ||
		!strings.EqualFold(run.repo, r.PathValue("repo")) {
		notFound(w)
		return
	}
	if art.obj["expired"] == true {
		writeJSON(w, http.StatusGone, obj{"message": "Artifact has expired", "documentation_url": "https://docs.github.com/rest"})
		return
	}
	w.Header().Set("Location", fmt.Sprintf("%s/blobs/%d/%s.zip?sig=%s", a.blob.URL, id, art.token, art.token))
	w.WriteHeader(http.StatusFound)
}

func (a *Actions) serveBlob(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.blobGets++
	if r.Header.Get("Authorization") != "" {
		a.leaked++
		http.Error(w, "credentials are not accepted here", http.StatusUnauthorized)
		return
	}
	var id int64
	var token string
	if _, err := fmt.Sscanf(r.URL.Path, "/blobs/%d/", &id); err == nil {
		token = strings.TrimSuffix(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], ".zip")
	}
	art, ok := a.artifacts[id]
	if r.Method != http.MethodGet || !ok || art.token != token || r.URL.Query().Get("sig") != token {
		http.Error(w, "no such blob", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Length", strconv.Itoa(len(art.zip)))
	_, _ = w.Write(art.zip)
}
