// Package rules measures, on recorded pass matrices of real coders against real LLM-written
// tests, which tests should enter the vetted suite (the keep rule), what that suite says
// about an agent patch held out of the panel (the gate of `bot vet`), and which panel coder
// to pick (the escalation PR), with 95 % bootstrap intervals over instances.
//
// It knows no corpus: internal/replay/rules/humaneval and internal/replay/rules/swesympy
// turn HumanEval's recorded matrix and the swe-sympy matrices into Instances. Nothing runs;
// every figure comes from the recorded cells (issue 31, items 1 and 2).
package rules
