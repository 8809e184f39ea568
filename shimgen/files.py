"""Writing files: atomically, and only when the content changed (so builds do not rerun)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_if_changed(path: Path, content: bytes) -> bool:
    """Write ``content`` to ``path`` atomically unless it already holds exactly that.

    Returns True when the file was written. A crash mid-write leaves the old file intact: the
    bytes go to a temporary file in the same directory, which is renamed over the target.
    """
    try:
        if path.read_bytes() == content:
            return False
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return True


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
