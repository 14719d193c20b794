// Package archtest has no code, only tests that keep the architecture of
// docs/architecture.md true as the code changes: no package imports more than 10 of the
// module's internal packages, no function takes more than 6 parameters, the "never"
// imports (the protocol knows no GitHub and no model, the judge and the git state know no
// model, agents never touch GitHub) stay absent, directly or through another package,
// README.md's layout table has one row per package, and no function of the judge
// (internal/ci and under it) is longer than 60 lines.
//
// The violations that existed when the limits came (issue 19) are listed in
// allowlist_test.go with their size; the list may only shrink.
package archtest
