// Package archtest has no code, only tests that keep the architecture of
// docs/architecture.md true as the code changes: every package sits on a floor of the
// page's floors table and imports only what its floor may (the test reads the table, so
// the page is the rule), no package imports more than 8 of the module's internal
// packages, no function takes more than 5 parameters, the "never" imports (the protocol
// knows no GitHub and no model, the judge and the git state know no model, the session
// reaches a model only through cast, the judge's parts import nothing of ci, agents never
// touch GitHub) stay absent, directly or through another package, README.md's layout
// table has one row per package, and no function of the judge (internal/ci and under it)
// is longer than 60 lines.
//
// The violations that existed when the limits came down (issue 29) are listed in
// allowlist_test.go with their size; the list may only shrink.
package archtest
