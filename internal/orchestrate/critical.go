package orchestrate

import (
	"encoding/json"
	"fmt"
	"time"
)

// PathTimes is what a run's journal says its effects took: Total adds up every effect
// (the time one agent after the other would take), Critical adds up, phase by phase, the
// slowest agent's turn (its replies, commands and the judge's verdicts on its work), and
// the protocol's own effects outside phases. A run whose agents work at once cannot end
// sooner than Critical.
type PathTimes struct {
	Phases   int
	Critical time.Duration
	Total    time.Duration
}

// CriticalPath reads a journal's entries (Journal.Entries) and adds up their times.
func CriticalPath(entries [][]byte) (PathTimes, error) {
	var out PathTimes
	lanes := map[int]map[string]float64{} // phase → lane → seconds
	var outside float64
	var total float64
	for i, data := range entries {
		var rec record
		if err := json.Unmarshal(data, &rec); err != nil {
			return PathTimes{}, fmt.Errorf("journal entry %d is corrupt: %w", i+1, err)
		}
		total += rec.Spend.Seconds
		if rec.Phase == 0 || rec.Lane == "" {
			outside += rec.Spend.Seconds
			continue
		}
		if lanes[rec.Phase] == nil {
			lanes[rec.Phase] = map[string]float64{}
		}
		lanes[rec.Phase][rec.Lane] += rec.Spend.Seconds
	}
	critical := outside
	for _, phase := range lanes {
		slowest := 0.0
		for _, s := range phase {
			slowest = max(slowest, s)
		}
		critical += slowest
	}
	out.Phases = len(lanes)
	out.Critical = time.Duration(critical * float64(time.Second))
	out.Total = time.Duration(total * float64(time.Second))
	return out, nil
}
