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
# Time. A test that runs longer than DIXIT_TEST_TIMEOUT seconds (none when 0) is stopped
# with DixitTestTimeout, a BaseException so that an `except Exception` in the test or the
# code under test does not swallow it, raised again every second for a bare `except:`
# that does; pytest reports the test failed and the session goes on. Without it, one
# test that hangs on a coder's patch would cost the whole session.
import os
import signal

import pytest

_LIMIT = int(os.environ.get("DIXIT_TEST_TIMEOUT", "0") or 0)
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


def _expired(signum, frame):
    raise DixitTestTimeout("the test ran longer than %d s (the matrix's per-test limit)" % _LIMIT)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if _LIMIT <= 0:
        yield
        return
    previous = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, _LIMIT, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
