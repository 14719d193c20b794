package contract

import "strings"

// OwnTests is the contract that runs a tree's own tests: the files Exclude drops for a
// coder are kept, and the run collects every test rather than the one placed at Path.
// It is false when the contract's commands do not say how (a custom run command).
func (c Contract) OwnTests() (Contract, bool) {
	own := c
	own.Exclude = nil
	if c.Build != "" && strings.Contains(c.Build, "go test -c") {
		return own, true // the test binary holds every _test.go of the package
	}
	// The presets name the placed file last on the run line; without it the runner
	// collects the tree's tests by its own rules, the placed file among them.
	for _, file := range []string{" {path}", " " + c.Path} {
		if strings.HasSuffix(c.Run, file) {
			own.Run = strings.TrimSuffix(c.Run, file)
			return own, true
		}
	}
	return Contract{}, false
}
