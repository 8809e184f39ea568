"""LIEF-based symbol reader for every format: ELF (the reference the fast reader is proven
against, and the fallback for files without section headers), Mach-O (fat too) and PE.

LIEF 1.0.0 pitfalls guarded here (see FACTS.md): ``exported``/``imported`` miss GNU_UNIQUE, NOTYPE
and TLS symbols (so we classify from binding/visibility/section index ourselves); a truncated file
parses to a Binary with nothing in it; a missing or empty file gives None; a directory raises
MemoryError (callers never pass one). A parse that yields nothing is an InputError, never "clean".
"""

from __future__ import annotations

import dataclasses
import itertools
import struct
import warnings
from collections.abc import Iterable
from typing import Any

from shimgen.binary.symbols import (
    EMPTY,
    EXECUTABLE,
    OBJECT,
    SHARED,
    Binary,
    Names,
    Symbol,
)
from shimgen.errors import InputError
from shimgen.record import replace

_LIEF_BINDINGS = {"GLOBAL": "global", "WEAK": "weak", "LOCAL": "local", "GNU_UNIQUE": "unique"}
_LIEF_TYPES = {"NOTYPE": "notype", "OBJECT": "object", "FUNC": "func", "COMMON": "object", "TLS": "tls",
               "GNU_IFUNC": "func"}

# Mach-O nlist n_type bits.
N_STAB, N_PEXT, N_TYPE, N_EXT = 0xE0, 0x10, 0x0E, 0x01
N_UNDF, N_SECT = 0x0, 0xE
N_WEAK_DEF = 0x0080  # n_desc: a weak definition (coalesced, like ELF STB_WEAK)
MH_OBJECT, MH_EXECUTE, MH_DYLIB, MH_BUNDLE = 1, 2, 6, 8


def _lief():
    import lief  # 0.3 s to import: only paid for formats the fast reader does not cover

    lief.logging.disable()
    return lief


def _raw(data: bytes):
    # LIEF takes bytes directly; a memoryview or mmap is copied once.
    return data if isinstance(data, bytes) else bytes(data)


def read_elf_lief(data: bytes, path: str, member: str | None = None, *, hidden_of: Iterable[str] = (),
                  detail: bool = False, local_tls: bool = False) -> Binary:
    lief = _lief()
    where = f"{path}({member})" if member else path
    hidden_of = frozenset(hidden_of)
    elf = _parse_elf(lief, data, where, symtab=bool(data[16:18] in (b"\x01\x00", b"\x00\x01") or hidden_of or local_tls))
    file_type = int(elf.header.file_type.value)
    kind, table = _kind_and_table(elf, file_type, where)
    found = _classify(lief, table, detail)
    static = list(elf.symtab_symbols) if file_type != 1 else table
    hidden = _hidden(lief, static, hidden_of - found.exports)
    tls_hidden = _hidden_tls(lief, static) if local_tls and file_type != 1 and table else frozenset()
    soname, needed, symbolic = _dynamic_entries(lief, elf) if file_type != 1 else (None, (), False)
    return Binary(path, member, "ELF", kind, Names(found.exports), Names(found.imports), Names(found.tls),
                  tuple(sorted(hidden)), bool(static), tuple(found.symbols), soname=soname, needed=needed,
                  symbolic=symbolic, tls_unique=frozenset(found.tls_unique),
                  tls_protected=frozenset(found.tls_protected), tls_hidden=tls_hidden)


def _parse_elf(lief: Any, data: bytes, where: str, *, symtab: bool) -> Any:
    """LIEF's ELF parse of only what the rules need, refusing what LIEF silently half-reads."""
    config = lief.ELF.ParserConfig()
    # Only what the rules need: on libtorch_cpu.so relocations and .symtab cost seconds.
    config.parse_relocations = False
    config.parse_notes = False
    config.parse_overlay = False
    config.parse_symbol_versions = False
    config.parse_symtab_symbols = symtab
    elf = lief.ELF.parse(_raw(data), config)
    if elf is None:
        raise InputError(f"{where}: not a readable ELF file (corrupt or truncated)")
    segments = list(elf.segments)
    if not list(elf.sections) and not segments:
        raise InputError(f"{where}: truncated or corrupt ELF file (no sections and no segments could be read)")
    for segment in segments:
        if segment.file_offset + segment.physical_size > len(data):
            raise InputError(f"{where}: truncated: a segment ends beyond the end of the file")
    return elf


def _kind_and_table(elf: Any, file_type: int, where: str) -> tuple[str, list[Any]]:
    """The file's kind and the symbol table the rules read (.symtab of an object, else .dynsym)."""
    if file_type == 1:
        table = list(elf.symtab_symbols)
        if (any(s.name.startswith(".gnu.lto_") for s in elf.sections) and not table) or any(
            s.name in ("__gnu_lto_slim", "__gnu_lto_v1") for s in table
        ):
            raise InputError(f"{where}: object holds only LTO bitcode, no native symbol table")
        return OBJECT, table  # an object without a symbol table defines nothing (binutils reads it too)
    if file_type in (2, 3):
        kind = SHARED if file_type == 3 else EXECUTABLE
        if file_type == 3 and any(int(s.type.value) == 3 for s in elf.segments):  # PT_INTERP: PIE
            kind = EXECUTABLE
        table = list(elf.dynamic_symbols)
        if not table and file_type == 3:
            raise InputError(f"{where}: shared library has no dynamic symbol table (.dynsym)")
        return kind, table
    raise InputError(f"{where}: unsupported ELF file type {file_type}")


@dataclasses.dataclass
class _Found:
    exports: set[str] = dataclasses.field(default_factory=set)
    imports: set[str] = dataclasses.field(default_factory=set)
    tls: set[str] = dataclasses.field(default_factory=set)
    tls_unique: set[str] = dataclasses.field(default_factory=set)
    tls_protected: set[str] = dataclasses.field(default_factory=set)
    symbols: list[Symbol] = dataclasses.field(default_factory=list)


def _classify(lief: Any, table: list[Any], detail: bool) -> _Found:
    """Exports, imports and thread-locals of one symbol table.

    Classified here from LIEF's own enums, independently of the fast reader's constants, so the
    equality test between the two readers is a real cross-check."""
    binding_enum, visibility_enum, type_enum = lief.ELF.Symbol.BINDING, lief.ELF.Symbol.VISIBILITY, lief.ELF.Symbol.TYPE
    export_bindings = {binding_enum.GLOBAL, binding_enum.WEAK, binding_enum.GNU_UNIQUE}
    import_bindings = {binding_enum.GLOBAL, binding_enum.WEAK}
    export_visibilities = {visibility_enum.DEFAULT, visibility_enum.PROTECTED}
    found = _Found()
    for sym in table:
        name = sym.name
        defined = sym.shndx != 0  # SHN_UNDEF
        is_export = bool(name) and defined and sym.binding in export_bindings and sym.visibility in export_visibilities
        is_import = bool(name) and not defined and sym.binding in import_bindings
        if is_export:
            found.exports.add(name)
            if sym.type == type_enum.TLS:
                found.tls.add(name)
                if sym.binding == binding_enum.GNU_UNIQUE:
                    found.tls_unique.add(name)
                if sym.visibility == visibility_enum.PROTECTED:
                    found.tls_protected.add(name)
        elif is_import:
            found.imports.add(name)
        if detail and name and not (sym.binding == binding_enum.LOCAL and sym.type in (type_enum.SECTION, type_enum.FILE)):
            found.symbols.append(Symbol(name, defined, _LIEF_BINDINGS.get(str(sym.binding).rsplit(".", 1)[-1], "other"),
                                        str(sym.visibility).rsplit(".", 1)[-1].lower(),
                                        _LIEF_TYPES.get(str(sym.type).rsplit(".", 1)[-1], "other"), is_export, is_import))
    return found


def _hidden(lief: Any, static: list[Any], missing: frozenset[str]) -> set[str]:
    """Which of the ``missing`` exports the static table shows defined but local or hidden."""
    if not missing:
        return set()
    binding_enum, visibility_enum = lief.ELF.Symbol.BINDING, lief.ELF.Symbol.VISIBILITY
    export_visibilities = {visibility_enum.DEFAULT, visibility_enum.PROTECTED}
    return {sym.name for sym in static if sym.name in missing and sym.shndx != 0
            and (sym.binding == binding_enum.LOCAL or sym.visibility not in export_visibilities)}


def _hidden_tls(lief: Any, static: list[Any]) -> frozenset[str]:
    """Thread-locals the static table shows defined but bound locally (hidden, internal or local)."""
    binding_enum, visibility_enum, type_enum = lief.ELF.Symbol.BINDING, lief.ELF.Symbol.VISIBILITY, lief.ELF.Symbol.TYPE
    return frozenset(
        sym.name for sym in static
        if sym.name and sym.type == type_enum.TLS and sym.shndx != 0
        and (sym.binding == binding_enum.LOCAL or sym.visibility in (visibility_enum.HIDDEN, visibility_enum.INTERNAL)))


def _dynamic_entries(lief: Any, elf: Any) -> tuple[str | None, tuple[str, ...], bool]:
    """DT_SONAME, the DT_NEEDED list, and whether the library binds its own symbols (-Bsymbolic)."""
    tags = lief.ELF.DynamicEntry.TAG
    soname, needed, symbolic = None, [], False
    for entry in elf.dynamic_entries:
        if entry.tag == tags.SONAME:
            soname = entry.name
        elif entry.tag == tags.NEEDED:
            needed.append(entry.name)
        elif entry.tag == tags.SYMBOLIC or (entry.tag == tags.FLAGS and entry.value & 0x2):  # DF_SYMBOLIC
            symbolic = True
    return soname, tuple(needed), symbolic



THIN_MAGICS = (b"\xfe\xed\xfa\xce", b"\xce\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"\xcf\xfa\xed\xfe")
FAT_MAGIC_ENDIAN = {b"\xca\xfe\xba\xbe": ">", b"\xbe\xba\xfe\xca": "<"}
# Named as LIEF's CPU_TYPE enum names them; read from the header bytes, so an unknown value
# cannot make the enum conversion warn on stderr.
CPU_NAMES = {7: "x86", 0x01000007: "x86_64", 12: "arm", 0x0100000C: "arm64", 0x0200000C: "arm64_32",
             18: "powerpc", 0x01000012: "powerpc64"}


def _macho_checks(data: bytes, where: str) -> int:
    """LIEF accepts truncated or inconsistent Mach-O files: check the header and walk the load
    commands ourselves (each at least 8 bytes, all inside sizeofcmds, which lies inside the file).
    Returns the file type from the header."""
    if data[:4] not in THIN_MAGICS:
        raise InputError(f"{where}: not a Mach-O file (bad magic)")
    if len(data) < 28:
        raise InputError(f"{where}: truncated Mach-O header ({len(data)} bytes)")
    magic = data[:4]
    endian = "<" if magic in (b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe") else ">"
    is64 = magic in (b"\xcf\xfa\xed\xfe", b"\xfe\xed\xfa\xcf")
    file_type, ncmds, sizeofcmds = struct.unpack_from(endian + "III", data, 12)
    header = 32 if is64 else 28
    if header + sizeofcmds > len(data):
        raise InputError(f"{where}: truncated: load commands end at {header + sizeofcmds}, file has {len(data)} bytes")
    at, end = header, header + sizeofcmds
    for index in range(ncmds):
        if at + 8 > end:
            raise InputError(f"{where}: corrupt: load command {index} of {ncmds} lies beyond sizeofcmds ({sizeofcmds})")
        _cmd, cmdsize = struct.unpack_from(endian + "II", data, at)
        if cmdsize < 8 or at + cmdsize > end:
            raise InputError(f"{where}: corrupt: load command {index} has size {cmdsize}, outside sizeofcmds")
        at += cmdsize
    return file_type


def _fat_slices(raw: bytes, where: str) -> list[tuple[str, int, int]]:
    """(architecture, offset, size) of each slice of a fat file, bounds-checked here: LIEF silently
    drops a slice that does not fit, which would hide it from the check."""
    endian = FAT_MAGIC_ENDIAN[raw[:4]]
    if len(raw) < 8:
        raise InputError(f"{where}: truncated fat Mach-O header")
    count, = struct.unpack_from(endian + "I", raw, 4)
    header_end = 8 + count * 20
    if not 0 < count <= 64 or header_end > len(raw):
        raise InputError(f"{where}: truncated or corrupt fat header ({count} slices, file has {len(raw)} bytes)")
    slices, names = [], set()
    for index in range(count):
        cputype, _sub, offset, size, _align = struct.unpack_from(endian + "IIIII", raw, 8 + index * 20)
        arch = CPU_NAMES.get(cputype, f"cpu{cputype}")
        if offset < header_end or size == 0 or offset + size > len(raw):
            raise InputError(f"{where}: truncated or corrupt: slice {index} ({arch}) at offset {offset}, {size} bytes, "
                             f"outside the file ({len(raw)} bytes)")
        if arch in names:
            raise InputError(f"{where}: corrupt: two slices for {arch}")
        head = raw[offset:offset + 8]
        if head[:4] in THIN_MAGICS:
            slice_endian = "<" if head[:4] in (b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe") else ">"
            own, = struct.unpack_from(slice_endian + "I", head, 4)
            if own != cputype:
                raise InputError(f"{where}: corrupt: slice {index} is listed as {arch} but its header says "
                                 f"{CPU_NAMES.get(own, f'cpu{own}')}")
        names.add(arch)
        slices.append((arch, offset, size))
    ordered = sorted(slices, key=lambda item: item[1])
    for (arch, offset, size), (next_arch, next_offset, _) in itertools.pairwise(ordered):
        if offset + size > next_offset:
            raise InputError(f"{where}: corrupt: slices {arch} and {next_arch} overlap")
    return slices


def read_macho(data: bytes, path: str, member: str | None = None, *, hidden_of: Iterable[str] = (),
               detail: bool = False) -> list[Binary]:
    """Every slice of a (fat) Mach-O file; a fat file's slices are named by architecture."""
    where = f"{path}({member})" if member else path
    raw = _raw(data)
    if raw[:4] not in FAT_MAGIC_ENDIAN:
        return [_thin_macho(raw, path, member, where, set(hidden_of), detail)]
    binaries = []
    for arch, offset, size in _fat_slices(raw, where):
        slice_member = f"{member}:{arch}" if member else arch
        binary = _thin_macho(raw[offset:offset + size], path, slice_member, f"{path}({slice_member})", set(hidden_of),
                             detail)
        binaries.append(replace(binary, slice_of=where))
    return binaries


def _thin_macho(raw: bytes, path: str, member: str | None, where: str, hidden_of: set[str], detail: bool) -> Binary:
    file_type = _macho_checks(raw, where)
    lief = _lief()
    with warnings.catch_warnings():  # LIEF's enums warn on stderr about unknown values
        warnings.simplefilter("ignore")
        fat = lief.MachO.parse(raw)
        if fat is None or fat.size != 1:
            raise InputError(f"{where}: not a readable Mach-O file (corrupt or truncated)")
        macho = fat.at(0)
        _macho_bounds(macho, len(raw), where)
        return _macho_binary(macho, file_type, path, member, where, hidden_of, detail)


def _macho_bounds(macho, size: int, where: str) -> None:
    """LIEF 1.0.0 returns an empty binary for a cut file: check what it read lies inside the file."""
    for segment in macho.segments:
        if segment.file_offset + segment.file_size > size:
            raise InputError(f"{where}: truncated: segment {segment.name} ends at "
                             f"{segment.file_offset + segment.file_size}, file has {size} bytes")
    if macho.has_symbol_command:
        command = macho.symbol_command
        ends = (command.symbol_offset + command.numberof_symbols * (16 if macho.header.is_64bit else 12),
                command.strings_offset + command.strings_size)
        if max(ends) > size:
            raise InputError(f"{where}: truncated: the symbol table ends at {max(ends)}, file has {size} bytes")


def _macho_binary(macho, file_type: int, path: str, member: str | None, where: str, hidden_of: set[str],
                  detail: bool) -> Binary:
    kind = {MH_OBJECT: OBJECT, MH_EXECUTE: EXECUTABLE, MH_DYLIB: SHARED, MH_BUNDLE: SHARED}.get(file_type)
    if kind is None:
        raise InputError(f"{where}: unsupported Mach-O file type {file_type}")
    if not list(macho.commands):
        raise InputError(f"{where}: truncated or corrupt Mach-O file (no load commands)")
    exports, imports, hidden, symbols = set(), set(), set(), []
    for sym in macho.symbols:
        n_type = sym.raw_type
        if n_type & N_STAB:
            continue  # debugger entries
        name = sym.name
        name = name.removeprefix("_")  # the C compiler's leading underscore; the rules speak C names
        if not name:
            continue
        kind_bits = n_type & N_TYPE
        defined = kind_bits != N_UNDF or (kind == OBJECT and sym.value != 0)  # common symbols
        external = bool(n_type & N_EXT)
        is_export = defined and external and not n_type & N_PEXT
        is_import = not defined and external
        if is_export:
            exports.add(name)
        elif is_import:
            imports.add(name)
        elif defined and name in hidden_of:
            hidden.add(name)
        if detail:
            binding = ("weak" if defined and sym.description & N_WEAK_DEF else "global") if external else "local"
            symbols.append(Symbol(name, defined, binding,
                                  "hidden" if n_type & N_PEXT or not external else "default",
                                  "notype", is_export, is_import))
    hidden -= exports
    imports -= exports
    return Binary(path, member, "Mach-O", kind, Names(exports), Names(imports), EMPTY,
                  tuple(sorted(hidden)), True, tuple(symbols))


def read_pe(data: bytes, path: str, member: str | None = None, *, detail: bool = False) -> Binary:
    lief = _lief()
    where = f"{path}({member})" if member else path
    raw = _raw(data)
    pe = lief.PE.parse(raw)
    if pe is None:
        raise InputError(f"{where}: not a readable PE file (corrupt or truncated)")
    sections = list(pe.sections)
    if not sections:
        raise InputError(f"{where}: truncated or corrupt PE file (no sections)")
    for section in sections:
        if section.pointerto_raw_data + section.sizeof_raw_data > len(raw):
            raise InputError(f"{where}: truncated: section {section.name} ends beyond the end of the file")
    # Sections must be aligned and disjoint in memory, inside the image: LIEF maps RVAs through
    # them, and a corrupt layout makes the export directory vanish without an error.
    optional = pe.optional_header
    alignment, image_size = optional.section_alignment, optional.sizeof_image
    spans = sorted((s.virtual_address, s.virtual_address + max(s.virtual_size, s.sizeof_raw_data), s.name)
                   for s in sections)
    for start, stop, section_name in spans:
        if alignment == 0 or start % alignment or stop > image_size:
            raise InputError(f"{where}: corrupt: section {section_name} is misaligned or outside the image")
    for (_, stop, first), (start, _, second) in itertools.pairwise(spans):
        if stop > start:
            raise InputError(f"{where}: corrupt: sections {first} and {second} overlap in memory")
    # LIEF reads no exports from an export directory it cannot place, and reads past a directory's
    # declared size: either would turn a corrupt DLL into a clean one. Each directory must lie
    # inside one section.
    directories = list(pe.data_directories)
    for index, what in ((0, "export"), (1, "import")):
        if index >= len(directories) or (directories[index].rva == 0 and directories[index].size == 0):
            continue
        rva, length = directories[index].rva, directories[index].size
        section = pe.section_from_rva(rva)
        if section is None or rva + length > section.virtual_address + max(section.virtual_size, section.sizeof_raw_data):
            raise InputError(f"{where}: corrupt: the {what} directory (RVA {rva:#x}, {length} bytes) lies outside "
                             "every section")
    is_dll = pe.header.has_characteristic(lief.PE.Header.CHARACTERISTICS.DLL)
    exports: set[str] = set()
    if pe.has_exports:
        exports = {entry.name for entry in pe.get_export().entries if entry.name}
    imports = {entry.name for library in pe.imports for entry in library.entries
               if not entry.is_ordinal and entry.name}
    symbols = []
    if detail:
        symbols = [Symbol(n, True, "global", "default", "notype", True, False) for n in sorted(exports)] + [
            Symbol(n, False, "global", "default", "notype", False, True) for n in sorted(imports)]
    return Binary(path, member, "PE", SHARED if is_dll else EXECUTABLE, Names(exports),
                  Names(imports - exports), EMPTY, (), False, tuple(symbols))
