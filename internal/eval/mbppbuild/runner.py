"""Prepare and run one MBPP problem for the replay corpus (driven by mbppbuild).

Reads one JSON problem on stdin, writes one JSON result on stdout. Steps, per problem:
extract (strip fences, remove module-level asserts, which become the coder's self-tests),
then execute each distinct program in a forked child under limits (the humaneval-replay
runner's: load 3 s, assert 0.5 s, 0.05 s after the 4th timeout), but longer for the reference
solution (30 s an assert) and the hidden test (10 s): MBPP/123's reference needs several
seconds for one of its own asserts.
"""
import ast
import json
import os
import re
import resource
import signal
import sys

LOAD_S, ASSERT_S, SHORT_S, LONG_TIMEOUTS, CANON_S, HIDDEN_S = 3.0, 0.5, 0.05, 4, 30.0, 10.0
HEADER = ("from typing import *\nimport math\nimport re\nimport collections\nimport itertools\n"
          "import heapq\nimport functools\nimport string\nimport hashlib\n")


class Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise Timeout()


def limited(seconds, fn):
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


FENCE = re.compile(r"```(?:python|py|Python)?\n(.*?)(?:```|$)", re.S)


def strip_fences(code):
    if "```" not in code:
        return code
    parts = FENCE.findall(code)
    return "\n".join(parts) if parts else code.replace("```", "")


def split_asserts(code):
    """Returns (program without module-level asserts, [normalised assert], parses)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code, [], False
    lines = code.split("\n")
    drop = set()
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assert):
            found.append(normalise(node))
            drop.update(range(node.lineno - 1, node.end_lineno))
    kept = [l for i, l in enumerate(lines) if i not in drop]
    return "\n".join(kept), found, True


def normalise(node):
    """One assert without its message, as ast.unparse prints it."""
    return ast.unparse(ast.Assert(test=node.test, msg=None))


def normalise_text(text):
    tree = ast.parse(text)
    return [normalise(n) for n in tree.body if isinstance(n, ast.Assert)]


def guard():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 << 20, 16 << 20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    os.chdir(os.environ.get("MBPPBUILD_SCRATCH", "/tmp"))
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    import shutil
    import subprocess
    for name in ("system", "kill", "fork", "forkpty", "remove", "unlink", "rmdir", "removedirs", "rename", "putenv"):
        setattr(os, name, None)
    shutil.rmtree = shutil.move = None
    subprocess.Popen = None


def run_child(program, asserts, hidden, limit):
    """Runs in the child: load, each assert, then the hidden test. Writes results to fd."""
    out = {"loads": False, "cells": [0] * len(asserts), "errors": [None] * len(asserts), "timeouts": 0, "hidden": False}
    ns = {"__name__": "solution"}
    try:
        code = compile(program, "solution.py", "exec")
        limited(LOAD_S, lambda: exec(code, ns))
        out["loads"] = True
    except BaseException as e:
        out["load_error"] = type(e).__name__
        return out
    for i, a in enumerate(asserts):
        lim = limit if limit else (SHORT_S if out["timeouts"] >= LONG_TIMEOUTS else ASSERT_S)
        try:
            c = compile(a, "assert", "exec")
            limited(lim, lambda: exec(c, ns))
            out["cells"][i] = 1
        except Timeout:
            out["timeouts"] += 1
            out["errors"][i] = "Timeout"
        except BaseException as e:
            out["errors"][i] = type(e).__name__
    if hidden is not None:
        try:
            c = compile(hidden, "hidden", "exec")
            limited(HIDDEN_S, lambda: exec(c, ns))
            out["hidden"] = True
        except BaseException as e:
            out["hidden_error"] = type(e).__name__
    return out


def execute(program, asserts, hidden, limit=None):
    """Forks a child for one program; a child that dies or hangs fails what it had left."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            guard()
            signal.signal(signal.SIGALRM, _alarm)
            res = run_child(program, asserts, hidden, limit)
        except BaseException as e:
            res = {"loads": False, "cells": [0] * len(asserts), "timeouts": 0, "hidden": False, "load_error": type(e).__name__}
        data = json.dumps(res).encode()
        os.write(w, data)
        os._exit(0)
    os.close(w)
    budget = LOAD_S + HIDDEN_S + (limit or ASSERT_S) * len(asserts) + 5
    signal.signal(signal.SIGALRM, _alarm)
    chunks = []
    try:
        limited(budget, lambda: [chunks.append(c) for c in iter(lambda: os.read(r, 1 << 16), b"")])
    except Timeout:
        os.kill(pid, signal.SIGKILL)
    os.close(r)
    os.waitpid(pid, 0)
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        return {"loads": False, "cells": [0] * len(asserts), "errors": ["Crash"] * len(asserts), "timeouts": 0, "hidden": False, "killed": True}


def main():
    p = json.load(sys.stdin)
    ep = p["entry_point"]
    prelude = HEADER + "".join(i + "\n" for i in p["test_imports"] or [])
    hidden_asserts = [a for t in p["test_list"] for a in normalise_text(t)]
    hidden = "\n".join(hidden_asserts) + "\n"
    tests, index = [], {}

    def add_test(source, code):
        key = (source, code)
        if key in index:
            tests[index[key]]["n_samples"] += 1
            return
        index[key] = len(tests)
        tests.append({"source": source, "code": code, "n_samples": 1})

    for a in hidden_asserts:
        add_test("mbpp/test_list", a)
    human = set(hidden_asserts)
    coders, self_stats = [], {"found": 0, "copies": 0, "off_entry": 0}
    for c in p["coders"]:
        program, found, parses = split_asserts(strip_fences(c["raw"]))
        for a in found:
            self_stats["found"] += 1
            if a in human:
                self_stats["copies"] += 1
            elif ep not in a:
                self_stats["off_entry"] += 1
            else:
                add_test(c["source"], a)
        if not program.strip():
            continue
        coders.append(dict(c, code=prelude + program, removed_asserts=len(found), parses=parses))
    asserts = [t["code"] for t in tests]
    canon = execute(prelude + p["canonical"], asserts, hidden, limit=CANON_S)
    for t, ok, err in zip(tests, canon["cells"], canon.get("errors", [None] * len(tests))):
        t["correct"] = bool(ok)
        t["canonical_error"] = None if ok else err
    cache = {}
    for c in coders:
        if c["code"] not in cache:
            cache[c["code"]] = execute(c["code"], asserts, hidden)
        res = cache[c["code"]]
        c["loads"], c["row"], c["test_timeouts"], c["hidden_pass"] = res["loads"], res["cells"], res["timeouts"], res["hidden"]
        c["killed"] = bool(res.get("killed"))
        del c["raw"]
    json.dump({"task_id": p["task_id"], "canonical_loads": canon["loads"], "canonical_hidden": canon["hidden"],
               "tests": tests, "coders": coders, "self_tests": self_stats, "distinct_programs": len(cache)}, sys.stdout)


if __name__ == "__main__":
    main()
