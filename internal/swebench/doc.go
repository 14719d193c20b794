// Package swebench makes the pass matrix of a corpus of SWE-bench instances (the
// swe-sympy corpus in ../shared/data/swe-sympy: real agent coder patches and real
// LLM-written test patches on sympy issues) with the real judge, and labels every coder
// patch by SWE-bench's definition.
//
// For each instance it builds, in memory, the base tree (from bases.git, read with
// go-git), the base with the gold patch, and the base with each coder patch (Tree, a
// ci.Tree whose Hash is a content hash). Every tree gets the same layout on top:
//
//   - the label tests: the instance's test files reset to the base, the gold test patch
//     applied (as SWE-bench does);
//   - each test patch's version of the files it edits, beside the originals under a
//     module name of their own (test_x_dixit_<k>.py), so that every test patch runs in
//     the tree's one session; a test patch that edits anything but test modules, or
//     whose module imports itself by name, runs in a session of its own with the patch
//     applied; one that touches no selectable function is not runnable;
//   - the base's pytest settings (conftest.py, pytest.ini, setup.cfg, tox.ini), so that
//     a patch cannot change how its tests run;
//   - dixit_plugin.py, a pytest plugin every session loads: it keeps the session's
//     selected node ids (dixit_select.txt) and stops a test that runs past the per-test
//     limit.
//
// Each tree then runs one pytest session through the judge's RunSuite: its sandbox, its
// limits, its JUnit evidence. A unit (one label test, or one test patch's touched
// functions) passes when every node id it selects is reported PASSED or XFAIL. A
// session that ends without a report (a crash, the session's own timeout) is split in
// two until each unit has its answer. What the environment keeps from an answer is an
// env cell with its reason, never a failure: a session that could not run on the base
// or the gold patch, a label test file that does not import even with the gold patch.
// A coder's tree that cannot even load its conftest (its code does not import), or a
// unit that ends its session alone where the base and the gold patch answered it, fails.
//
// A coder patch is resolved iff it applies and every FAIL_TO_PASS and PASS_TO_PASS test
// passes on it. The controls are checked on every instance (every FAIL_TO_PASS test fails
// on the base, every label test passes with the gold patch) and compared with the
// corpus' goldcheck.json; the labels are compared with the ones the sources published.
//
// Runner.All writes one Matrix per instance as <instance_id>.json, keyed by the hash of
// its inputs (InputsHash), so a run that stops resumes where it stopped; bench/swematrix
// is its command.
package swebench
