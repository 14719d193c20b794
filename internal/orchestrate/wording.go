package orchestrate

import (
	"fmt"
	"strings"
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
func someTestsFail(passed []bool) string {
	var failing []string
	var vector []string
	for i, ok := range passed {
		mark := "ACC"
		if !ok {
			mark = "WA"
			failing = append(failing, fmt.Sprint(i+1))
		}
		vector = append(vector, fmt.Sprintf("%d %s", i+1, mark))
	}
	noun := "Test " + failing[0] + " fails"
	if len(failing) > 1 {
		noun = "Tests " + strings.Join(failing[:len(failing)-1], ", ") + " and " + failing[len(failing)-1] + " fail"
	}
	return fmt.Sprintf("Your code was checked: %s. Results: %s. Please fix it.", noun, strings.Join(vector, ", "))
}
