"""AOTInductor ``.pt2`` packages: the one place that opens, inspects and rewrites them (a zip holding
``data/aotinductor/<model>/*.so`` beside the generated sources), plus the pre-flight checks that
prefix-imports and recompile share."""

from __future__ import annotations

import io
import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import IO

from shimgen.binary.load import DEFAULT_LIMITS, Limits
from shimgen.errors import InputError
from shimgen.files import same_file

PACKAGE_LIMITS = Limits(member_bytes=64 << 30, total_bytes=256 << 30)
"""Caps on a package's members as declared and as copied: a model's weights may be many gigabytes,
and they are streamed, never held in memory; the member count is check-symbols'."""
READ_LIMIT = DEFAULT_LIMITS.member_bytes
"""The most shimgen reads of one member it parses as text (a generated .cpp): check-symbols' cap."""
MODEL_SO_LIMIT = PACKAGE_LIMITS.member_bytes
"""The most shimgen copies of a package's model .so: AOTInductor links the weights into it, so a real
model's .so is as large as its weights (XLM's default config: 2.7 GB). It is streamed to disk; LIEF
then holds about four times its size in memory while it rewrites it (10.5 GB for that 2.7 GB .so)."""
MAX_RATIO = 200
"""Decompressed / compressed size beyond which a package member is taken for a zip bomb."""
CHUNK = 1 << 20
ZIP64_AT = zipfile.ZIP64_LIMIT


def check_source_and_output(source: Path, output: Path, config: Path | None = None) -> str:
    """Refuse a missing input, an output that would overwrite it or the config, or an output
    directory that does not exist; returns how to name the input in messages."""
    where = str(source)
    if not source.is_file():
        raise InputError(f"{where}: {'not a regular file' if source.exists() else 'no such file'}")
    if same_file(output, source):
        raise InputError(f"{where}: the output must differ from the input")
    if config is not None and same_file(output, config):
        raise InputError(f"{output}: the output must not overwrite the config {config}")
    if not output.parent.is_dir():
        raise InputError(f"{output}: directory {output.parent} does not exist")
    return where


def read_magic(path: Path, where: str) -> bytes:
    """The first four bytes of ``path``: what kind of file it is."""
    try:
        with path.open("rb") as handle:
            return handle.read(4)
    except OSError as exc:
        raise InputError(f"{where}: cannot read: {exc.strerror}") from None


def open_package(path: Path, where: str, limits: Limits = PACKAGE_LIMITS) -> zipfile.ZipFile:
    """The package, its listing checked as check-symbols checks a wheel's (``zipread.open_zip``: member
    count, absolute, climbing or repeated names), then each declared size against the caps, and
    the compression ratio: torch stores a package's members uncompressed, so a member that inflates
    more than ``MAX_RATIO`` times is a zip bomb, refused before a byte of it is read."""
    from shimgen.binary.zipread import ZipCaps, open_zip

    archive, infos = open_zip(path, where, ZipCaps(limits.zip_members, limits.member_bytes, limits.total_bytes))
    for info in infos:
        problem = None
        if info.file_size > limits.member_bytes:
            problem = f"member of {info.file_size} bytes exceeds the limit of {limits.member_bytes}"
        elif info.file_size > 1 << 20 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            problem = f"inflates {info.file_size // max(info.compress_size, 1)} times; refusing a possible zip bomb"
        if problem:
            archive.close()
            raise InputError(f"{where}({info.filename}): {problem}")
    return archive


def extract_member(archive: zipfile.ZipFile, name: str, target: Path, where: str,
                   limit: int = READ_LIMIT) -> Path:
    """Stream one member to ``target`` in chunks, at most ``limit`` bytes (the header may lie)."""
    with target.open("wb") as out:
        copy_member(archive, archive.getinfo(name), out, where, limit)
    return target


def read_text_member(archive: zipfile.ZipFile, name: str, where: str, limit: int = READ_LIMIT) -> str:
    """A member as text (a generated .cpp), at most ``limit`` bytes."""
    buffer = io.BytesIO()
    copy_member(archive, archive.getinfo(name), buffer, where, limit)
    return buffer.getvalue().decode("utf-8", errors="replace")


def copy_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, out: IO[bytes], where: str, limit: int) -> int:
    """Stream one member into ``out`` in chunks, at most ``limit`` bytes (the header may lie); the
    bytes copied. ``shimgen repair`` re-zips wheels through it too."""
    copied = 0
    try:
        with archive.open(info) as source:
            while chunk := source.read(CHUNK):
                copied += len(chunk)
                if copied > limit:
                    raise InputError(f"{where}({info.filename}): member exceeds the limit of {limit} bytes")
                _write(out, chunk)
    except _WriteError as exc:  # the disk, a file size limit: not the package's fault
        error = exc.__cause__
        target = getattr(out, "name", None)
        what = f"{target} (a copy of {info.filename})" if isinstance(target, str) else f"a copy of {where}({info.filename})"
        raise InputError(f"cannot write {what}: "
                         f"{error.strerror if isinstance(error, OSError) and error.strerror else error}") from None
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
        raise InputError(f"{where}({info.filename}): cannot read member: {exc}") from None
    return copied


class _WriteError(Exception):
    """A write of ``copy_member``'s output failed (its cause is the OSError)."""


def _write(out: IO[bytes], chunk: bytes) -> None:
    try:
        out.write(chunk)
    except OSError as exc:
        raise _WriteError from exc


def model_members(names: Sequence[str]) -> list[str]:
    """The model libraries among a package's member names."""
    return [n for n in names if PurePosixPath(n).suffix == ".so" and "/data/aotinductor/" in f"/{n}"]


def write_package(archive: zipfile.ZipFile, replacements: dict[str, Path], staged: Path, where: str = "",
                  limits: Limits = PACKAGE_LIMITS) -> None:
    """A copy of ``archive`` at ``staged`` with some members' bytes replaced by files.

    Members keep their order, names, dates and compression: torch writes them stored
    (uncompressed), and the runtime's loader copies the .so straight out of the mapped archive.
    Every member is streamed in chunks (a model's weights may be gigabytes), each at most its
    declared size and all together at most ``limits.total_bytes``.
    """
    where = where or archive.filename or "package"
    total = 0
    with zipfile.ZipFile(staged, "w", allowZip64=True) as out:
        for info in archive.infolist():
            copy = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            copy.compress_type = info.compress_type
            copy.external_attr = info.external_attr
            copy.create_system = info.create_system
            replacement = replacements.get(info.filename)
            copy.file_size = replacement.stat().st_size if replacement else info.file_size
            with out.open(copy, "w", force_zip64=copy.file_size >= ZIP64_AT) as sink:
                if replacement is not None:
                    with replacement.open("rb") as source:
                        shutil.copyfileobj(source, sink, CHUNK)
                    total += copy.file_size
                else:
                    # At most the declared size: a member whose data runs longer is refused.
                    total += copy_member(archive, info, sink, where, info.file_size)
            if total > limits.total_bytes:
                raise InputError(f"{where}: members add up to more than the limit of {limits.total_bytes} bytes")
