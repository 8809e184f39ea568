"""The one way shimgen runs an external tool (CMake, Ninja, a compiler).

Every command line is logged at DEBUG as ``RUN: <cmd>`` (``shimgen -v`` shows them). A tool's
output is either streamed to the terminal as it comes (``stream=True``: the build's own progress,
as CMake and Ninja print it) or captured; captured output is logged line by line at DEBUG, and
when the tool fails what it said went wrong (``failure_summary``: CMake's error block, a compiler's
first error, else the last lines) goes into the ``ToolError``, so a failure is one line that says why. The ``aoti`` layer starts several compilers at once through ``start``.
"""

from __future__ import annotations

import logging
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from shimgen.errors import ToolError

log = logging.getLogger(__name__)

_INHERITED: set[int] = set()
"""File descriptors every tool inherits: the build locks held (``lock.build_lock``). A tool that
outlives shimgen (``shimgen`` killed mid-build: ``cmake --build`` and Ninja carry on) then keeps
the lock until it exits too, so no second build starts in the directory it is still writing."""


def inherit_in_tools(fd: int) -> None:
    _INHERITED.add(fd)


def stop_inheriting(fd: int) -> None:
    _INHERITED.discard(fd)


Command = Sequence[str | os.PathLike[str]]
TAIL_LINES = 3
"""How many of a failed tool's last output lines its ToolError carries."""


@dataclass
class Running:
    """A started tool whose output is being captured; ``wait`` collects it."""

    argv: list[str]
    what: str
    process: subprocess.Popen[str]

    def wait(self) -> str:
        """The tool's combined stdout and stderr; ToolError (with the tail) when it failed."""
        output, _ = self.process.communicate()
        for line in output.splitlines():
            log.debug("  %s", line)
        if self.process.returncode != 0:
            summary = failure_summary(output)
            raise ToolError(f"{self.what} failed with exit code {self.process.returncode}"
                            + (f": {summary}" if summary else ""))
        return output

    def stop(self) -> None:
        """Kill the tool if it still runs (a sibling job failed: its result is not wanted)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def failure_summary(output: str) -> str:
    """What a failed tool's captured output says went wrong, on one line (pure).

    CMake ends a failed configure with "Configuring incomplete, errors occurred!": the cause is
    the first ``CMake Error`` block above it (its heading and indented message), so that is shown.
    A compiler's first ``error:`` line comes next. Else the last TAIL_LINES lines."""
    lines = [line.rstrip() for line in output.splitlines()]
    for index, line in enumerate(lines):
        if line.startswith("CMake Error"):
            body: list[str] = []
            for following in lines[index + 1:]:
                if not following.strip():
                    if body:
                        break
                    continue
                if not following.startswith(" "):
                    break
                body.append(following.strip())
            return " ".join([line.strip(), *body])
    first_error = next((line.strip() for line in lines if re.search(r"(^|\s|:)(fatal )?error:", line)), None)
    if first_error:
        return first_error
    return " | ".join(line.strip() for line in output.strip().splitlines()[-TAIL_LINES:])


def _argv(command: Command) -> list[str]:
    return [os.fspath(part) for part in command]


def _what(argv: list[str], what: str | None) -> str:
    return what or Path(argv[0]).name


def start(command: Command, *, what: str | None = None, cwd: Path | None = None) -> Running:
    """Start ``command`` with its output captured (stderr joined to stdout)."""
    argv = _argv(command)
    log.debug("RUN: %s", shlex.join(argv))
    try:
        process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   errors="replace", pass_fds=tuple(_INHERITED))
    except OSError as exc:
        raise ToolError(f"cannot run {argv[0]} for {_what(argv, what)}: {exc.strerror or exc}") from None
    return Running(argv, _what(argv, what), process)


def run(command: Command, *, what: str | None = None, cwd: Path | None = None, stream: bool = False) -> str:
    """Run ``command`` to the end; returns its output ('' when streamed). Raises ToolError on failure.

    Streamed output is already on the terminal, so the error names the command instead of a tail."""
    if not stream:
        return start(command, what=what, cwd=cwd).wait()
    argv = _argv(command)
    log.debug("RUN: %s", shlex.join(argv))
    sys.stdout.flush()  # our own lines first, then the tool's
    try:
        process = subprocess.Popen(argv, cwd=cwd, pass_fds=tuple(_INHERITED))
    except OSError as exc:
        raise ToolError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    returncode = _wait_saying_so(process, _what(argv, what))
    if returncode != 0:
        raise ToolError(f"{_what(argv, what)} failed with exit code {returncode} "
                        f"(command: {shlex.join(argv)})")
    return ""


HEARTBEAT_SECONDS = 30.0
"""How often a streamed tool that is still running gets a line of its own. Ninja writing to a pipe
or a CI log (not a terminal) prints a step's [n/N] line only when the step ends, and one compile of
a large vendored C file takes minutes: without this, nothing moves on the screen for that long."""


def _wait_saying_so(process: subprocess.Popen, what: str) -> int:
    began = time.monotonic()
    while True:
        try:
            return process.wait(timeout=HEARTBEAT_SECONDS)
        except subprocess.TimeoutExpired:
            log.info("%s: still running after %d s", what, time.monotonic() - began)
        except BaseException:  # as subprocess.run does: the tool does not outlive an interrupted wait
            process.kill()
            process.wait()
            raise
