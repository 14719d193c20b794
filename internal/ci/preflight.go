package ci

import (
	"regexp"
	"strings"
)

var (
	// The sandbox's module cache is read-only and GOPROXY=off: go names the module it
	// would have fetched in one of these.
	goMissingModule = regexp.MustCompile(`go: downloading (\S+) |(\S+?)@\S+: module lookup disabled|no required module provides package ([^;\s]+)|go: (\S+?)@\S+: (?:reading|verifying|unrecognized import path)`)
	noPytest        = regexp.MustCompile(`pytest is not importable by the python3 the judge found: (\S+) \(`)
	noRequired      = regexp.MustCompile(`the repository needs the Python module (\S+) \(test.requires in dixit.yml\), which the python3 the judge found \((\S*)\)`)
	pyMissingModule = regexp.MustCompile(`No module named '?([\w.]+)'?`)
	nodeMissing     = regexp.MustCompile(`Cannot find (?:module|package) '([^']+)'`)
	// The dependency prepare names a tool it lacks in our words (package deps).
	judgeLacks = regexp.MustCompile(`(?m)^\[dixit\] (\S.* needs \S+, which the judge .*)$`)
)

// EnvironmentHint says what to install or configure when the base revision with an
// empty test does not pass: the output says what failed, the hint what to do about it,
// in a line a person reads at a glance (the judge's output is in the report).
func EnvironmentHint(c Contract, v Verdict) string {
	out := v.Output
	if m := judgeLacks.FindStringSubmatch(out); m != nil && v.Outcome == PrepareFailed {
		return m[1]
	}
	if m := goMissingModule.FindStringSubmatch(out); m != nil {
		module := m[1] + m[2] + m[3] + m[4] // one group matched
		// The judge never builds from vendor/ (nothing checks it against go.sum): a module
		// no proxy serves can live in the tree, replaced into the build by go.mod.
		if c.Prepare == "" {
			return "the Go build needs " + module + ", which the read-only module cache lacks (test.prepare is empty): " +
				"use the go preset's prepare (go mod download), or keep it in the tree (replace " + module + " => ./dir)"
		}
		return "the Go build needs " + module + ", which the prepare did not download: " +
			"require it in go.mod with its go.sum lines, or keep it in the tree (replace " + module + " => ./dir; vendor/ is not used)"
	}
	if m := noRequired.FindStringSubmatch(out); m != nil {
		return "test.requires names " + m[1] + ", which the python3 the judge found (" + m[2] + ") cannot import: install it for that python3 " +
			"(Debian's /usr/bin/python3: apt-get install python3-" + strings.ToLower(strings.SplitN(m[1], ".", 2)[0]) + "), or name a python3 that has it in test.toolchain_path"
	}
	if m := noPytest.FindStringSubmatch(out); m != nil {
		return "pytest is not installed for the python3 the judge found (" + m[1] + "): install it there, list it in the test requirements, " +
			"or name a python3 that has it in test.toolchain_path"
	}
	if m := pyMissingModule.FindStringSubmatch(out); m != nil {
		if m[1] == "pytest" {
			return "pytest is not installed for the python3 the judge uses (the first on the PATH): " +
				"python3 -m pip install pytest, or put a python3 that has it first on the PATH"
		}
		return "the base imports " + m[1] + ", which the judge's python3 does not have: " +
			"list it in requirements*.txt or pyproject.toml (test.prepare installs them), or install it for that python3"
	}
	if m := nodeMissing.FindStringSubmatch(out); m != nil {
		return "node cannot find " + m[1] + ": add it to package.json and its lockfile (npm install " + m[1] + ") and commit both"
	}
	switch v.Outcome {
	case PrepareFailed: // nothing more precise in its output
		return prepareHint(c)
	case BuildFailed:
		return "the base revision does not build in the judge's sandbox with `" + c.Build + "`: fix the base, or test.build in dixit.yml"
	case Timeout:
		return "an empty test timed out: the sandbox has no network, so a build that waits for one never ends; raise test.timeout in dixit.yml if the toolchain is merely slow"
	case OverLimit:
		return "an empty test went over the judge's output or resource limits: the runner itself needs more than the sandbox allows"
	}
	return "the test runner could not run an empty test on the base revision with `" + c.Run + "`: check that it is installed for the judge, and test.run in dixit.yml"
}

// failingTest finds a failing test's name in a runner's readable output: Go's "--- FAIL:",
// pytest's short summary ("FAILED file::name") and node's spec reporter ("✖ name (…ms)").
var failingTest = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)|^FAILED (\S+)|^\s*✖ (.+?) \(\d`)

// FailingTests names the failing tests an output shows, each once, in order. The output
// is a tail, so the list may be incomplete; it is for people, never for a verdict.
func FailingTests(output string) []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range failingTest.FindAllStringSubmatch(output, -1) {
		name := m[1] + m[2] + m[3]
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}

// prepareHint is the hint of a prepare that failed: its output, in the report, says
// what went wrong; the hint names the manifests, not the script (dixit.yml has it).
func prepareHint(c Contract) string {
	if c.Prepare == "" {
		return "the test runner the contract needs is missing from the judge's environment: install what the judge's output names"
	}
	manifest := "the manifest"
	if len(c.Manifests) > 0 {
		manifest = c.Manifests[0] // the first names the ecosystem; the rest are its lockfiles
	}
	return "the judge could not install the dependencies (test.prepare) or find the test runner: check that " +
		manifest + " and its lockfile are complete and current, and the registry reachable from the judge"
}
