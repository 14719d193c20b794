package actions

import (
	"strings"
	"sync"
)

// Hub delivers workflow_run webhooks to the judges waiting on the workshop repository
// they came from. The App keeps one Hub and calls Notify from its workflow_run handler;
// a judge built with Options.Hub joins it until Close.
type Hub struct {
	mu     sync.Mutex
	judges map[*Judge]bool
}

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{judges: map[*Judge]bool{}} }

// Notify passes a workflow_run event (repository owner and name, the run's id, status
// and conclusion) to every judge of that repository. It never blocks.
func (h *Hub) Notify(owner, repo string, runID int64, status, conclusion string) {
	h.mu.Lock()
	var to []*Judge
	for j := range h.judges {
		if strings.EqualFold(j.o.Owner, owner) && strings.EqualFold(j.o.Repo, repo) {
			to = append(to, j)
		}
	}
	h.mu.Unlock()
	for _, j := range to {
		j.Notify(runID, status, conclusion)
	}
}

func (h *Hub) add(j *Judge) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.judges[j] = true
}

func (h *Hub) remove(j *Judge) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.judges, j)
}
