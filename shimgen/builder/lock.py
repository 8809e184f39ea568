"""An exclusive lock on a build directory, so two ``shimgen build`` runs never interleave.

Two builds in one directory would race on the generated files, the init cache, CMake's cache and
Ninja's log. The lock is ``fcntl.flock`` on ``DIR/.shimgen-build.lock``: the kernel releases it
when the holder exits, however it exits (even SIGKILL), so a stale lock file never blocks anyone.
The tools a build runs (CMake, Ninja, compilers) inherit the lock's descriptor: a shimgen killed
mid-build leaves them running, and the lock stays held until the last of them exits.
The lock file itself is never removed: unlinking it would let a third process lock a new inode
while the second still waits on the old one.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from shimgen.builder import process
from shimgen.errors import InputError, ToolError

log = logging.getLogger(__name__)

LOCK_NAME = ".shimgen-build.lock"


@contextmanager
def build_lock(build_dir: Path, *, wait: bool = True, timeout: float | None = None,
               progress: int = logging.INFO) -> Iterator[Path]:
    """Hold the build directory's lock for the ``with`` body.

    When another process holds it: with ``wait``, log one "waiting for another shimgen build in
    DIR" line (at ``progress``, through the shimgen logger) and block (up to ``timeout`` seconds, then ToolError); without ``wait``, ToolError
    at once. Where fcntl does not exist (Windows), no lock is taken.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield build_dir / LOCK_NAME
        return
    path = build_dir / LOCK_NAME
    fd = _open_lock(build_dir, path)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                raise ToolError(f"another shimgen build is running in {build_dir} (lock {path} is held)") from None
            log.log(progress, "waiting for another shimgen build in %s to finish (lock %s)", build_dir, path)
            _wait_for(fd, fcntl, timeout, build_dir)
        # Who holds it, for a person looking at the directory; informational only.
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        # The tools this build starts inherit the descriptor, so they hold the lock as long as they
        # run, even when this process is killed before them.
        process.inherit_in_tools(fd)
        yield path
    finally:
        process.stop_inheriting(fd)
        os.close(fd)  # releases the lock (unless a tool of this build still runs)


def _open_lock(build_dir: Path, path: Path) -> int:
    """The lock file's descriptor. shimgen owns that path, so it is opened without following a
    symlink, and kept only when it is a regular file with no other name: the PID is written into it,
    and a link planted there must not make a build truncate the file it points at. Python opens it
    close-on-exec; the build's own tools get it through ``process.inherit_in_tools`` only."""
    try:
        build_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"{path}: the build lock is a symbolic link; shimgen does not follow it "
                             "(remove it)") from None
        raise ToolError(f"cannot create the build lock {path}: {exc.strerror or exc}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
        os.close(fd)
        what = "not a regular file" if not stat.S_ISREG(info.st_mode) else "a hard link to another file"
        raise InputError(f"{path}: the build lock is {what}; shimgen does not write into it (remove it)")
    return fd


def _wait_for(fd: int, fcntl, timeout: float | None, build_dir: Path) -> None:
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise ToolError(f"gave up after {timeout:g} s waiting for another shimgen build in {build_dir}") from None
            time.sleep(0.1)
