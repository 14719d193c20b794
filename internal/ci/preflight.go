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
// empty test does not pass: the output says what failed, the hint what to do about it.
func EnvironmentHint(c Contract, v Verdict) string {
	out := v.Output
	if m := judgeLacks.FindStringSubmatch(out); m != nil && v.Outcome == PrepareFailed {
		return m[1]
	}
	if m := goMissingModule.FindStringSubmatch(out); m != nil {
		module := m[1] + m[2] + m[3] + m[4] // one group matched
		if c.Prepare == "" {
			return "the Go build needs " + module + ", which is not in the module cache the judge reads (read-only), and this contract downloads nothing (test.prepare is empty, GOPROXY=off): " +
				"use the go preset's prepare (go mod download), run `go mod download` in the repository on the judge's machine, or vendor the dependencies"
		}
		return "the Go build needs " + module + ", which the judge's prepare (" + c.Prepare + ") did not download: " +
			"go.mod must require it and go.sum hold its sums (go get " + module + ", then commit both), or vendor the dependencies (go mod vendor)"
	}
	if m := noRequired.FindStringSubmatch(out); m != nil {
		return "test.requires names " + m[1] + ", which the python3 the judge found (" + m[2] + ") cannot import: install it for that python3 " +
			"(Debian's /usr/bin/python3: apt-get install python3-" + strings.ToLower(strings.SplitN(m[1], ".", 2)[0]) + "), or name a python3 that has it in test.toolchain_path"
	}
	if m := noPytest.FindStringSubmatch(out); m != nil {
		return "pytest is not installed for the python3 the judge found (" + m[1] + "): install it for that python3, list pytest in the project's test requirements (the judge's prepare installs them), " +
			"or name a python3 that has it in test.toolchain_path"
	}
	if m := pyMissingModule.FindStringSubmatch(out); m != nil {
		if m[1] == "pytest" {
			return "pytest is not installed for the python3 the judge uses (the first python3 on the server's PATH): " +
				"install it there (python3 -m pip install pytest) or put a python3 that has it first on the PATH"
		}
		return "the base imports " + m[1] + ", which is not installed for the python3 the judge uses (the first python3 on the server's PATH): " +
			"list it in requirements*.txt or pyproject.toml, which the judge's prepare installs (test.prepare), or install it for that python3"
	}
	if m := nodeMissing.FindStringSubmatch(out); m != nil {
		return "node cannot find " + m[1] + ": the judge installs node_modules from package.json and its lockfile (test.prepare): add it there (npm install " + m[1] + ") and commit both"
	}
	switch v.Outcome {
	case PrepareFailed: // nothing more precise in its output
		return prepareHint(c)
	case BuildFailed:
		return "the base revision does not build in the judge's sandbox with `" + c.Build + "`: fix the base, or the test contract's build command in dixit.yml"
	case Timeout:
		return "an empty test timed out: the sandbox has no network, so a build or runner that waits for one never finishes; raise test.timeout in dixit.yml if the toolchain is merely slow"
	case OverLimit:
		return "an empty test went over the judge's output or resource limits: the runner itself needs more than the sandbox allows"
	}
	return "the test runner could not run an empty test on the base revision with `" + c.Run + "`: check that the runner is installed for the judge, and the test contract in dixit.yml"
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

// prepareHint is the hint of a prepare that failed: its output says what went wrong.
func prepareHint(c Contract) string {
	if c.Prepare == "" {
		return "the test runner the contract needs is missing from the judge's environment: install what the output names"
	}
	prepare := "test.prepare: " + c.Prepare
	if strings.Contains(c.Prepare, "\n") { // a preset's script: quoting it back tells nothing
		prepare = "test.prepare"
	}
	return "the judge could not install the dependencies (" + prepare + ") or find the test runner: " +
		"check that the manifests (" + strings.Join(c.Manifests, ", ") + ") are complete and their lockfile current, " +
		"that the package registry is reachable from the judge, and what the output names"
}
