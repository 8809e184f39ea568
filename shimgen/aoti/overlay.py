"""The data after a model .so's ELF image (its overlay): where AOTInductor puts weights the model maps
from its own file. prefix-imports and recompile both rebuild the image and carry the overlay over.

AOTInductor, for weights over 2 GB or with ``aot_inductor.force_mmap_weights``, does not link the
weights into the .so (torch/_inductor/codecache.py): it appends them after the ELF image, padded so
that they start at a multiple of max(16 KiB, page size), and an 8-byte magic number after them. The
linked-in constants blob (``_binary_constants_bin_start``) then holds two int64s: the appended size
(weights + 8) and the magic number. The model, compiled with ``-DUSE_MMAP_SELF``, maps its weights
from ``file size - that size``, refuses an offset that is not 16 KiB-aligned ("weights_offset must
be aligned to 16K boundary") and checks the magic number at the end ("Weights data seems corrupt")
(torch/csrc/inductor/aoti_runtime/model_base.h).

The overlay is read by offset only through the file's end, so a rebuilt image of another size keeps
it working when the overlay follows it unchanged at the same offset modulo 16 KiB.
"""

from __future__ import annotations

import mmap
import struct
from pathlib import Path
from typing import IO

from shimgen.errors import InputError

OVERLAY_ALIGN = 1 << 14
"""The alignment model_base.h checks the appended weights' offset against."""
CHUNK = 1 << 24
SELF_MAPPED_HEADER = struct.Struct("=QQ")
"""The constants blob of a ``-DUSE_MMAP_SELF`` model: the appended size (weights + magic), the magic."""


def image_end(path: Path, where: str) -> int:
    """Where ``path``'s ELF image ends (shimgen.binary.elf.image_end, read through a mapping)."""
    from shimgen.binary.elf import NoSections
    from shimgen.binary.elf import image_end as elf_image_end

    try:
        with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return elf_image_end(mapped, where)
    except NoSections:  # sstrip'ed (never AOTInductor's output): parse_elf refuses the whole file next
        return path.stat().st_size
    except (OSError, ValueError) as exc:
        raise InputError(f"{where}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None


def copy_range(source: Path, start: int, size: int | None, target: IO[bytes], where: str) -> None:
    """Stream ``size`` bytes (None: to the end) of ``source`` from ``start`` into the open ``target``."""
    with source.open("rb") as src:
        src.seek(start)
        left = size
        while left is None or left > 0:
            chunk = src.read(CHUNK if left is None else min(left, CHUNK))
            if not chunk:
                if left:
                    raise InputError(f"{where}: the file is shorter than its ELF image")
                return
            target.write(chunk)
            if left is not None:
                left -= len(chunk)


def image_alone(source: Path, copy: Path, where: str) -> tuple[Path, int]:
    """The ELF image of ``source`` as a file to parse (LIEF holds several copies of what it parses:
    it gets the image, never gigabytes of appended weights), and the image's size. That file is
    ``source`` itself when nothing follows its image, else a copy of the image written to ``copy``."""
    size = image_end(source, where)
    if size >= source.stat().st_size:
        return source, size
    try:
        with copy.open("wb") as handle:
            copy_range(source, 0, size, handle, where)
    except OSError as exc:
        raise InputError(f"cannot write {copy}: {exc.strerror}") from None
    return copy, size


def append_overlay(source: Path, image_size: int, target: Path, where: str) -> None:
    """Append the source's overlay (everything after its first ``image_size`` bytes: AOTInductor's
    padding, then its weights) to ``target``, a rebuilt image, at the same offset modulo 16 KiB as in
    the source. Zero bytes go between the image and the overlay, which nothing addresses by offset but
    its own reader (the weights, by their distance from the end of the file). Nothing to append, nothing
    written."""
    if image_size >= source.stat().st_size:
        return
    try:
        with target.open("ab") as dst:
            dst.write(bytes((image_size - dst.tell()) % OVERLAY_ALIGN))
            copy_range(source, image_size, None, dst, where)
    except OSError as exc:
        raise InputError(f"cannot write {target}: {exc.strerror}") from None


def check_self_mapped(blob: bytes, source: Path, image_size: int, where: str) -> None:
    """Refuse a ``-DUSE_MMAP_SELF`` model whose appended weights are not where its constants blob says:
    the model itself would refuse to open (or read other bytes as its weights). The weights, magic
    number last, must be the file's last bytes, inside the overlay, starting 16 KiB-aligned."""
    what = f"{where}: the model maps its weights from the end of its .so (-DUSE_MMAP_SELF), but"
    if len(blob) != SELF_MAPPED_HEADER.size:
        raise InputError(f"{what} its constants blob holds {len(blob)} bytes, not AOTInductor's "
                         f"{SELF_MAPPED_HEADER.size} (weights size, magic number)")
    appended, magic = SELF_MAPPED_HEADER.unpack(blob)
    file_size = source.stat().st_size
    overlay = file_size - image_size
    if appended < 8 or appended > overlay:
        raise InputError(f"{what} its {overlay} bytes after the ELF image cannot hold the {appended} bytes "
                         "of weights its constants blob names (cut off, or stripped?)")
    if (file_size - appended) % OVERLAY_ALIGN:
        raise InputError(f"{what} its weights start at offset {file_size - appended}, not a multiple of "
                         f"{OVERLAY_ALIGN} (the model would refuse to open)")
    try:
        with source.open("rb") as handle:
            handle.seek(file_size - 8)
            last = handle.read(8)
    except OSError as exc:
        raise InputError(f"{where}: cannot read: {exc.strerror}") from None
    if last != struct.pack("=Q", magic):
        raise InputError(f"{what} the file does not end with the magic number its constants blob names "
                         "(the weights are not the ones it was built with)")
