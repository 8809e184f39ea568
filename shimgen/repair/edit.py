"""The two edits ``shimgen repair`` makes to an ELF shared library, on a copy (never the input).

Hide is an in-place change of two bytes per symbol: st_other's visibility becomes STV_HIDDEN, and
STB_GNU_UNIQUE (which glibc unifies process-wide) becomes STB_GLOBAL. Nothing moves, so a 1 GB
library is edited in milliseconds. What glibc does with it (dl-lookup.c, do-rel.h): a lookup from
another object never returns a hidden definition, and a relocation of the library itself against
a hidden symbol resolves inside the library without any lookup, so its own calls reach its own
copy whatever the process loaded first. The tests prove it by running (LD_DEBUG=bindings).

Prefix renames dynamic symbols, which changes string lengths: LIEF rewrites the file (as
prefix-imports does for a model's shim imports) and rebuilds .dynstr and the hash tables.
"""

from __future__ import annotations

import mmap
import os
import struct
from collections.abc import Collection, Mapping
from pathlib import Path

from shimgen.binary.elf import (
    EXPORT_BINDINGS,
    EXPORT_VISIBILITIES,
    SHN_UNDEF,
    STB_GLOBAL,
    STB_GNU_UNIQUE,
    STV_HIDDEN,
    dynamic_symbol_table,
)
from shimgen.errors import InputError


def hide_in_place(path: Path, names: Collection[str], where: str) -> int:
    """Hide the defined exports named ``names`` in the ELF file at ``path`` (a scratch copy);
    returns how many entries changed (a name may have several, one per version)."""
    wanted = {n.encode("utf-8") for n in names}
    if not wanted:
        return 0
    try:
        handle = open(path, "r+b")  # noqa: SIM115 (closed below, after the map)
    except OSError as exc:
        raise InputError(f"{where}: cannot open the copy to edit: {exc.strerror}") from None
    with handle, mmap.mmap(handle.fileno(), 0) as data:
        table = dynamic_symbol_table(data, where)
        strings = table.strings
        changed = 0
        for index, (st_name, st_info, st_other, st_shndx) in enumerate(table.rows):
            binding = st_info >> 4
            if st_shndx == SHN_UNDEF or binding not in EXPORT_BINDINGS or st_other & 3 not in EXPORT_VISIBILITIES:
                continue
            if strings[st_name:strings.index(b"\0", st_name)] not in wanted:
                continue
            at = table.offset + index * table.entry_size + table.info_at
            if binding == STB_GNU_UNIQUE:
                data[at] = (STB_GLOBAL << 4) | (st_info & 0xF)
            data[at + 1] = (st_other & ~3) | STV_HIDDEN
            changed += 1
        data.flush()
    return changed


def rename_with_lief(source: Path, target: Path, renames: Mapping[str, str], where: str) -> int:
    """Write ``source`` to ``target`` with every dynamic symbol in ``renames`` (defined or not)
    renamed; symbol versions stay attached to their entries. Returns how many entries changed."""
    from shimgen.aoti.prefix_imports import parse_elf

    binary = parse_elf(source, where)
    changed = 0
    for symbol in binary.dynamic_symbols:
        new = renames.get(symbol.name)
        if new is not None:
            symbol.name = new
            changed += 1
    try:
        binary.write(str(target))
    except Exception as exc:  # LIEF raises its own types; any failure is this input's problem
        raise InputError(f"{where}: LIEF could not write the renamed library: {exc}") from None
    rewrite_clobbered_section_headers(target, binary, where)
    os.chmod(target, os.stat(source).st_mode & 0o7777)
    return changed


def _overlaps(start: int, end: int, ranges) -> bool:
    return any(begin < end and start < stop for begin, stop in ranges)


def rewrite_clobbered_section_headers(path: Path, binary, where: str) -> bool:
    """Write the section header table again at the end of ``path`` when LIEF put it where a
    segment's bytes lie; returns whether it did.

    LIEF 1.0 places the table after the last section it moved, without looking at segments that
    patchelf appended beyond the old table (auditwheel's RPATH edit leaves such a layout:
    psycopg-binary 3.3's _psycopg has .dynsym and .dynamic in two LOAD segments after it). The
    segments' bytes are written last, so the table's tail comes out as note and symbol bytes and
    every reader sees a corrupt file. The segments are intact and LIEF's in-memory sections are
    right; they go to the end of the file with a fresh .shstrtab, and e_shoff points there."""
    with open(path, "rb") as handle:
        ident = handle.read(64)
    is64, little = ident[4] == 2, ident[5] == 1
    end = "<" if little else ">"
    shoff_at, shoff_fmt = (0x28, "Q") if is64 else (0x20, "I")
    (shoff,) = struct.unpack_from(end + shoff_fmt, ident, shoff_at)
    shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", ident, 0x3A if is64 else 0x2E)
    taken = [(s.file_offset, s.file_offset + s.physical_size) for s in binary.segments if s.physical_size]
    taken += [(s.offset, s.offset + s.size) for s in binary.sections if s.size and int(s.type.value) != 8]  # 8: NOBITS
    if not shnum or not _overlaps(shoff, shoff + shnum * shentsize, taken):
        return False
    sections = list(binary.sections)
    if len(sections) != shnum or not 0 < shstrndx < shnum:
        raise InputError(f"{where}: LIEF wrote a section header table over a segment and it cannot be rebuilt")
    names, index = bytearray(b"\0"), []
    for section in sections:
        name = section.name.encode("utf-8")
        index.append(len(names) if name else 0)
        if name:
            names += name + b"\0"
    size = os.path.getsize(path)
    strtab_at = size + (-size % 8)
    table_at = strtab_at + len(names) + (-(strtab_at + len(names)) % 8)
    row = struct.Struct(end + ("IIQQQQIIQQ" if is64 else "IIIIIIIIII"))
    table = bytearray()
    for number, section in enumerate(sections):
        offset, length = (strtab_at, len(names)) if number == shstrndx else (section.offset, section.size)
        table += row.pack(index[number], int(section.type.value), int(section.flags), section.virtual_address,
                          offset, length, section.link, section.information, section.alignment, section.entry_size)
    with open(path, "r+b") as handle:
        handle.seek(strtab_at)
        handle.write(bytes(names) + b"\0" * (table_at - strtab_at - len(names)) + bytes(table))
        handle.seek(shoff_at)
        handle.write(struct.pack(end + shoff_fmt, table_at))
    return True
