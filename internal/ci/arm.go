package ci

import (
	"crypto/rand"
	"fmt"
	mathrand "math/rand/v2"
	"path"

	"github.com/dixit-bot/dixit/internal/ci/contract"
	"github.com/dixit-bot/dixit/internal/ci/tripwire"
)

// jobPlan is a placed test as the judge runs it: where it goes, the file's content with
// the judge's own checks laid in (package tripwire), and those checks.
type jobPlan struct {
	contract.Placement
	content []byte
	wires   []tripwire.Wire
}

func (p jobPlan) armed() bool { return len(p.wires) > 0 }

// tamperedExit is what an armed run's script exits with when the runner exited 0: with a
// wire that must fail in the process, the runner cannot honestly have succeeded.
const tamperedExit = 86

// script wraps the contract's run command for an armed job. The runner exits 1 when a
// test failed, which it must (a wire fails every time): that is the run going as it
// should, so the wrapper sees 0 and goes on to the next rerun, while the reports decide
// each run (a proposal that fails stops the reruns there, sandbox.Stopper). A runner
// that exits 0 said no test failed: tamperedExit. Any other status stays as it was.
func (p jobPlan) script(run string) string {
	if !p.armed() {
		return run
	}
	return fmt.Sprintf("(%s\n)\ndixit_s=$?\ncase $dixit_s in 0) exit %d ;; 1) exit 0 ;; esac\nexit $dixit_s", run, tamperedExit)
}

// arm lays the wires into a test file whose runner the judge knows how to read them
// from: a Go test binary's test2json framing or go test -json, and pytest's JUnit XML.
// Other runners, a contract that names no report, and test.tripwires: false run the
// file as the tester wrote it.
func (l *Local) arm(p contract.Placement, content []byte) jobPlan {
	plan := jobPlan{Placement: p, content: content}
	c := l.contract
	known := c.Report == ReportTest2JSON && path.Ext(p.Rel) == ".go" || c.Report == ReportJUnit && path.Ext(p.Rel) == ".py"
	if c.SkipTripwires || !known {
		return plan
	}
	var seed [32]byte
	_, _ = rand.Read(seed[:]) // crypto/rand.Read never fails on Linux
	a := tripwire.Arm(p.Rel, content, mathrand.New(mathrand.NewChaCha8(seed)))
	plan.content, plan.wires = a.Content, a.Wires
	return plan
}
