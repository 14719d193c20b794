package ci

import (
	"crypto/sha256"
	"fmt"
	mathrand "math/rand/v2"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/tripwire"
)

// jobPlan is a placed test as the judge runs it: where it goes, the file's content with
// the judge's own checks laid in (package tripwire), and those checks.
type jobPlan struct {
	contract.Placement
	content  []byte
	wires    []tripwire.Wire
	lead     int      // wires before the proposal's tests (tripwire.Armed.Lead)
	selected []string // the node ids the run selects (Test.Select); nil: the whole file
}

// command is the contract's run command for this job: with tests selected, the file
// ({path}) gives way to their node ids, the wires' among them in the file's order, so
// that the wires still run in the same process.
func (p jobPlan) command(run string) string {
	if len(p.selected) == 0 {
		return run
	}
	ids := make([]string, 0, len(p.wires)+len(p.selected))
	for _, w := range p.wires[:p.lead] {
		ids = append(ids, p.Rel+"::"+w.Name)
	}
	ids = append(ids, p.selected...)
	for _, w := range p.wires[p.lead:] {
		ids = append(ids, p.Rel+"::"+w.Name)
	}
	return strings.ReplaceAll(run, "{path}", strings.Join(ids, " "))
}

// checkSelect says why a test's Select cannot be run: the contract cannot run single
// tests of the file, or a node id is not one of the file's tests by a plain name (it
// goes into a shell command).
func checkSelect(c Contract, p contract.Placement, sel []string) error {
	if len(sel) == 0 {
		return nil
	}
	if !c.Selects(p.Rel) {
		return fmt.Errorf("test %s selects tests of %s, but the test contract cannot run single tests of it (a Python file under pytest, {path} in test.run)", p.ID, p.Rel)
	}
	for _, id := range sel {
		rest, ok := strings.CutPrefix(id, p.Rel+"::")
		parts := strings.Split(rest, "::")
		if !ok || len(parts) > 2 {
			return fmt.Errorf("test %s selects %q, which is not a test of %s", p.ID, id, p.Rel)
		}
		for _, part := range parts {
			if !pyName.MatchString(part) {
				return fmt.Errorf("test %s selects %q, which is not a test of %s", p.ID, id, p.Rel)
			}
		}
	}
	return nil
}

// pyName is a Python identifier as a node id names a function or class.
var pyName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// selectedFunctions names the module-level functions among node ids ("file::test_x"),
// the tests that get twins; nil when nothing is selected (every test of the file runs).
func selectedFunctions(ids []string) []string {
	if ids == nil {
		return nil
	}
	out := []string{}
	for _, id := range ids {
		if _, rest, ok := strings.Cut(id, "::"); ok && !strings.Contains(rest, "::") {
			out = append(out, strings.SplitN(rest, "[", 2)[0])
		}
	}
	return out
}

func (p jobPlan) armed() bool { return len(p.wires) > 0 }

// twins reports whether the first run also runs the judge's copies of the proposal's
// tests (tripwire.Wire.Twin), and so takes up to twice as long.
func (p jobPlan) twins() bool {
	return slices.ContainsFunc(p.wires, func(w tripwire.Wire) bool { return w.Twin != "" })
}

// tamperedExit is what an armed run's script exits with when the runner exited 0: with a
// wire that must fail in the process, the runner cannot honestly have succeeded.
const tamperedExit = 86

// exitMap is what the sandbox's wrapper maps an armed run's status with
// (sandbox.Invocation.Armed). The runner exits 1 when a test failed, which it must (a
// wire fails every time): that is the run going as it should, so the wrapper sees 0 and
// goes on to the next rerun, while the reports decide each run (a proposal that fails
// stops the reruns there, sandbox.Stopper). A runner that exits 0 said no test failed:
// tamperedExit. Any other status stays as it was. 0: the job is not armed.
func (p jobPlan) exitMap() int {
	if !p.armed() {
		return 0
	}
	return tamperedExit
}

// arm lays the wires into a test file whose runner the judge knows how to read them
// from: a Go test binary's test2json framing or go test -json, and pytest's JUnit XML.
// Other runners, a contract that names no report, and test.tripwires: false run the
// file as the tester wrote it.
func (l *Local) arm(p contract.Placement, test Test) jobPlan {
	plan := jobPlan{Placement: p, content: test.Content, selected: test.Select}
	content := test.Content
	c := l.contract
	known := c.Report == ReportTest2JSON && path.Ext(p.Rel) == ".go" || c.Report == ReportJUnit && path.Ext(p.Rel) == ".py"
	if c.SkipTripwires || !known {
		return plan
	}
	// Drawn from the judge's secret and the test: unknown to any coder before the test
	// runs, and the same for every coder and every run of the same test in this judge,
	// so the armed test compiles once for a tree (the build cache keys on its bytes).
	h := sha256.New()
	h.Write(l.wireKey[:])
	fmt.Fprintf(h, "%s\x00", p.Rel)
	h.Write(content)
	var seed [32]byte
	copy(seed[:], h.Sum(nil))
	a := tripwire.Arm(p.Rel, content, mathrand.New(mathrand.NewChaCha8(seed)), selectedFunctions(test.Select))
	plan.content, plan.wires, plan.lead = a.Content, a.Wires, a.Lead
	return plan
}
