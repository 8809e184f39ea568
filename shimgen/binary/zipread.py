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
import threading
import zipfile
import zlib
from collections import deque, namedtuple
from collections.abc import Callable, Iterable, Iterator

from shimgen.errors import InputError

# Only what opening a zip needs is imported up front (check-symbols starts a wheel's decompression
# before the rest of shimgen is imported): no dataclasses, concurrent.futures (which imports
# logging) or tempfile until they are used.

CHUNK = 1 << 20
IN_MEMORY = 8 << 20  # members up to this size are never written to disk
LOOKAHEAD = 3
WORKERS = 2  # CI and the development machines have 2 cores


class ZipCaps(namedtuple("ZipCaps", ("members", "member_bytes", "total_bytes"))):
    """Caps on one zip: its member count, and the bytes one member and all of them may produce."""

    __slots__ = ()


DEFAULT_CAPS = ZipCaps(members=20_000, member_bytes=1 << 30, total_bytes=4 << 30)
"""What ``shimgen.binary.load.DEFAULT_LIMITS`` allows (a test keeps the two equal)."""


class _Job:
    """One call run by a worker: ``result`` waits for it and returns its value or raises its error."""

    def __init__(self, call: Callable[[], Member | None]) -> None:
        self.call, self.done = call, threading.Event()
        self.value: Member | None = None
        self.error: BaseException | None = None
        self.cancelled = False

    def run(self) -> None:
        if not self.cancelled:
            try:
                self.value = self.call()
            except BaseException as exc:  # handed to the reader, raised there
                self.error = exc
        self.done.set()

    def cancel(self) -> None:
        self.cancelled = True  # a job a worker has not started yet is skipped

    def result(self) -> Member | None:
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value


class _Workers:
    """A few threads running jobs in submission order (concurrent.futures' executor, without its
    imports: it pulls in logging and queue before the first member could start)."""

    def __init__(self, count: int) -> None:
        self._jobs: deque[_Job | None] = deque()
        self._ready = threading.Condition()
        self._threads = [threading.Thread(target=self._work, name=f"shimgen-zip-{i}", daemon=True)
                         for i in range(count)]
        for thread in self._threads:
            thread.start()

    def submit(self, function: Callable[..., Member | None], *args: object) -> _Job:
        job = _Job(lambda: function(*args))
        with self._ready:
            self._jobs.append(job)
            self._ready.notify()
        return job

    def _work(self) -> None:
        while True:
            with self._ready:
                while not self._jobs:
                    self._ready.wait()
                job = self._jobs.popleft()
            if job is None:
                return
            job.run()

    def shutdown(self) -> None:
        """Let the queued jobs finish (cancelled ones are skipped), then stop every thread."""
        with self._ready:
            self._jobs.extend([None] * len(self._threads))
            self._ready.notify_all()
        for thread in self._threads:
            thread.join()


class _Scratch:
    """The private directory spilled members go to, made on first use (most wheels never need it)."""

    def __init__(self) -> None:
        self._directory: object = None
        self._lock = threading.Lock()

    def file(self) -> tuple[int, str]:
        import tempfile

        with self._lock:
            if self._directory is None:
                self._directory = tempfile.TemporaryDirectory(prefix="shimgen-zip-")
            name = self._directory.name  # type: ignore[attr-defined]
        return tempfile.mkstemp(dir=name, suffix=".member")

    def cleanup(self) -> None:
        with self._lock:
            if self._directory is not None:
                self._directory.cleanup()  # type: ignore[attr-defined]
                self._directory = None


class _Stopped(Exception):
    """Raised in a worker when the stream it works for was closed: its member is not wanted."""


class _Budget:
    """The whole zip's decompressed bytes, shared by the worker threads."""

    def __init__(self, limit: int, where: str) -> None:
        self.limit, self.where, self.used, self.lock = limit, where, 0, threading.Lock()
        self.stopped = False

    def spend(self, count: int) -> None:
        if self.stopped:  # the reader has stopped (an error, a usage error before it began): stop too
            raise _Stopped(self.where)
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
        self._scratch = _Scratch()
        self._pool = _Workers(WORKERS)
        self._budget = _Budget(caps.total_bytes, where)
        self._queue = iter(infos)
        self._pending: deque[_Job] = deque()
        self._wanted, self._head_bytes = wanted, head_bytes
        self._lock = threading.Lock()
        self._active = 0
        """Jobs queued or running, plus binaries made and not yet taken by the reader: at most
        LOOKAHEAD. A member that turns out not to be a binary frees its slot at once, so the
        workers skip ahead through a wheel's .py and .pyi files to its libraries while the reader
        is still busy (or, started early, not yet reading at all)."""
        self._stopped = False
        self._fill()

    def _fill(self) -> None:
        with self._lock:
            while self._active < LOOKAHEAD and not self._stopped:
                info = next(self._queue, None)
                if info is None:
                    return
                self._active += 1
                self._pending.append(self._pool.submit(self._one, info))

    def _one(self, info: zipfile.ZipInfo) -> Member | None:
        try:
            member = _decompress(self.archive, info, self.where, self.caps, self._budget, self._wanted,
                                 self._head_bytes, self._scratch)
        except BaseException:
            with self._lock:
                self._stopped = True  # nothing further is started; the reader raises this one
            raise
        if member is None:
            with self._lock:
                self._active -= 1
            self._fill()  # before this job is marked done, so the reader finds what follows it queued
        return member

    def __iter__(self) -> Iterator[Member]:
        while self._pending:
            member = self._pending.popleft().result()
            if member is None:
                continue  # not a binary: its worker freed the slot and queued the next member
            with self._lock:
                self._active -= 1
            self._fill()
            yield member

    def close(self) -> None:
        """Finish (or cancel) what runs, free what it made, remove the scratch directory."""
        with self._lock:
            self._stopped = True  # no worker queues another member
        for job in self._pending:  # an error or an early stop: what has not started is skipped,
            job.cancel()
        self._budget.stopped = True  # what runs stops at its next chunk
        self._pool.shutdown()
        for job in self._pending:
            if job.value is not None:  # made before the cancel: free it (an error is already reported)
                job.value.close()
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
        if path in _STARTED:
            continue
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
                wanted: Callable[[bytes], bool], head_bytes: int, scratch: _Scratch) -> Member | None:
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
                    spill = scratch.file()
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
