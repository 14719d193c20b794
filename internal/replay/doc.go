// Package replay replays panel selection rules (the Dixit rule, CodeT's dual agreement and
// a hybrid of the two) on a recorded coder × test pass matrix, so that the rules can be
// measured on real model output without executing any code.
//
// The data set is ../shared/data/humaneval-replay (its README.md and BASELINE.md define
// every figure). Panels are drawn with pyrand, CPython's generator, seeded the way the
// baseline script seeded it, so the replay lands on the baseline's panels.
package replay
