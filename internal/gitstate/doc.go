// Package gitstate keeps a run's hidden state in a bare git "workshop" repository:
// coder trees and tester proposals on refs under refs/dixit/<run>/ (never refs/heads),
// agent checkpoints as commits, and the run's journal. It uses go-git only.
package gitstate
