"""The binary members of a zip (a wheel), each decompressed once under caps on the bytes it makes
us produce, and handed out as a read-only buffer.

Why not a compression-ratio limit: valid wheels exceed any ratio worth having (pillow 13.0.0's
``libXau`` is 99.5 % NUL padding before a LOAD segment at 0x200000, ratio 224), while a bomb is
only harmful through the bytes it makes a reader produce. So every member is decompressed as a
stream, counted against a per-member and a whole-zip cap as it goes, and refused the moment it
passes one: a bomb costs at most the caps, never memory.

Small members stay in memory; a larger one is streamed into a private temporary file (created by
``tempfile`` with O_EXCL in a directory of our own, removed as soon as it is read) and mapped, so
a 750 MB ``libtensorflow_cc.so.2`` costs only the pages its symbol tables occupy. Members are
decompressed by two threads ahead of the reader (zlib and the file writes release the GIL), in
name order, at most ``LOOKAHEAD`` at a time, so the temporary files never hold more than a few
members.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import tempfile
import threading
import zipfile
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from shimgen.errors import InputError

CHUNK = 1 << 20
IN_MEMORY = 8 << 20  # members up to this size are never written to disk
LOOKAHEAD = 3
WORKERS = 2  # CI and the development machines have 2 cores


@dataclass(frozen=True)
class ZipCaps:
    members: int
    member_bytes: int
    total_bytes: int


DEFAULT_CAPS = ZipCaps(members=20_000, member_bytes=1 << 30, total_bytes=4 << 30)
"""What ``shimgen.binary.load.DEFAULT_LIMITS`` allows (a test keeps the two equal)."""


class _Budget:
    """The whole zip's decompressed bytes, shared by the worker threads."""

    def __init__(self, limit: int, where: str) -> None:
        self.limit, self.where, self.used, self.lock = limit, where, 0, threading.Lock()

    def spend(self, count: int) -> None:
        with self.lock:
            self.used += count
            if self.used > self.limit:
                raise InputError(f"{self.where}: members add up to more than the limit of {self.limit} bytes")


def unsafe_member_name(name: str) -> str | None:
    """Why a zip member name would leave the extraction directory, or None when it stays inside."""
    unified = name.replace("\\", "/")
    if unified.startswith("/") or (len(unified) > 1 and unified[1] == ":"):
        return "is absolute"
    if ".." in unified.split("/"):
        return "climbs out of the archive ('..')"
    if "\0" in unified:
        return "holds a NUL byte"
    return None


def open_zip(path, where: str, caps: ZipCaps) -> tuple[zipfile.ZipFile, list[zipfile.ZipInfo]]:
    """The zip and its file members in name order (symlink entries left out: their targets are
    members too), checked for count and names (absolute, '..', NUL, given twice) before any member
    is read. check-symbols, prefix-imports and recompile all open zips through it."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise InputError(f"{where}: corrupt zip: {exc}") from None
    infos = [info for info in archive.infolist() if not info.is_dir()]
    if len(infos) > caps.members:
        archive.close()
        raise InputError(f"{where}: zip holds {len(infos)} members, more than the limit of {caps.members}")
    seen: set[str] = set()
    for info in infos:
        problem = unsafe_member_name(info.filename)
        unified = info.filename.replace("\\", "/")
        if problem is None and unified in seen:
            problem = "appears twice (readers disagree on which copy counts)"
        seen.add(unified)
        if problem:
            archive.close()
            # Nothing is ever extracted under the member's name, but a wheel with such a name is
            # malformed (and hostile to every installer): refuse it rather than report on it.
            raise InputError(f"{where}: member name {info.filename!r} {problem}; refusing a malformed zip")
    files = [i for i in infos if (i.external_attr >> 16) & 0o170000 != 0o120000]
    return archive, sorted(files, key=lambda i: i.filename)


class Member:
    """One decompressed member: ``data`` (bytes or a read-only mmap) until ``close``; ``pread``
    reads its temporary file without the mapping (None when it is held in memory)."""

    def __init__(self, name: str, data, cleanup: Callable[[], None] | None = None,
                 pread: Callable[[int, int], bytes] | None = None) -> None:
        self.name, self.data, self._cleanup, self.pread = name, data, cleanup, pread

    def close(self) -> None:
        if self._cleanup is not None:
            self._cleanup()
            self._cleanup = None


class MemberStream:
    """The binary members of one zip (those whose first ``head_bytes`` ``wanted`` accepts), each
    decompressed whole, in name order, by ``WORKERS`` threads working up to ``LOOKAHEAD`` members
    ahead of the reader. Decompression starts when the stream is made, so a caller can make it
    early (check-symbols does, before importing its checker) and let zlib run on the other core
    meanwhile. Iterate it once; close each Member before asking for the next (its temporary file
    goes then), and the stream when done (``with``), which also stops what is still running."""

    def __init__(self, path, where: str, caps: ZipCaps, wanted: Callable[[bytes], bool], head_bytes: int) -> None:
        self.path, self.where, self.caps = path, where, caps
        self.archive, infos = open_zip(path, where, caps)
        self._scratch = tempfile.TemporaryDirectory(prefix="shimgen-zip-")
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="shimgen-zip")
        self._budget = _Budget(caps.total_bytes, where)
        self._queue = iter(infos)
        self._pending: deque[Future[Member | None]] = deque()
        self._wanted, self._head_bytes = wanted, head_bytes
        self._fill()

    def _fill(self) -> None:
        while len(self._pending) < LOOKAHEAD:
            info = next(self._queue, None)
            if info is None:
                return
            self._pending.append(self._pool.submit(_decompress, self.archive, info, self.where, self.caps,
                                                   self._budget, self._wanted, self._head_bytes,
                                                   self._scratch.name))

    def __iter__(self) -> Iterator[Member]:
        while self._pending:
            member = self._pending.popleft().result()
            self._fill()
            if member is not None:
                yield member

    def close(self) -> None:
        """Finish (or cancel) what runs, free what it made, remove the scratch directory."""
        for future in self._pending:  # an error or an early stop
            future.cancel()
        self._pool.shutdown(wait=True)
        for future in self._pending:
            if future.cancelled():
                continue
            try:
                done = future.result()
            except Exception:  # already stopping: the first error is the one reported
                continue
            if done is not None:
                done.close()
        self._pending.clear()
        self._scratch.cleanup()
        self.archive.close()

    def __enter__(self) -> MemberStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_STARTED: dict[str, MemberStream] = {}
"""Streams started ahead of their reader (``start_early``), by the path as the reader names it."""


def start_early(paths: Iterable[str], caps: ZipCaps, wanted: Callable[[bytes], bool], head_bytes: int) -> None:
    """Start decompressing the binary members of the zips ``paths`` now, for a reader that asks
    ``started(path)`` later. Whatever fails here (a malformed zip) is left for that reader to find
    and report in its own words."""
    for path in paths:
        try:
            _STARTED[path] = MemberStream(path, path, caps, wanted, head_bytes)
        except (OSError, InputError):
            continue


def started(path: str, caps: ZipCaps) -> MemberStream | None:
    """The stream ``start_early`` began for ``path`` under the same caps (once), or None."""
    stream = _STARTED.pop(path, None)
    if stream is not None and stream.caps != caps:
        stream.close()
        return None
    return stream


def stop_early() -> None:
    """Close every stream started early that no reader took (an error stopped the command first)."""
    while _STARTED:
        _STARTED.popitem()[1].close()


def _decompress(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str, caps: ZipCaps, budget: _Budget,
                wanted: Callable[[bytes], bool], head_bytes: int, scratch: str) -> Member | None:
    name = f"{where}({info.filename})"
    if info.file_size > caps.member_bytes:
        raise InputError(f"{name}: member of {info.file_size} bytes exceeds the limit of {caps.member_bytes}")
    spill: tuple[int, str] | None = None
    try:
        with archive.open(info) as handle:
            head = handle.read(head_bytes)
            if not wanted(head):
                return None
            chunks, size = [head], len(head)
            budget.spend(len(head))
            while True:
                chunk = handle.read(CHUNK)
                if not chunk:
                    break
                size += len(chunk)
                # The declared size may lie: the bytes produced are what is counted.
                if size > caps.member_bytes:
                    raise InputError(f"{name}: member exceeds the limit of {caps.member_bytes} bytes")
                budget.spend(len(chunk))
                if spill is None and size > IN_MEMORY:
                    spill = tempfile.mkstemp(dir=scratch, suffix=".member")
                    _write_all(spill[0], chunks)
                    chunks = []
                if spill is not None:
                    _write_all(spill[0], [chunk])
                else:
                    chunks.append(chunk)
    except InputError:
        _drop(spill)
        raise
    except (zipfile.BadZipFile, zlib.error, OSError, ValueError, EOFError, NotImplementedError,
            zipfile.LargeZipFile) as exc:
        _drop(spill)
        raise InputError(f"{name}: cannot read member: {exc}") from None
    except BaseException:
        _drop(spill)
        raise
    if spill is None:
        return Member(info.filename, b"".join(chunks))
    try:
        data = mmap.mmap(spill[0], 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as exc:
        _drop(spill)
        raise InputError(f"{name}: cannot map the decompressed member: {exc}") from None

    def cleanup() -> None:
        data.close()
        _drop(spill)

    def pread(offset: int, size: int) -> bytes:
        return os.pread(spill[0], size, offset)

    return Member(info.filename, data, cleanup, pread)


def _write_all(fd: int, chunks: list[bytes]) -> None:
    for chunk in chunks:
        view = memoryview(chunk)
        while view:
            written = os.write(fd, view)
            view = view[written:]


def _drop(spill: tuple[int, str] | None) -> None:
    if spill is None:
        return
    fd, file = spill
    with contextlib.suppress(OSError):
        os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(file)
