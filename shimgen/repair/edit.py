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
    os.chmod(target, os.stat(source).st_mode & 0o7777)
    return changed
