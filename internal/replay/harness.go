package replay

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The limits the data set's runner used (its README, "Execution"): loading a program 3 s,
// an assert 0.5 s, and 0.05 s once a coder has timed out four times.
const (
	loadSeconds   = 3.0
	assertSeconds = 0.5
	shortSeconds  = 0.05
	longTimeouts  = 4
)

// solutionFile is where the coder's program goes in the judge's tree.
const solutionFile = "solution.py"

// harness writes a pytest file with one test function per assert, test_0 … test_n-1 in
// the order given. It loads solution.py once and runs every assert in the program's
// namespace in turn, as the data set's runner did, each under SIGALRM; a program that
// does not load fails every assert. An assert that runs out of time is skipped
// ("dixit-timeout"), so that a timeout is told apart from a failure. A module this
// python3 lacks (an import failing while loading, or inside an assert) is an expected
// failure ("dixit-environment"): the environment's, not the code's. Asserts
// are string literals compiled at run time: a test file that pytest could not import
// would fail every test for a reason of ours.
func harness(asserts []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `import signal
import pytest


class _DixitTimeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _DixitTimeout()


signal.signal(signal.SIGALRM, _alarm)


def _limited(seconds, fn):
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


_ns = {"__name__": "solution"}
_missing = None
_load_error = None
_timeouts = 0
try:
    with open(%[1]q) as _f:
        _code = compile(_f.read(), %[1]q, "exec")
    _limited(%[2]g, lambda: exec(_code, _ns))
except ModuleNotFoundError as e:
    _missing = repr(e)[:200]
except BaseException as e:
    _load_error = repr(e)[:200]

_ASSERTS = [
`, solutionFile, loadSeconds)
	for _, a := range asserts {
		fmt.Fprintf(&b, "    %s,\n", strconv.Quote(a))
	}
	fmt.Fprintf(&b, `]


def _check(i):
    global _timeouts
    if _missing is not None:
        pytest.xfail("dixit-environment: " + _missing)
    if _load_error is not None:
        pytest.fail("solution did not load: " + _load_error, pytrace=False)
    code = compile(_ASSERTS[i], "assert_%%d" %% i, "exec")
    limit = %[1]g if _timeouts >= %[2]d else %[3]g
    try:
        _limited(limit, lambda: exec(code, _ns))
    except _DixitTimeout:
        _timeouts += 1
        pytest.skip("dixit-timeout")
    except ModuleNotFoundError as e:
        pytest.xfail("dixit-environment: " + repr(e)[:200])
    except (KeyboardInterrupt, SystemExit) as e:
        pytest.fail("raised " + repr(e), pytrace=False)
`, shortSeconds, longTimeouts, assertSeconds)
	for i := range asserts {
		fmt.Fprintf(&b, "\n\ndef test_%d():\n    _check(%d)\n", i, i)
	}
	return []byte(b.String())
}

// pytestEnv makes the runner's output one progress character per test, in file order,
// and nothing else worth parsing: no tracebacks, no summary lines.
// Warnings are ignored so that no summary grows the output past the judge's kept tail,
// which would cut the progress lines off.
// PYTHONHASHSEED is the data set's (its README, "Execution"): the order of a set of strings
// depends on it, and some recorded programs return such an order.
var pytestEnv = map[string]string{"PYTEST_ADDOPTS": "--tb=no -rN -W ignore -p no:randomly", "PYTHONHASHSEED": "0"}

// cell is what one assert did in an execution.
type cell int8

const (
	cellUnknown cell = iota // not reported (the run stopped before it)
	cellPass
	cellFail
	cellTimeout
	cellEnvironment // a module this python3 lacks: not a result
)

func (c cell) String() string {
	return [...]string{"unknown", "pass", "fail", "timeout", "environment"}[c]
}

// progressLine is a line of pytest's progress output: result characters, then a
// percentage in brackets when the line is full or the run ends.
var progressLine = regexp.MustCompile(`(?m)^([.FEsxX]+)\s*(?:\[\s*\d+%\])?\s*$`)

// parseProgress reads n results from a pytest run's output. Fewer characters than n
// leave the rest unknown (the run crashed or ran out of time). Under -q the output starts
// with the progress: when it does not (the runner failed, or the judge kept only a tail),
// every result is unknown, for characters read from a tail would land on the wrong asserts.
func parseProgress(output string, n int) []cell {
	out := make([]cell, n)
	if !progressLine.MatchString(firstLine(output)) {
		return out
	}
	i := 0
	for _, m := range progressLine.FindAllStringSubmatch(output, -1) {
		for _, ch := range m[1] {
			if i >= n {
				return out
			}
			switch ch {
			case '.':
				out[i] = cellPass
			case 's':
				out[i] = cellTimeout
			case 'x':
				out[i] = cellEnvironment
			default:
				out[i] = cellFail
			}
			i++
		}
	}
	return out
}

func firstLine(s string) string {
	s = strings.TrimLeft(s, "\n")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
