"""AOTInductor ``.pt2`` packages: the one place that opens, inspects and rewrites them (a zip holding
``data/aotinductor/<model>/*.so`` beside the generated sources), plus the pre-flight checks that
prefix-imports and recompile share."""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from shimgen.errors import InputError
from shimgen.files import same_file


def check_source_and_output(source: Path, output: Path) -> str:
    """Refuse a missing input, an output that would overwrite it, or an output directory that does
    not exist; returns how to name the input in messages."""
    where = str(source)
    if not source.is_file():
        raise InputError(f"{where}: no such file")
    if same_file(output, source):
        raise InputError(f"{where}: the output must differ from the input")
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


def open_package(path: Path, where: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"{where}: not a readable .pt2 package ({exc})") from None


def model_members(names: Sequence[str]) -> list[str]:
    """The model libraries among a package's member names."""
    return [n for n in names if PurePosixPath(n).suffix == ".so" and "/data/aotinductor/" in f"/{n}"]


def write_package(archive: zipfile.ZipFile, replacements: dict[str, Path], staged: Path) -> None:
    """A copy of ``archive`` at ``staged`` with some members' bytes replaced by files.

    Members keep their order, names, dates and compression: torch writes them stored
    (uncompressed), and the runtime's loader copies the .so straight out of the mapped archive.
    """
    with zipfile.ZipFile(staged, "w") as out:
        for info in archive.infolist():
            data = replacements[info.filename].read_bytes() if info.filename in replacements else archive.read(info)
            copy = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            copy.compress_type = info.compress_type
            copy.external_attr = info.external_attr
            copy.create_system = info.create_system
            out.writestr(copy, data)
