package orchestrate

import (
	"fmt"
	"strings"

	"github.com/dixit-bot/dixit/internal/fence"
)

// What the orchestrator says to agents. Every sentence is true, and none mentions other
// agents, pass rates, votes or a game (DESIGN.md §1, "Feedback wording").
const (
	askToSolve         = "Please implement the specification."
	askForTest         = "Please propose one more test."
	tooStraightforward = "That test was too straightforward. Please try something more demanding."
	hardToSatisfy      = "That test was hard to satisfy. Please try something more approachable that still checks something meaningful."
	thanksForTest      = "Thank you, that test is useful."
	thanksForFix       = "All tests pass now. Thank you."
)

// feedbackFor is the tester's feedback after a test that did not enter the suite.
func feedbackFor(c Class) string {
	if c == TooHard {
		return hardToSatisfy
	}
	return tooStraightforward
}

// someTestsFail is the coder's only view of the suite: test numbers and ACC/WA.
// Numbers stay as the coder first heard them, even after a human dropped a test.
func someTestsFail(numbers []int, passed []bool) string {
	var failing []string
	var vector []string
	for i, ok := range passed {
		mark := "ACC"
		if !ok {
			mark = "WA"
			failing = append(failing, fmt.Sprint(numbers[i]))
		}
		vector = append(vector, fmt.Sprintf("%d %s", numbers[i], mark))
	}
	noun := "Test " + failing[0] + " fails"
	if len(failing) > 1 {
		noun = "Tests " + strings.Join(failing[:len(failing)-1], ", ") + " and " + failing[len(failing)-1] + " fail"
	}
	return fmt.Sprintf("Your code was checked: %s. Results: %s. Please fix it.", noun, strings.Join(vector, ", "))
}

// The other protocols' requests. Their coders write their own tests, and may see all
// that those tests report.
const (
	writeOwnTests = "Write tests for your code too, in the repository's usual test files. " +
		"Give every assertion a message holding a unique six-digit hexadecimal assert_id, so a failure can be found without line numbers."
	askToSolveWithTests = "Please implement the specification. " + writeOwnTests
	// tamperedRun stands for a tampered run's output, which names the judge's own checks:
	// they must stay unknown to the code under test.
	tamperedRun = "The judge's own checks in the test's process did not come out as they must: " +
		"something in your code changes what the test runner reports."
	// tamperingTest stands for it when most implementations' runs of one test tampered:
	// then the test, not the code, is the likely cause.
	tamperingTest = "The judge's own checks in the test's process did not come out as they must, for most implementations: " +
		"the test itself may end its process early, skip itself or change what the test runner reports."
)

// reviewRequest asks a critic to review a coder's work, given as its files.
func reviewRequest(files []File) string {
	var b strings.Builder
	b.WriteString("Please review this implementation of the specification. Answer with a JSON object only: " +
		`{"lgtm": true} if it is correct, or {"lgtm": false, "corrections": ["...", "..."]} listing what must change.` + "\n")
	total := 0
	for _, f := range files {
		if total+len(f.Content) > maxReviewBytes {
			fmt.Fprintf(&b, "\n(%s and the files after it are left out: the review shows at most %d bytes.)\n", f.Path, maxReviewBytes)
			break
		}
		total += len(f.Content)
		text := strings.ToValidUTF8(string(f.Content), "\uFFFD")
		fc := fence.For(text)
		fmt.Fprintf(&b, "\n%s:\n%s\n%s\n%s\n", f.Path, fc, strings.TrimRight(text, "\n"), fc)
	}
	return b.String()
}

// maxReviewBytes bounds the code a critic is shown in one request.
const maxReviewBytes = 200 << 10

// fixFromReview hands the critics' corrections to the coder acting as fixer.
func fixFromReview(corrections []string) string {
	var b strings.Builder
	b.WriteString("A review of your code asks for these corrections:\n")
	for i, c := range corrections {
		fmt.Fprintf(&b, "%d. %s\n", i+1, c)
	}
	b.WriteString("Please correct the code (and its tests where they are affected).")
	return b.String()
}

// dependenciesFail tells a coder its tree's dependencies could not be installed, so no
// test ran on it: what failed is the install of its manifests, not a test.
func dependenciesFail(output string) string {
	return "Your code could not be checked: installing its dependencies failed, so no test ran. " +
		"Fix the dependency files (go.mod and go.sum, package.json and its lockfile, requirements or pyproject.toml) so that they install. " +
		"The installer said:\n" + output
}
