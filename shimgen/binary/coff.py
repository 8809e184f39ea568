"""COFF object files (MSVC ``.obj``, and the members of ``.lib`` static archives), read through LIEF.

What a COFF object defines, in the terms the rest of shimgen uses (Microsoft's PE/COFF spec,
"COFF Symbol Table"):

- storage class EXTERNAL with a section number > 0 (or an absolute one) is a defined global;
  EXTERNAL with section 0 is a reference, unless its value is non-zero: then it is a common
  (tentative) definition of that many bytes, defined like ELF's SHN_COMMON.
- a definition in a COMDAT section whose selection lets duplicates merge (every selection but
  NODUPLICATES: ``__declspec(selectany)``, C++ inline functions) is reported as ``weak``: like an
  ELF weak definition, two copies link without a complaint and one silently wins.
- WEAK_EXTERNAL (``__attribute__((weak))``) is a weak definition when the default it names lies
  in one of this object's sections, else (LLVM: an absolute 0 default) a weak reference. Clang
  names the default of ``weak_fn`` ``.weak.weak_fn.default.<other>``: part of the weak symbol, not
  a name of its own, so it is left out (it is renamed with ``weak_fn`` anyway, being spelled from
  it); a default with a name of its own (``__attribute__((weak, alias("real")))``) is a definition
  like any other. llvm-nm shows both kinds of weak external as ``W``; binutils nm shows both as
  ``w``.
- i386 decorates C names: cdecl ``_f``, stdcall ``_f@8``, fastcall ``@f@8``, vectorcall ``f@@8``.
  Names are given as C spells them (``f``), as the Mach-O reader strips Apple's underscore: a
  ``#define`` rename is written against the C spelling, and the compiler decorates the prefixed
  name again. Any other i386 name (C++ ``?f@@YAHXZ``, ``@feat.00``) is kept as it is. x64, ARM64
  and ARM objects have no decoration.

LIEF 1.0.0 pitfalls guarded here: it parses a truncated COFF object to a Binary with no symbols
rather than failing, so the header, section table and symbol/string tables are bounds-checked
here first; and it gives an empty name to a long name that the string table stores as the tail of
another (LLVM merges suffixes: ``foo_long_name`` inside ``.weak.w.default.foo_long_name``), so
names are read from the raw records, and LIEF supplies the rest (storage class, section, COMDAT
selection, weak-external defaults).
"""

from __future__ import annotations

import re
import struct
from typing import Any

from shimgen.binary.magic import COFF_MACHINES as MACHINES
from shimgen.binary.magic import COFF_REGULAR_HEADER as REGULAR_HEADER
from shimgen.binary.symbols import EMPTY, OBJECT, Binary, Names, Symbol
from shimgen.errors import InputError

I386 = 0x14C
BIGOBJ_HEADER = 56
SECTION_HEADER = 40
SCN_CNT_UNINITIALIZED_DATA, SCN_MEM_EXECUTE = 0x80, 0x20000000

_STDCALL = re.compile(r"_([A-Za-z_][A-Za-z0-9_]*)@\d+\Z")
_FASTCALL = re.compile(r"@([A-Za-z_][A-Za-z0-9_]*)@\d+\Z")
_VECTORCALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)@@\d+\Z")


def c_name(name: str, machine: int) -> str:
    """The name as C spells it: i386's cdecl, stdcall, fastcall and vectorcall decorations off."""
    if machine != I386 or name.startswith("__imp_"):
        return name  # __imp__f: the import pointer to f, a linker name, not C's
    for pattern in (_STDCALL, _FASTCALL, _VECTORCALL):
        match = pattern.match(name)
        if match:
            return match.group(1)
    if name.startswith("_") and len(name) > 1:
        return name[1:]
    return name


def _layout(raw: bytes, where: str) -> tuple[int, list[tuple[int, str]]]:
    """Check the header and tables lie inside the file; return the machine and, for each primary
    symbol record (auxiliary records follow their primary one), its raw index and its name."""
    big = raw[:4] == b"\0\0\xff\xff"
    header_size = BIGOBJ_HEADER if big else REGULAR_HEADER
    if len(raw) < header_size:
        raise InputError(f"{where}: truncated COFF header ({len(raw)} bytes)")
    if big:
        machine, = struct.unpack_from("<H", raw, 6)
        sections, pointer, count = struct.unpack_from("<III", raw, 44)
        record = 20
    else:
        machine, sections = struct.unpack_from("<HH", raw, 0)
        pointer, count = struct.unpack_from("<II", raw, 8)
        record = 18
    if machine not in MACHINES:
        raise InputError(f"{where}: unsupported COFF machine {machine:#x}")
    table_end = header_size + sections * SECTION_HEADER
    if table_end > len(raw):
        raise InputError(f"{where}: truncated COFF object: {sections} section headers end at {table_end}, file has "
                         f"{len(raw)} bytes")
    for index in range(sections):
        at = header_size + index * SECTION_HEADER
        size, offset = struct.unpack_from("<II", raw, at + 16)
        characteristics, = struct.unpack_from("<I", raw, at + 36)
        if offset and not characteristics & SCN_CNT_UNINITIALIZED_DATA and offset + size > len(raw):
            raise InputError(f"{where}: truncated COFF object: section {index + 1} ends at {offset + size}, file has "
                             f"{len(raw)} bytes")
    if count == 0:
        return machine, []
    strings_at = pointer + count * record
    if pointer < table_end or strings_at + 4 > len(raw):
        raise InputError(f"{where}: truncated or corrupt COFF object: the symbol table ({count} records at "
                         f"{pointer}) runs past the end of the file ({len(raw)} bytes)")
    strings_size, = struct.unpack_from("<I", raw, strings_at)
    if strings_at + strings_size > len(raw):
        raise InputError(f"{where}: truncated COFF object: the string table ends at {strings_at + strings_size}, "
                         f"file has {len(raw)} bytes")
    strings = raw[strings_at:strings_at + strings_size] if strings_size >= 4 else b"\0\0\0\0"
    primaries, index = [], 0
    while index < count:
        at = pointer + index * record
        primaries.append((index, _name(raw[at:at + 8], strings, where)))
        index += 1 + raw[at + record - 1]  # NumberOfAuxSymbols, the record's last byte
    if index != count:
        raise InputError(f"{where}: corrupt COFF object: the last symbol's auxiliary records run past the table")
    return machine, primaries


def _name(field: bytes, strings: bytes, where: str) -> str:
    """A symbol's name: up to 8 bytes inline, or (first 4 bytes zero) an offset into the string
    table, whose first 4 bytes are its own size."""
    if field[:4] != b"\0\0\0\0":
        return field.rstrip(b"\0").decode("utf-8", "backslashreplace")
    offset = int.from_bytes(field[4:8], "little")
    end = strings.find(b"\0", offset)
    if offset < 4 or end < 0:
        raise InputError(f"{where}: corrupt COFF object: a symbol name at string-table offset {offset} lies outside "
                         f"the table ({len(strings)} bytes)")
    return strings[offset:end].decode("utf-8", "backslashreplace")


def read_coff(data: bytes, path: str, member: str | None = None, *, detail: bool = False) -> Binary:
    """A COFF object's defined externals (its exports, for the rules) and references (imports)."""
    from shimgen.binary.lief_reader import _lief, _raw

    where = f"{path}({member})" if member else path
    raw = _raw(data)
    machine, primaries = _layout(raw, where)
    lief = _lief()
    parsed = lief.COFF.parse(raw)
    if parsed is None:
        raise InputError(f"{where}: not a readable COFF object (corrupt or truncated)")
    table = list(parsed.symbols)
    if len(table) != len(primaries):
        raise InputError(f"{where}: corrupt COFF object: LIEF read {len(table)} of its {len(primaries)} symbols")
    by_index = {index: sym for (index, _), sym in zip(primaries, table)}
    sections = list(parsed.sections)
    storage = lief.COFF.Symbol.STORAGE_CLASS
    merging = _merging_sections(lief, sections)
    defaults = {_weak_default(s) for s in table if s.storage_class == storage.WEAK_EXTERNAL}
    exports: set[str] = set()
    imports: set[str] = set()
    symbols: list[Symbol] = []
    for (position, raw_name), sym in zip(primaries, table):
        if sym.storage_class == storage.EXTERNAL:
            if position in defaults and raw_name.startswith(".weak."):
                # A weak symbol's generated default (its body, or LLVM's absolute 0): see the
                # module docstring. A named default (a weak alias of a real function) stays.
                continue
            defined = sym.section_idx != 0 or sym.value != 0  # value != 0 in section 0: a common
            binding = "weak" if sym.section_idx > 0 and sym.section_idx in merging else "global"
            kind = _type(sym, sections)
        elif sym.storage_class == storage.WEAK_EXTERNAL:
            target = by_index.get(_weak_default(sym))
            # Defined only by a default in one of this object's sections: LLVM spells a weak
            # reference as a weak external whose default is an absolute 0.
            defined = target is not None and target.section_idx > 0
            binding, kind = "weak", _type(target, sections) if defined and target is not None else "notype"
        else:
            continue  # static, section, file and debug records: local to the object
        name = c_name(raw_name, machine)
        if not name:
            continue
        (exports if defined else imports).add(name)
        if detail:
            symbols.append(Symbol(name, defined, binding, "default", kind, defined, not defined))
    return Binary(path, member, "COFF", OBJECT, Names(exports), Names(imports - exports), EMPTY, (), True,
                  tuple(symbols))


def _merging_sections(lief: Any, sections: list[Any]) -> frozenset[int]:
    """1-based numbers of the COMDAT sections whose duplicates the linker merges."""
    nodup = lief.COFF.AuxiliarySectionDefinition.COMDAT_SELECTION.NODUPLICATES
    return frozenset(number for number, section in enumerate(sections, 1)
                     if section.comdat_info is not None and section.comdat_info.kind != nodup)


def _weak_default(sym: Any) -> int:
    """The raw symbol-table index a weak external's auxiliary record names as its default."""
    for aux in sym.auxiliary_symbols:
        if hasattr(aux, "sym_idx"):
            return int(aux.sym_idx)
    return -1


def _type(sym: Any, sections: list[Any]) -> str:
    """func for code, object for data: COFF's function type bit, else the section's flags."""
    if sym.is_function:
        return "func"
    if 0 < sym.section_idx <= len(sections):
        return "func" if sections[sym.section_idx - 1].characteristics & SCN_MEM_EXECUTE else "object"
    return "object" if sym.section_idx == 0 and sym.value else "notype"
