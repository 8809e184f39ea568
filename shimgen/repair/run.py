"""``shimgen repair``'s I/O edge: stage copies, plan, edit, verify, then write atomically.

Every input (an ELF shared library, a directory, a wheel) is read into a scratch directory under
the output directory: only ELF files are copied (streamed, never whole in memory), and edits are
made to those copies. The whole set is re-read with the checker's reader and compared with the
plan before anything appears under the output directory; a wheel is then re-zipped member by
member with its RECORD rewritten, a directory copied, a library moved into place (os.replace).
"""

from __future__ import annotations

import base64
import hashlib
import logging
import mmap
import os
import shutil
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from shimgen.binary.load import HEAD_BYTES, load_bytes, sniff, unsafe_member_name
from shimgen.binary.symbols import Binary
from shimgen.errors import InputError
from shimgen.repair.edit import hide_in_place, rename_with_lief
from shimgen.repair.plan import Plan, plan_hide, plan_prefix
from shimgen.repair.verify import verify

log = logging.getLogger("shimgen.repair")

MAX_MEMBERS = 100_000
MAX_MEMBER_BYTES = 8 << 30
"""A wheel member is streamed to disk, never held in memory; this only caps the disk it may use."""
CHUNK = 1 << 20
SIGNATURES = ("RECORD.jws", "RECORD.p7s")  # signatures over the old RECORD: invalid after a repair


@dataclass(frozen=True)
class Options:
    mode: str = "hide"  # hide | prefix
    keep: tuple[str, ...] = ()
    """Globs of exports hide mode keeps visible, beside the entry points."""
    keep_names: tuple[str, ...] = ()
    prefix: str = ""
    patterns: tuple[str, ...] = ()


@dataclass
class _Member:
    key: str  # display name, as the Binary says
    label: tuple[str, str | None]  # (path, member) given to the reader
    staged: Path
    relative: str  # inside its unit


@dataclass
class _Unit:
    source: Path
    kind: str  # elf | dir | wheel
    members: list[_Member] = field(default_factory=list)


@dataclass(frozen=True)
class Result:
    plan: Plan
    outputs: tuple[Path, ...]


def repair(paths: Sequence[Path], output: Path | None, options: Options, *, plan_only: bool = False) -> Result:
    """Repair the set ``paths`` into ``output`` (a directory), or only plan it. Raises InputError
    (nothing written) on unusable input or when the verification finds any mismatch."""
    paths = [Path(p) for p in paths]
    if len({p.name for p in paths}) != len(paths):
        raise InputError("two inputs share a file name; their repaired copies would overwrite each other")
    if output is not None and not plan_only:
        _check_output(paths, output)
    parent = output if output is not None and not plan_only else None
    try:
        scratch_dir = tempfile.TemporaryDirectory(prefix=".shimgen-repair-", dir=parent)
    except OSError as exc:
        raise InputError(f"{parent}: cannot write there: {exc.strerror}") from None
    with scratch_dir as scratch:
        work = Path(scratch)
        units = [_stage(path, work / f"in{index}") for index, path in enumerate(paths)]
        before = _read([m for u in units for m in u.members])
        if not before:
            raise InputError("no ELF binary among the inputs: nothing to repair")
        if options.mode == "prefix":
            plan = plan_prefix(before, options.prefix, options.patterns)
        else:
            plan = plan_hide(before, options.keep, options.keep_names)
        if plan_only:
            return Result(plan, ())
        _apply(plan, units, work)
        after = _read([m for u in units for m in u.members])
        problems = verify(plan, before, after)
        if problems:
            raise InputError("the repaired set fails verification, nothing written: " + problems[0]
                             + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        assert output is not None
        outputs = tuple(_write(unit, output, work / f"out{index}") for index, unit in enumerate(units))
    return Result(plan, outputs)


def _check_output(paths: Sequence[Path], output: Path) -> None:
    if output.exists() and not output.is_dir():
        raise InputError(f"{output}: not a directory")
    output.mkdir(parents=True, exist_ok=True)
    out = output.resolve()
    for path in paths:
        resolved = path.resolve()
        if resolved.parent == out or (path.is_dir() and out.is_relative_to(resolved)):
            raise InputError(f"{output}: the output would overwrite or lie inside the input {path}")


# Staging --------------------------------------------------------------------------------------------


def _is_elf_head(head: bytes) -> bool:
    return sniff(head) == "ELF"


def _stage(path: Path, into: Path) -> _Unit:
    into.mkdir()
    if path.is_symlink() and not path.exists():
        raise InputError(f"{path}: broken symbolic link")
    if path.is_dir():
        unit = _Unit(path, "dir")
        for relative in _files_under(path):
            source = path / relative
            with open(source, "rb") as handle:
                if not _is_elf_head(handle.read(HEAD_BYTES)):
                    continue
            staged = into / f"{len(unit.members)}"
            shutil.copyfile(source, staged)
            unit.members.append(_Member(str(source), (str(source), None), staged, relative))
        return unit
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    with open(path, "rb") as handle:
        head = handle.read(HEAD_BYTES)
    kind = sniff(head)
    if kind == "ELF":
        staged = into / "0"
        shutil.copyfile(path, staged)
        return _Unit(path, "elf", [_Member(str(path), (str(path), None), staged, path.name)])
    if kind == "zip":
        return _stage_wheel(path, into)
    raise InputError(f"{path}: neither an ELF file, a directory nor a wheel")


def _files_under(root: Path) -> Iterator[str]:
    """Regular files under ``root`` (relative, sorted); symbolic links are not followed."""
    for directory, subdirectories, files in os.walk(root):
        subdirectories.sort()
        for name in sorted(files):
            full = Path(directory) / name
            if full.is_file() and not full.is_symlink():
                yield str(full.relative_to(root))


def _open_zip(path: Path) -> zipfile.ZipFile:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise InputError(f"{path}: corrupt zip: {exc}") from None
    infos = archive.infolist()
    if len(infos) > MAX_MEMBERS:
        raise InputError(f"{path}: zip holds {len(infos)} members, more than the limit of {MAX_MEMBERS}")
    names = set()
    for info in infos:
        problem = unsafe_member_name(info.filename)
        if problem:
            raise InputError(f"{path}: member name {info.filename!r} {problem}; refusing a malformed zip")
        if info.filename in names:
            raise InputError(f"{path}: member {info.filename!r} appears twice; refusing an ambiguous zip")
        names.add(info.filename)
    return archive


def _copy_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target, where: str) -> None:
    """Stream one member into ``target`` (a binary file), at most MAX_MEMBER_BYTES: a header that
    lies about the size cannot make us write more."""
    written = 0
    try:
        with archive.open(info) as source:
            while chunk := source.read(CHUNK):
                written += len(chunk)
                if written > MAX_MEMBER_BYTES:
                    raise InputError(f"{where}: member larger than the limit of {MAX_MEMBER_BYTES} bytes")
                target.write(chunk)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
        raise InputError(f"{where}: cannot read member: {exc}") from None


def _stage_wheel(path: Path, into: Path) -> _Unit:
    unit = _Unit(path, "wheel")
    with _open_zip(path) as archive:
        for info in archive.infolist():
            if info.is_dir() or (info.external_attr >> 16) & 0o170000 == 0o120000:
                continue
            where = f"{path}({info.filename})"
            if info.file_size > MAX_MEMBER_BYTES:
                raise InputError(f"{where}: member of {info.file_size} bytes exceeds the limit of {MAX_MEMBER_BYTES}")
            try:
                with archive.open(info) as handle:
                    head = handle.read(HEAD_BYTES)
            except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
                raise InputError(f"{where}: cannot read member: {exc}") from None
            if not _is_elf_head(head):
                continue
            staged = into / f"{len(unit.members)}"
            with open(staged, "wb") as target:
                _copy_member(archive, info, target, where)
            unit.members.append(_Member(f"{path}({info.filename})", (str(path), info.filename), staged, info.filename))
    return unit


def _read(members: Sequence[_Member]) -> list[Binary]:
    binaries = []
    for member in members:
        with open(member.staged, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            binaries.extend(load_bytes(data, member.label[0], member.label[1]))
    return binaries


# Editing --------------------------------------------------------------------------------------------


def _apply(plan: Plan, units: Sequence[_Unit], work: Path) -> None:
    staged = {m.key: m for u in units for m in u.members}
    for index, binary in enumerate(plan.binaries):
        member = staged[binary.key]
        if binary.hide:
            hide_in_place(member.staged, binary.hide, binary.key)
        if binary.rename:
            renamed = work / f"renamed{index}"
            rename_with_lief(member.staged, renamed, dict(binary.rename), binary.key)
            os.replace(renamed, member.staged)
        log.debug("%s: hid %d, renamed %d", binary.key, len(binary.hide), len(binary.rename))


# Writing --------------------------------------------------------------------------------------------


def _write(unit: _Unit, output: Path, scratch: Path) -> Path:
    target = output / unit.source.name
    if unit.kind == "elf":
        member = unit.members[0]
        shutil.copymode(unit.source, member.staged)
        os.replace(member.staged, target)
        return target
    if unit.kind == "dir":
        tree = scratch / "tree"
        staged = {m.relative: m.staged for m in unit.members}
        for relative in _files_under(unit.source):
            destination = tree / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            if relative in staged:
                os.replace(staged[relative], destination)
                shutil.copymode(unit.source / relative, destination)
            else:
                shutil.copy2(unit.source / relative, destination)
        if target.exists():
            os.replace(target, scratch / "old")  # the old tree goes away with the scratch directory
        os.replace(tree, target)
        return target
    scratch.mkdir()
    staged_wheel = scratch / unit.source.name
    _write_wheel(unit, staged_wheel)
    os.replace(staged_wheel, target)
    return target


def _record_hash(digest: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def _write_wheel(unit: _Unit, target: Path) -> None:
    """Re-zip the wheel member by member (edited ELF files from their copies, the rest streamed
    from the input), in the input's order and with its metadata; RECORD is rewritten last."""
    staged = {m.relative: m.staged for m in unit.members}
    rows: list[tuple[str, str, int]] = []
    record_name = None
    with _open_zip(unit.source) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            name = info.filename
            if name.endswith(".dist-info/RECORD") and name.count("/") == 1:
                record_name = name
                continue
            if name.rsplit("/", 1)[-1] in SIGNATURES and ".dist-info/" in name:
                continue
            copy = zipfile.ZipInfo(name, date_time=info.date_time)
            copy.external_attr, copy.compress_type = info.external_attr, info.compress_type
            if info.is_dir():
                out.writestr(copy, b"")
                continue
            digest, size = hashlib.sha256(), 0
            with out.open(copy, "w", force_zip64=True) as sink:
                if name in staged:
                    with open(staged[name], "rb") as handle:
                        while chunk := handle.read(CHUNK):
                            digest.update(chunk)
                            size += len(chunk)
                            sink.write(chunk)
                else:
                    hashing = _Hashing(sink, digest)
                    _copy_member(source, info, hashing, f"{unit.source}({name})")
                    size = hashing.size
            rows.append((name, _record_hash(digest.digest()), size))
        if record_name is None:
            raise InputError(f"{unit.source}: no .dist-info/RECORD; not a wheel")
        lines = [f"{_csv(name)},{digest},{size}" for name, digest, size in rows] + [f"{_csv(record_name)},,"]
        out.writestr(zipfile.ZipInfo(record_name, date_time=(1980, 1, 1, 0, 0, 0)), "\n".join(lines) + "\n",
                     compress_type=zipfile.ZIP_DEFLATED)


class _Hashing:
    """A write-only file that hashes and counts what passes through to ``sink``."""

    def __init__(self, sink, digest) -> None:
        self.sink, self.digest, self.size = sink, digest, 0

    def write(self, chunk: bytes) -> None:
        self.digest.update(chunk)
        self.size += len(chunk)
        self.sink.write(chunk)


def _csv(name: str) -> str:
    return '"' + name.replace('"', '""') + '"' if any(c in name for c in ',"\n') else name
