package swebench

import (
	_ "embed"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/dixit-bot/dixit/internal/pytouch"
)

// layout is what every tree of an instance gets laid over it before its session: the
// label tests (SWE-bench's: the test files reset to the base, the gold test patch
// applied), the base's pytest settings, and each runnable test patch's version of the
// files it edits under a module name of its own.
type layout struct {
	overlay map[string]*file // set on every tree (nil: removed)
	labels  []labelTest
	tests   []testPlan
}

// labelTest is one FAIL_TO_PASS or PASS_TO_PASS test and the node ids that select it.
type labelTest struct {
	name string
	f2p  bool
	ids  []string
	file string // the test file that defines it ("" when none does)
}

// Ways a test patch runs.
const (
	modeCopy   = "copy"   // its files beside the originals, in the tree's shared session
	modeDirect = "direct" // applied to the tree, in a session of its own
	modeNone   = "none"   // not runnable: reason says why
)

// testPlan is how one test patch runs.
type testPlan struct {
	mode    string
	reason  string
	ids     []string         // node ids of its touched functions
	changes map[string]*file // direct mode: the files it changes on the base
	patch   *Patch
	fuzz    int
}

// plugin is the pytest plugin every tree gets at its root and every session loads
// (PYTEST_PLUGINS): it selects the session's tests from selectFile, and stops a test
// that runs past the per-test limit.
const (
	plugin     = "dixit_plugin"
	selectFile = "dixit_select.txt"
)

//go:embed dixit_plugin.py
var pluginSource []byte

// configFiles are the files that say how pytest runs; every tree gets the base's, so
// that a coder's patch cannot change what runs or how (none in the corpus tries).
var configFiles = regexp.MustCompile(`(^|/)conftest\.py$|^(pytest\.ini|\.pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml)$`)

// testFileRE matches the files pytest collects as test modules by default.
var testFileRE = regexp.MustCompile(`(^|/)(test_[^/]*|[^/]*_test)\.py$`)

// planLayout reads an instance's label tests and test patches against its base.
// avoid holds paths the copies must not take (files that coder patches add).
func planLayout(inst *Instance, base *Tree, avoid map[string]bool) (*layout, error) {
	lay := &layout{overlay: map[string]*file{plugin + ".py": newFile(pluginSource, false)}}
	for _, p := range base.Paths() {
		if configFiles.MatchString(p) {
			lay.overlay[p] = base.files[p]
		}
	}
	// The label tests: test files reset to the base, then the gold test patch.
	for _, f := range inst.TestFiles {
		lay.overlay[f] = base.files[f] // nil when the base has none: removed
	}
	gtp, err := ParsePatch(inst.ID+" gold_test_patch", []byte(inst.GoldTestPatch))
	if err != nil {
		return nil, err
	}
	goldTests, err := gtp.Apply(base.with(lay.overlay), FuzzNone)
	if err != nil {
		return nil, fmt.Errorf("the gold test patch does not apply to the base: %w", err)
	}
	for p, f := range goldTests {
		lay.overlay[p] = f
	}
	defsOf := map[string]map[string]bool{}
	for _, f := range inst.TestFiles {
		if tf := lay.overlay[f]; tf != nil {
			defsOf[f] = pytouch.Defs(tf.data)
		}
	}
	add := func(names []string, f2p bool) {
		for _, name := range names {
			lt := labelTest{name: name, f2p: f2p}
			for _, f := range inst.TestFiles {
				if ids := pytouch.NodeIDs(f, defsOf[f], name); len(ids) > 0 {
					lt.ids = append(lt.ids, ids...)
					if lt.file == "" {
						lt.file = f
					}
				}
			}
			lay.labels = append(lay.labels, lt)
		}
	}
	add(inst.FailToPass, true)
	add(inst.PassToPass, false)

	taken := map[string]bool{}
	for p := range avoid {
		taken[p] = true
	}
	for _, p := range base.Paths() {
		taken[p] = true
	}
	for p := range lay.overlay {
		taken[p] = true
	}
	for k := range inst.Tests {
		tp := planTest(inst, base, k, taken)
		if tp.mode == modeCopy {
			for p, f := range tp.changes {
				lay.overlay[p] = f
				taken[p] = true
			}
			tp.changes = nil
		}
		lay.tests = append(lay.tests, tp)
	}
	return lay, nil
}

// planTest decides how test patch k runs: its edited files copied beside the
// originals when it edits test modules only, defines each touched function at module
// or class level there and does not import its own module; else applied directly.
func planTest(inst *Instance, base *Tree, k int, taken map[string]bool) testPlan {
	t := inst.Tests[k]
	fuzz := FuzzNone
	if t.AppliesWith == "patch-fuzz3" {
		fuzz = Fuzz3
	}
	if len(t.TouchedTests) == 0 {
		return testPlan{mode: modeNone, reason: "the patch touches no test function pytest can select (touched_tests is empty)"}
	}
	p, err := ParsePatch("testers/"+inst.ID+"/"+t.Name+".diff", t.Diff)
	if err != nil {
		return testPlan{mode: modeNone, reason: err.Error()}
	}
	changes, err := p.Apply(base, fuzz)
	if err != nil {
		return testPlan{mode: modeNone, reason: "does not apply to the base: " + err.Error()}
	}
	direct := func(why string) testPlan {
		tp := testPlan{mode: modeDirect, reason: why, patch: p, fuzz: fuzz}
		defs := map[string]map[string]bool{}
		for f, c := range changes {
			if c != nil && strings.HasSuffix(f, ".py") {
				defs[f] = pytouch.Defs(c.data)
			}
		}
		for _, name := range t.TouchedTests {
			found := false
			for _, f := range sortedKeys(defs) {
				if ids := pytouch.NodeIDs(f, defs[f], name); len(ids) > 0 {
					tp.ids = append(tp.ids, ids...)
					found = true
				}
			}
			if !found {
				return testPlan{mode: modeNone, reason: fmt.Sprintf("touched test %s is not defined at module or class level in the files the patch edits", name)}
			}
		}
		return tp
	}
	for f, c := range changes {
		if c == nil {
			return direct("the patch removes " + f)
		}
		if !testFileRE.MatchString(f) || configFiles.MatchString(f) {
			return direct("the patch edits " + f + ", which is not a test module")
		}
		mod := strings.ReplaceAll(strings.TrimSuffix(f, ".py"), "/", ".")
		stem := strings.TrimSuffix(path.Base(f), ".py")
		if strings.Contains(string(c.data), mod) || regexp.MustCompile(`from\s+\.\s*`+regexp.QuoteMeta(stem)+`\b|from\s+\.\s+import\s+[^\n]*\b`+regexp.QuoteMeta(stem)+`\b`).Match(c.data) {
			return direct("the patched " + f + " imports its own module, which a copy under another name would not be")
		}
	}
	tp := testPlan{mode: modeCopy, changes: map[string]*file{}}
	copyOf := map[string]string{}
	for _, f := range sortedKeys(changes) {
		stem := strings.TrimSuffix(f, ".py")
		name := fmt.Sprintf("%s_dixit_%d.py", stem, k)
		for taken[name] {
			stem += "_"
			name = fmt.Sprintf("%s_dixit_%d.py", stem, k)
		}
		copyOf[f] = name
		tp.changes[name] = changes[f]
	}
	for _, name := range t.TouchedTests {
		found := false
		for _, f := range sortedKeys(copyOf) {
			cp := copyOf[f]
			if ids := pytouch.NodeIDs(cp, pytouch.Defs(tp.changes[cp].data), name); len(ids) > 0 {
				tp.ids = append(tp.ids, ids...)
				found = true
			}
		}
		if !found {
			return testPlan{mode: modeNone, reason: fmt.Sprintf("touched test %s is not defined at module or class level in the files the patch edits", name)}
		}
	}
	sort.Strings(tp.ids)
	return tp
}
