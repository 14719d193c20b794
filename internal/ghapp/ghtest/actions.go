package ghtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
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
