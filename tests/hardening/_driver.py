"""Runs many check-symbols cases in one interpreter, each with its own verdict.

Usage: python _driver.py CASES.json RESULTS.jsonl START

Each case calls shimgen.cli.main in-process. Before each case a {"begin": id} line is flushed, so
when the process dies (a native crash in a parser, or the per-case alarm) the parent knows which
case did it and restarts from the next one. The alarms keep their default actions, so they kill
the process even while a C++ parser holds the interpreter: SIGPROF after CASE_SECONDS of CPU time
(user + system: on a loaded 2-core machine a healthy case can wait for a core far longer than it
computes), SIGALRM after HANG_WALL_SECONDS of wall time (a case blocked without using the CPU). Both Python's streams and the
file descriptors 1 and 2 are captured per case (a native library may write to fd 2 directly).
The parent sets the memory limit (RLIMIT_AS) before this starts.
"""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import sys
import tempfile
import time
import traceback

CASE_SECONDS = 10
HANG_WALL_SECONDS = 120
ALARM_SIGNALS = (signal.SIGPROF, signal.SIGALRM)


def main() -> None:
    cases = json.loads(open(sys.argv[1]).read())
    start = int(sys.argv[3])
    out = open(sys.argv[2], "a", buffering=1)
    for alarm in ALARM_SIGNALS:
        signal.signal(alarm, signal.SIG_DFL)
    import lief  # noqa: F401

    import shimgen.check  # noqa: F401 - imports are not what a case measures
    from shimgen.cli import main as shimgen_main

    native = tempfile.TemporaryFile()
    for case in cases[start:]:
        out.write(json.dumps({"begin": case["id"]}) + "\n")
        restore = _apply(case)
        saved = os.dup(1), os.dup(2)
        native.seek(0)
        native.truncate()
        os.dup2(native.fileno(), 1)
        os.dup2(native.fileno(), 2)
        py_out, py_err = io.StringIO(), io.StringIO()
        sys.stdout, sys.stderr = py_out, py_err
        escaped = None
        signal.setitimer(signal.ITIMER_PROF, CASE_SECONDS)
        signal.alarm(HANG_WALL_SECONDS)
        began = time.perf_counter()
        try:
            code = shimgen_main(case["args"])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException:
            code, escaped = None, traceback.format_exc()
        elapsed = time.perf_counter() - began
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
        native.seek(0)
        native_text = native.read().decode("utf-8", "replace")
        _undo(restore)
        out.write(json.dumps({
            "id": case["id"], "code": code, "stdout": py_out.getvalue(), "stderr": py_err.getvalue(),
            "native": native_text, "escaped": escaped, "seconds": elapsed,
            "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        }) + "\n")


def _apply(case: dict):
    """Patch the case's file in place (big files are not copied per case); return the undo."""
    patches = case.get("patch")
    if not patches:
        return None
    undo = []
    with open(case["path"], "r+b") as handle:
        for offset, hexbytes in patches:
            new = bytes.fromhex(hexbytes)
            handle.seek(offset)
            undo.append((offset, handle.read(len(new))))
            handle.seek(offset)
            handle.write(new)
    return case["path"], undo


def _undo(restore) -> None:
    if restore is None:
        return
    path, undo = restore
    with open(path, "r+b") as handle:
        for offset, old in reversed(undo):
            handle.seek(offset)
            handle.write(old)


if __name__ == "__main__":
    main()
