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

from shimgen.binary.load import HEAD_BYTES, load_bytes, sniff
from shimgen.binary.symbols import Binary
from shimgen.binary.zipread import ZipCaps, open_zip
from shimgen.errors import InputError
from shimgen.project.matcher import ShimMatcher
from shimgen.repair.edit import hide_in_place, rename_with_lief
from shimgen.repair.plan import BinaryPlan, Plan, SetView, editable, entry_matcher, plan_one_hide, plan_one_prefix
from shimgen.repair.verify import check, expect, verify_set

log = logging.getLogger("shimgen.repair")

MAX_MEMBERS = 100_000
MAX_MEMBER_BYTES = 8 << 30
"""A wheel member is streamed to disk, never held in memory; this only caps the disk it may use."""
MAX_TOTAL_BYTES = 64 << 30
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
        members = [m for u in units for m in u.members]
        if not members:
            raise InputError("no ELF binary among the inputs: nothing to repair")
        plan, problems = _plan_edit_verify(members, options, work, plan_only=plan_only)
        if plan_only:
            return Result(plan, ())
        if problems:
            raise InputError("the repaired set fails verification, nothing written: " + problems[0]
                             + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""))
        assert output is not None
        outputs = tuple(_write(unit, output, work / f"out{index}") for index, unit in enumerate(units))
    return Result(plan, outputs)


def _plan_edit_verify(members: Sequence[_Member], options: Options, work: Path, *,
                      plan_only: bool) -> tuple[Plan, list[str]]:
    """Plan, edit and re-read the set one binary at a time, so that only one binary's names are
    ever in memory (libtensorflow_cc.so.2 alone exports 435k): a first pass gathers what each
    binary imports (and in prefix mode which matching names the set provides), a second plans,
    edits and verifies each binary against its own input."""
    matches = ShimMatcher(options.patterns, ()) if options.mode == "prefix" else None
    view = SetView()
    for member in members:
        view.add(_read_one(member), matches)
    entry = entry_matcher(options.keep, options.keep_names)
    prefix = options.prefix

    def renamed(name: str) -> str:
        return prefix + name if name in view.provided else name

    plans, skipped, problems = [], [], []
    provided_before: set[str] = set()
    provided_after: set[str] = set()
    for index, member in enumerate(members):
        old = _read_one(member)
        why = editable(old)
        binary_plan = None
        if why is not None:
            skipped.append((old.display, why))
        else:
            binary_plan = (plan_one_prefix(old, view, prefix) if matches is not None
                           else plan_one_hide(old, view, entry))
            plans.append(binary_plan)
        provided_before.update(n for n in old.exports.iter_lazily() if n in view.importers)
        if plan_only:
            continue
        expected = expect(binary_plan, old)
        del old  # its names go before the output's are read
        if binary_plan is not None and binary_plan.changes:
            _edit(binary_plan, member, work / f"renamed{index}")
        new = _read_one(member)
        problems.extend(check(expected, new))
        provided_after.update(n for n in new.exports.iter_lazily() if n in view.importers or n.startswith(prefix or "\0"))
        del new, expected
    plan = Plan(options.mode, tuple(plans), prefix, options.patterns, tuple(skipped))
    if not plan_only:
        problems.extend(verify_set(view.importers, provided_before, provided_after, renamed))
    return plan, problems


def _check_output(paths: Sequence[Path], output: Path) -> None:
    if output.exists() and not output.is_dir():
        raise InputError(f"{output}: not a directory")
    out = output.resolve()  # before it exists: a refused run creates nothing (not even d/out)
    for path in paths:
        resolved = path.resolve()
        if resolved.parent == out or (path.is_dir() and out.is_relative_to(resolved)):
            raise InputError(f"{output}: the output would overwrite or lie inside the input {path}")
    output.mkdir(parents=True, exist_ok=True)


# Staging --------------------------------------------------------------------------------------------


def _links_under(root: Path) -> Iterator[tuple[str, str]]:
    """(relative path, target) of the symbolic links under ``root`` that point inside it by a
    relative path (libfoo.so -> libfoo.so.1), so the copied tree keeps them; others are left out."""
    for directory, subdirectories, files in os.walk(root):
        for name in sorted(subdirectories + files):
            full = Path(directory) / name
            if not full.is_symlink():
                continue
            relative = str(full.relative_to(root))
            link = os.readlink(full)
            inside = os.path.normpath(os.path.join(os.path.dirname(relative), link))
            if os.path.isabs(link) or inside == ".." or inside.startswith("../"):
                log.warning("%s: symbolic link to %s left out of the repaired copy (points outside)", full, link)
                continue
            yield relative, link


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
    """The zip, its member count and names checked by the one zip opener check-symbols uses."""
    archive, _ = open_zip(path, str(path), ZipCaps(MAX_MEMBERS, MAX_MEMBER_BYTES, MAX_TOTAL_BYTES))
    return archive


def _copy_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target, where: Path) -> int:
    """Stream one member into ``target``, at most MAX_MEMBER_BYTES (a header that lies about the
    size cannot make us write more)."""
    from shimgen.aoti.package import copy_member

    return copy_member(archive, info, target, str(where), MAX_MEMBER_BYTES)


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
                _copy_member(archive, info, target, path)
            unit.members.append(_Member(f"{path}({info.filename})", (str(path), info.filename), staged, info.filename))
    return unit


def _read_one(member: _Member) -> Binary:
    with open(member.staged, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
        (binary,) = load_bytes(data, member.label[0], member.label[1])
    return binary


# Editing --------------------------------------------------------------------------------------------


def _edit(binary: BinaryPlan, member: _Member, scratch: Path) -> None:
    if binary.hide:
        hide_in_place(member.staged, binary.hide, binary.key)
    if binary.rename:
        rename_with_lief(member.staged, scratch, dict(binary.rename), binary.key)
        os.replace(scratch, member.staged)
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
        for relative, link in _links_under(unit.source):
            destination = tree / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(link, destination)
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
                    _copy_member(source, info, hashing, unit.source)
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
