"""The one way shimgen runs an external tool (CMake, Ninja, a compiler).

Every command line is logged at DEBUG as ``RUN: <cmd>`` (``shimgen -v`` shows them). A tool's
output is either streamed to the terminal as it comes (``stream=True``: the build's own progress,
as CMake and Ninja print it) or captured; captured output is logged line by line at DEBUG, and
when the tool fails its last lines go into the ``ToolError``, so a failure is one line that says
why. The ``aoti`` layer starts several compilers at once through ``start``.
"""

from __future__ import annotations

import logging
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from shimgen.errors import ToolError

log = logging.getLogger(__name__)

Echo = Callable[[str], None]
"""Receives a command's progress lines (``print``, or a list's ``append`` in tests)."""
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
            tail = " | ".join(line.strip() for line in output.strip().splitlines()[-TAIL_LINES:])
            raise ToolError(f"{self.what} failed with exit code {self.process.returncode}"
                            + (f": {tail}" if tail else ""))
        return output

    def stop(self) -> None:
        """Kill the tool if it still runs (a sibling job failed: its result is not wanted)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


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
                                   errors="replace")
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
        completed = subprocess.run(argv, cwd=cwd, check=False)
    except OSError as exc:
        raise ToolError(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    if completed.returncode != 0:
        raise ToolError(f"{_what(argv, what)} failed with exit code {completed.returncode} "
                        f"(command: {shlex.join(argv)})")
    return ""
