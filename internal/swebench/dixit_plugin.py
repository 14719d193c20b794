# Loaded into every pytest session of the swe-sympy matrix (PYTEST_PLUGINS), from the
# root of the tree under test, where the judge lays it over whatever the tree holds.
#
# Selection. The session is given test files; dixit_select.txt beside this file lists
# the node ids to run ("file::test_x", "file::TestC::test_m"; a bare id selects its
# parametrized cases too), and every other collected test is deselected. Node ids on the
# command line would do the same, except that pytest then ends the whole session when
# one selected module fails to import ("ERROR: not found"); a file argument only reports
# that module's collection error, and the others run.
#
# Time. A test that takes more than DIXIT_TEST_CPU seconds of CPU, or DIXIT_TEST_TIMEOUT
# seconds of wall time (none when 0), is stopped with DixitTestTimeout, a BaseException
# so that an `except Exception` in the test or the code under test does not swallow it,
# raised again every second for a bare `except:` that does; pytest reports the test
# failed and the session goes on. Without it, one test that hangs on a coder's patch
# would cost the whole session. CPU time does not depend on how loaded the machine is;
# wall time catches a test that hangs without computing.
import os
import signal

import pytest

_CPU = int(os.environ.get("DIXIT_TEST_CPU", "0") or 0)
_WALL = int(os.environ.get("DIXIT_TEST_TIMEOUT", "0") or 0)
_SELECT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dixit_select.txt")


def pytest_collection_modifyitems(session, config, items):
    try:
        with open(_SELECT) as f:
            wanted = set(line.strip() for line in f if line.strip())
    except FileNotFoundError:
        return
    keep, drop = [], []
    for item in items:
        nodeid = item.nodeid
        bare = nodeid.split("[", 1)[0]
        (keep if nodeid in wanted or bare in wanted else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


class DixitTestTimeout(BaseException):
    pass


def _cpu_expired(signum, frame):
    raise DixitTestTimeout("the test took more than %d s of CPU (the matrix's per-test limit)" % _CPU)


def _wall_expired(signum, frame):
    raise DixitTestTimeout("the test ran longer than %d s (the matrix's per-test limit)" % _WALL)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    timers = []
    if _CPU > 0:
        timers.append((signal.SIGPROF, signal.ITIMER_PROF, _CPU, _cpu_expired))
    if _WALL > 0:
        timers.append((signal.SIGALRM, signal.ITIMER_REAL, _WALL, _wall_expired))
    previous = []
    for sig, timer, secs, handler in timers:
        previous.append((sig, timer, signal.signal(sig, handler)))
        signal.setitimer(timer, secs, 1.0)
    try:
        yield
    finally:
        for sig, timer, handler in previous:
            signal.setitimer(timer, 0)
            signal.signal(sig, handler)
