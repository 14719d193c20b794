// Package ci is the judge: it runs one test against one coder's tree in a sandbox and
// reports a verdict. Nothing else in Dixit decides whether code works.
//
// This package holds the judge on this machine (Local: one job in job.go, a probe in
// observe.go), the proof of a pass (evidence.go, expect.go, proof.go) and the verdict
// cache (Cached). Its parts have packages of their own, which import nothing of ci:
// sandbox (running untrusted code), languages (what each ecosystem needs), deps
// (dependency preparation), suites (a repository's own tests), agentexec (agents'
// commands), contract and reports (the terms and report parsers they share). The rest
// of Dixit imports ci alone for the judge, so ci names the parts' types it hands out
// (names.go).
package ci

import (
	"context"
)

// Test is one test file as a tester proposed it.
type Test struct {
	ID string // substituted into Contract.Path; unique within a run
	// Path is the place its tester named, relative to the tree's root (one of
	// Contract.Paths); empty means Contract.Path.
	Path    string
	Content []byte // the file's bytes
	// Select names the tests to run, as pytest node ids of the file at Path
	// ("tests/test_x.py::test_y"): a proposal made as a diff runs only the tests it adds
	// or changes (ApplyTestDiff), and each must be reported passed. Empty: every test
	// the file defines.
	Select []string `json:",omitempty"`
}

// Job asks for one test to be run against one tree.
type Job struct {
	Coder string // name, for logs and reports only
	Tree  Tree
	Test  Test
}

// The names jobs give trees that are no coder's, so that a display words them apart from
// the coders: the base revision, a mutant (its id after the prefix) and the code mutated.
// The patch under review is vet.PatchName.
const (
	BaseName     = "base"
	MutantPrefix = "mutant "
	MutatedName  = "implementation"
)

// Verdict is the judge's answer for one job. Only Pass counts as passing.
type Verdict struct {
	Outcome Outcome `json:"outcome"`
	Runs    int     `json:"runs"`             // runs executed (early stop at the first failure)
	Output  string  `json:"output,omitempty"` // tail of the failing run's (or build's) output, capped
	Seconds float64 `json:"seconds"`          // wall time spent on this job, build included
	Cached  bool    `json:"cached,omitempty"` // answered from the verdict cache
}

// Passed reports whether the verdict counts as a pass.
func (v Verdict) Passed() bool { return v.Outcome == Pass }

// Judge runs jobs and returns one verdict per job, in order. A returned error means the
// judge itself failed (the sandbox broke, the disk is full): it is never a test failure,
// and no verdict from a failed call may be used.
type Judge interface {
	Run(ctx context.Context, reruns int, jobs []Job) ([]Verdict, error)
}

// Stats counts the judge's work for reports.
type Stats struct {
	Executions int `json:"executions"` // jobs actually executed (builds)
	Runs       int `json:"runs"`       // test runs executed
	CacheHits  int `json:"cache_hits"`
	// Prepares counts the dependency installs run (each set of manifests once, and
	// PrepareSeconds their wall time.
	Prepares       int     `json:"prepares,omitempty"`
	PrepareSeconds float64 `json:"prepare_seconds,omitempty"`
	Seconds        float64 `json:"seconds"` // wall time inside Run calls
}

// exitOnlyNote is what a passing verdict says when the contract names no report.
const exitOnlyNote = "passed on exit status 0 alone: the test contract names no report (test.report), " +
	"so code that ends the test process early with status 0 would pass too"
