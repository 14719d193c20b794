// Package repoconfig reads a repository's .github/dixit.yml through the GitHub API, from
// the default branch only, so a pull request can never change the rules that judge it.
// "Missing", "unreadable" and "invalid" are three different outcomes.
package repoconfig

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v60/github"

	"github.com/dixit-bot/dixit/internal/config"
)

// Path is where the per-repository settings live.
const Path = ".github/dixit.yml"

// maxSize bounds the file: settings are a few hundred bytes.
const maxSize = 64 << 10

// Outcome is what reading the settings came to.
type Outcome string

const (
	Loaded     Outcome = "loaded"     // the file was read and is valid
	Missing    Outcome = "missing"    // no file: the defaults apply
	Unreadable Outcome = "unreadable" // GitHub did not give us the file: no run starts
	Invalid    Outcome = "invalid"    // the file is wrong: no run starts, the author is told why
)

// Result is the settings to use, or why there are none.
type Result struct {
	Outcome  Outcome
	Settings config.Settings // set for Loaded and Missing
	Branch   string          // the default branch the file was read from
	Err      error           // for Unreadable and Invalid
}

// Fetch reads the settings of owner/repo from its default branch.
func Fetch(ctx context.Context, gh *github.Client, owner, repo string) Result {
	r, _, err := gh.Repositories.Get(ctx, owner, repo)
	if err != nil {
		return Result{Outcome: Unreadable, Err: fmt.Errorf("read repository %s/%s: %w", owner, repo, err)}
	}
	branch := r.GetDefaultBranch()
	file, _, resp, err := gh.Repositories.GetContents(ctx, owner, repo, Path, &github.RepositoryContentGetOptions{Ref: branch})
	var ghErr *github.ErrorResponse
	switch {
	case errors.As(err, &ghErr) && resp != nil && resp.StatusCode == http.StatusNotFound:
		defaults, _ := config.Parse(nil)
		return Result{Outcome: Missing, Settings: defaults, Branch: branch}
	case err != nil:
		return Result{Outcome: Unreadable, Branch: branch, Err: fmt.Errorf("read %s on %s: %w", Path, branch, err)}
	case file == nil:
		return Result{Outcome: Unreadable, Branch: branch, Err: fmt.Errorf("%s on %s is a directory, not a file", Path, branch)}
	case file.GetSize() > maxSize:
		return Result{Outcome: Invalid, Branch: branch, Err: fmt.Errorf("%s on %s is %d bytes; settings must fit in %d", Path, branch, file.GetSize(), maxSize)}
	}
	content, err := file.GetContent()
	if err != nil {
		return Result{Outcome: Unreadable, Branch: branch, Err: fmt.Errorf("decode %s on %s: %w", Path, branch, err)}
	}
	s, err := config.Parse([]byte(content))
	if err != nil {
		return Result{Outcome: Invalid, Branch: branch, Err: err}
	}
	return Result{Outcome: Loaded, Settings: s, Branch: branch}
}

// Comment is what the bot posts on the issue when no run can start, or "" when one can.
func (r Result) Comment() string {
	switch r.Outcome {
	case Invalid:
		return fmt.Sprintf("Dixit did not start: `%s` on `%s` is invalid.\n\n> %v\n\nFix the file on the default branch, then remove and re-add the label.", Path, r.Branch, r.Err)
	case Unreadable:
		return fmt.Sprintf("Dixit did not start: it could not read `%s` (%v). It will try again when the label is re-added.", Path, r.Err)
	}
	return ""
}

// ForVetting reads the settings that judge a pull request of owner/repo: from the default
// branch, never from the pull request (its author must not choose the judge of their own
// patch), with the Dixit rule whatever protocol dixit.yml names for issues.
func ForVetting(ctx context.Context, gh *github.Client, owner, repo string) Result {
	r := Fetch(ctx, gh, owner, repo)
	if r.Err != nil {
		return r
	}
	r.Settings.Protocol = config.ProtocolDixit
	if err := r.Settings.Validate(); err != nil {
		return Result{Outcome: Invalid, Branch: r.Branch, Err: fmt.Errorf("for vetting: %w", err)}
	}
	return r
}
