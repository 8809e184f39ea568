"""Writing files: atomically, and only when the content changed (so builds do not rerun)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path


def write_if_changed(path: Path, content: bytes) -> bool:
    """Write ``content`` to ``path`` atomically unless it already holds exactly that.

    Returns True when the file was written. A crash mid-write leaves the old file intact: the
    bytes go to a temporary file in the same directory, which is renamed over the target.
    """
    return bool(write_all_if_changed({path: content}))


def write_all_if_changed(files: Mapping[Path, bytes]) -> list[Path]:
    """Write each changed file of ``files`` as one set; return those written, in path order.

    Every changed file is first written in full to a temporary file beside it; only when all are
    written are they renamed into place. A failure on the way (a full disk, a file size limit, a
    read-only directory) removes the temporaries and leaves every old file as it was: never a mix of
    old and new outputs. Unchanged files are not touched (their mtime stays)."""
    staged: list[tuple[str, Path]] = []
    renamed = 0
    try:
        for path, content in sorted(files.items()):
            if not _holds(path, content):
                staged.append((_stage(path, content), path))
        for tmp, path in staged:  # renames within one directory need no new space: they rarely fail
            os.replace(tmp, path)
            renamed += 1
    except BaseException:
        for tmp, _ in staged[renamed:]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
        raise
    return [path for _, path in staged]


def _holds(path: Path, content: bytes) -> bool:
    """True when ``path`` is a regular file holding exactly ``content``. Read only after the open
    descriptor shows a regular file of the right size: a FIFO planted at an output path would block
    the read forever, and a link to /dev/zero fill the memory."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(content):
            return False
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read(len(content) + 1) == content
    finally:
        os.close(fd)


def _stage(path: Path, content: bytes) -> str:
    """``content`` in a new temporary file beside ``path``, flushed to disk; its name."""
    if path.is_dir():  # found now, not when the rename fails after other files were replaced
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:200]}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:  # a write error names no file: name the output
            raise type(exc)(exc.errno, exc.strerror, str(path)) from None
        raise
    return tmp


def is_within(path: Path, root: Path) -> bool:
    """True when ``path`` (symlinks resolved) lies inside ``root`` (symlinks resolved)."""
    try:
        path.resolve().relative_to(root.resolve())
    except ValueError:
        return False
    return True


def same_file(a: Path, b: Path) -> bool:
    """True when ``a`` and ``b`` name one file: the same path once symlinks are resolved, or the same
    inode (a hard link). A path that does not exist is the same as nothing but itself."""
    if a.resolve() == b.resolve():
        return True
    try:
        return a.samefile(b)
    except OSError:
        return False
