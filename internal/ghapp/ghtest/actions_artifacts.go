package ghtest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Artifacts of the fake's workflow runs: listed through the API, downloaded by a 302 to a
// second host that stands in for GitHub's blob storage.

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
