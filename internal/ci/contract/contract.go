// Package contract holds the terms the judge's parts share: the Contract a repository's
// dixit.yml sets (how a test plugs into a coder's tree, how it is built and run, which
// runner report proves a pass), where a test goes in a tree, the Tree itself and the
// Outcomes a job can end in, and a test proposed as a diff (diff.go). It imports nothing
// of Dixit's but pytouch, a small tool, so that every part of the judge (sandbox,
// languages, dependencies, suites) can use it; package ci names these types for the rest
// of Dixit.
package contract

import "time"

// Contract says how a test plugs into a coder's tree and how it is built and run.
// Commands run with /bin/sh -c inside the sandbox, with the tree as working directory.
type Contract struct {
	// Path is where a test file goes in the tree when its tester named no place; "{id}"
	// is replaced by the test id.
	Path string `yaml:"path" json:"path"`
	// Paths are the places a tester may name for its test, so that it lands in the
	// package it is about: patterns relative to the tree's root, where "**" crosses
	// directories (**/*_test.go). A named place must also be one the judge clears of a
	// coder's files (Exclude), so that a test never overwrites code. Empty: only Path.
	// Commands see the placed file as {path}, its directory as {dir} ("." at the root)
	// and its base name without the extension as {name}.
	Paths []string `yaml:"paths,omitempty" json:"paths,omitempty"`
	// Exclude lists glob patterns of coder files left out of the judge's copy (the coder's
	// private tests, for example). A pattern without "/" matches a base name anywhere.
	Exclude []string `yaml:"exclude,omitempty" json:"exclude,omitempty"`
	// Build, when set, runs once per (tree, test) before the runs; a non-zero exit is a
	// build failure and the test counts as failing for that coder.
	Build string `yaml:"build,omitempty" json:"build,omitempty"`
	// Run runs the test once. A run passes when it exits 0 and, unless Report is "none",
	// its runner's report proves that the test ran and passed.
	Run string `yaml:"run" json:"run"`
	// Report names the runner's structured report that a pass needs: "test2json" (a Go
	// test binary's -test.v=test2json output, or go test -json events written to
	// {report}), "junit" or "tap" (written to {report}), or "none" (or empty): the exit
	// status alone decides, and passing verdicts say so. "{report}" in Run becomes a
	// file outside the tree, fresh for every run.
	Report string `yaml:"report,omitempty" json:"report,omitempty"`
	// Probe runs a differential probe file (placed like a test) once and lets its stdout
	// through; "" means Run. It never decides a verdict, so the verdict cache ignores it.
	Probe string `yaml:"probe,omitempty" json:"probe,omitempty"`
	// Timeout bounds one run; BuildTimeout bounds the build.
	Timeout      time.Duration `yaml:"timeout" json:"timeout"`
	BuildTimeout time.Duration `yaml:"build_timeout,omitempty" json:"build_timeout,omitempty"`
	// Prepare, when set, installs the tree's dependencies: it runs once per distinct set
	// of Manifests, with network access, in a directory holding only copies of those
	// files, and what it writes there becomes the dependency cache that builds and runs
	// see read-only, offline. A failing prepare is the outcome prepare_failed, never a
	// failing test. PrepareTimeout bounds it.
	Prepare        string        `yaml:"prepare,omitempty" json:"prepare,omitempty"`
	PrepareTimeout time.Duration `yaml:"prepare_timeout,omitempty" json:"prepare_timeout,omitempty"`
	// Manifests are the patterns (relative to the tree's root, path.Match syntax) of the
	// files that say which dependencies a tree needs: go.mod and go.sum, pyproject.toml
	// and requirements*.txt, package.json and its lockfile. Their contents key the cache;
	// a tree with none of them is not prepared.
	Manifests []string `yaml:"manifests,omitempty" json:"manifests,omitempty"`
	// Memory bounds the resident memory of a build or run's processes together, in bytes
	// (a cgroup where the host lets the judge make one; else their address space each);
	// zero means the judge's default.
	Memory int64 `yaml:"memory,omitempty" json:"memory,omitempty"`
	// Toolchain names the host toolchain exposed read-only inside the sandbox (one of
	// languages.Names()) or "" (only the base system).
	Toolchain string `yaml:"toolchain,omitempty" json:"toolchain,omitempty"`
	// ToolchainPath is the toolchain's command the judge asks where it lives (python3,
	// go, node, rustc or javac), when not the first of that name on the judge's PATH:
	// /usr/bin/python3 where pyenv's comes first but lacks pytest. Its directory then
	// comes first on the sandbox's PATH.
	ToolchainPath string `yaml:"toolchain_path,omitempty" json:"toolchain_path,omitempty"`
	// Requires names what the repository needs of the toolchain beyond its runner, checked
	// before any test runs: Python modules the python3 must import (sympy: mpmath), for a
	// repository whose dependencies come from the system rather than a prepare.
	Requires []string `yaml:"requires,omitempty" json:"requires,omitempty"`
	// SkipTripwires leaves out the judge's own checks that are otherwise laid into every
	// Go and Python test file (package tripwire): a run command that selects tests by name
	// would not run them, and every verdict would read as tampered. test.tripwires: false.
	SkipTripwires bool `yaml:"skip_tripwires,omitempty" json:"skip_tripwires,omitempty"`
	// Env adds variables to the sandbox's otherwise scrubbed environment.
	Env map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
}

// Tree is a coder's source tree as the judge sees it.
type Tree interface {
	// Hash identifies the tree's content (a git tree hash); equal hashes, equal trees.
	Hash() string
	// WriteTo writes the tree's files under dir, which exists and is empty.
	WriteTo(dir string) error
}

// Outcome is what became of a job.
type Outcome string

const (
	Pass        Outcome = "pass"
	Fail        Outcome = "fail"         // a run exited non-zero, or its report did not prove a pass
	Timeout     Outcome = "timeout"      // a run exceeded the contract's timeout
	BuildFailed Outcome = "build_failed" // the tree plus the test did not build
	OverLimit   Outcome = "over_limit"   // a run exceeded an output or resource limit
	// PrepareFailed: the tree's dependencies could not be installed, or the contract's
	// runner is missing. It says nothing about the test: the environment (or the tree's
	// manifests) must change, and the verdict cache never keeps it.
	PrepareFailed Outcome = "prepare_failed"
	// Tampered: the judge's own checks in the test's process (package tripwire) did not
	// come out as they must, so something in that process changed what the runner
	// reports. Never a pass, whatever else the report says.
	Tampered Outcome = "tampered"
)

// Private reports whether a file of a coder's tree is one of its own tests, which the
// judge leaves out (Exclude): the protocols that run a coder's own tests look for these.
func (c Contract) Private(rel string) bool { return excluded(rel, c.Exclude) }
