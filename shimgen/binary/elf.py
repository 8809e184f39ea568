"""A fast, read-only ELF symbol-table reader (struct over an mmap or bytes; no LIEF).

Why it exists: ``check-symbols`` on libtorch_cpu.so (434 MB, 74k dynamic exports) must finish
within 1.5x ``nm -D``; ``import lief`` alone takes longer than that. A test proves this reader
gives exactly the answer of the LIEF reader (shimgen.binary.lief_reader) on every binary the tests
build and on torch's libraries.

It trusts nothing in the file: every offset, size, count and string is bounds-checked, and any
inconsistency raises InputError naming the file. It only reads; it never loads or runs anything.
Files without section headers (sstrip'ed) are left to LIEF (``NoSections``).
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from itertools import compress

from shimgen.binary.symbols import (
    EMPTY,
    EXECUTABLE,
    OBJECT,
    SHARED,
    Binary,
    NameIndex,
    Names,
    Symbol,
    UnusableIndex,
)
from shimgen.errors import InputError
from shimgen.record import record

ELF_MAGIC = b"\x7fELF"

ET_REL, ET_EXEC, ET_DYN = 1, 2, 3
SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_DYNAMIC, SHT_NOBITS, SHT_REL, SHT_DYNSYM, SHT_GROUP = 2, 3, 4, 6, 8, 9, 11, 17
SHT_SYMTAB_SHNDX, SHT_GNU_HASH = 18, 0x6FFFFFF6
SHF_INFO_LINK, SHF_GROUP = 0x40, 0x200
DT_NULL, DT_NEEDED, DT_SONAME, DT_SYMBOLIC, DT_FLAGS = 0, 1, 14, 16, 30
DF_SYMBOLIC = 0x2
PT_INTERP = 3
SHN_UNDEF, SHN_LORESERVE, SHN_XINDEX = 0, 0xFF00, 0xFFFF
SHN_BEFORE, SHN_AFTER = 0xFF00, 0xFF01
STB_LOCAL, STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE = 0, 1, 2, 10
STT_TLS = 6
STV_DEFAULT, STV_INTERNAL, STV_HIDDEN, STV_PROTECTED = 0, 1, 2, 3

EXPORT_BINDINGS = frozenset((STB_GLOBAL, STB_WEAK, STB_GNU_UNIQUE))
IMPORT_BINDINGS = frozenset((STB_GLOBAL, STB_WEAK))
EXPORT_VISIBILITIES = frozenset((STV_DEFAULT, STV_PROTECTED))

BINDING_NAMES = {STB_LOCAL: "local", STB_GLOBAL: "global", STB_WEAK: "weak", STB_GNU_UNIQUE: "unique"}
VISIBILITY_NAMES = {STV_DEFAULT: "default", STV_INTERNAL: "internal", STV_HIDDEN: "hidden", STV_PROTECTED: "protected"}
TYPE_NAMES = {0: "notype", 1: "object", 2: "func", 5: "object", STT_TLS: "tls", 10: "func"}

# Slim LTO objects (gcc -flto without -ffat-lto-objects) carry only this marker symbol natively.
LTO_MARKERS = (b"__gnu_lto_slim", b"__gnu_lto_v1")


# What a relocation table of an object cannot apply to: BFD makes no section of these to patch.
_NOT_RELOCATABLE = frozenset((0, SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_REL, SHT_DYNSYM, SHT_SYMTAB_SHNDX))


Pread = Callable[[int, int], bytes]
"""(offset, size) -> the bytes there, read from the file (os.pread), not from its mapping."""
PREAD_FROM = 1 << 20


class NoSections(Exception):
    """The file has no section headers; the caller falls back to LIEF (which reads PT_DYNAMIC)."""


class _Layout:
    """Struct formats for one ELF class and byte order."""

    def __init__(self, is64: bool, endian: str) -> None:
        e = endian
        self.is64 = is64
        if is64:
            self.ehdr = struct.Struct(e + "HHIQQQIHHHHHH")  # after e_ident
            self.shdr = struct.Struct(e + "IIQQQQIIQQ")
            self.phdr_type = struct.Struct(e + "I")
            self.sym = struct.Struct(e + "IBBHQQ")
            self.sym_short: struct.Struct | None = struct.Struct(e + "IBBH16x")  # name, info, other, shndx
        else:
            self.ehdr = struct.Struct(e + "HHIIIIIHHHHHH")
            self.shdr = struct.Struct(e + "IIIIIIIIII")
            self.phdr_type = struct.Struct(e + "I")
            self.sym = struct.Struct(e + "IIIBBH")
            self.sym_short = None


_LAYOUTS = {(c, d): _Layout(c == 2, "<" if d == 1 else ">") for c in (1, 2) for d in (1, 2)}


class _Section:
    __slots__ = ("entsize", "flags", "info", "link", "name", "offset", "size", "type")

    def __init__(self, name: int, type_: int, offset: int, size: int, link: int, entsize: int, info: int = 0,
                 flags: int = 0) -> None:
        self.name, self.type, self.offset, self.size, self.link, self.entsize = name, type_, offset, size, link, entsize
        self.info, self.flags = info, flags


def is_elf(head: bytes) -> bool:
    return head[:4] == ELF_MAGIC


def read_elf(
    buf,
    path: str,
    member: str | None = None,
    *,
    hidden_of: Iterable[str] = (),
    detail: bool = False,
    local_tls: bool = False,
    pread: Pread | None = None,
) -> Binary:
    """Read the symbol view of one ELF file held in ``buf`` (bytes or mmap).

    Shared libraries and executables are read from ``.dynsym``; objects from ``.symtab``.
    ``hidden_of``: names to look up in the static symbol table (``.symtab``) when they are not
    exported, to tell "kept but hidden" from "not kept" (rule SG003 vs SG002).
    ``local_tls``: also collect the thread-locals ``.symtab`` shows defined but hidden (rule SG007
    needs them only when several linked binaries are checked together).
    ``pread``: reads (offset, size) of the same file without mapping it; large tables are copied
    through it, so their pages never count in this process's memory twice (mapped and copied).
    """
    elf = _Elf(buf, f"{path}({member})" if member else path, pread)
    names = elf.section_names()  # validates the section name table and every sh_name
    elf.check_links()
    if elf.e_type == ET_REL:
        elf.check_groups()
    kind = elf.kind()
    table, what = elf.symbol_table(names)
    if table is None:  # a static executable, or an object with no symbols: nothing exported or imported
        return Binary(path, member, "ELF", kind, EMPTY, EMPTY, has_static_table=elf.table_of(SHT_SYMTAB) is not None)
    raw, strings = elf.read_table(table, what)
    if elf.e_type == ET_REL and any(marker in strings for marker in LTO_MARKERS):
        raise elf.bad("object holds only LTO bitcode, no native symbol table; check the linked library instead, "
                      "or compile with -ffat-lto-objects")
    index = _gnu_hash_index(elf, table, raw, strings) if what == ".dynsym" else None
    selected = _classify(raw, strings, elf.layout, elf.bad, what, detail, index)
    static = table if elf.e_type == ET_REL else elf.table_of(SHT_SYMTAB)
    hidden: tuple[str, ...] = ()
    missing = _not_exported(hidden_of, selected.exports)
    if missing and static is not None:
        hidden = _hidden_names(*elf.read_table(static, ".symtab"), missing, elf.layout, elf.bad)
    tls_hidden: frozenset[str] = frozenset()
    if local_tls and static is not None and elf.e_type != ET_REL:
        tls_hidden = _hidden_tls(*elf.read_table_lazily(static, ".symtab"), elf.layout)
    dynamic = elf.dynamic()
    return Binary(
        path=path,
        member=member,
        format="ELF",
        kind=kind,
        exports=selected.exports,
        imports=selected.imports,
        tls=selected.tls,
        hidden=hidden,
        has_static_table=static is not None,
        symbols=tuple(selected.symbols),
        soname=dynamic.soname,
        needed=dynamic.needed,
        symbolic=dynamic.symbolic,
        tls_unique=selected.tls_unique,
        tls_protected=selected.tls_protected,
        tls_hidden=tls_hidden,
    )


class _StringView:
    """A string table left in the file: names are read one at a time (checked by the caller to
    end with NUL, so every offset inside it starts a terminated name)."""

    __slots__ = ("buf", "size", "start")

    def __init__(self, buf, start: int, size: int) -> None:
        self.buf, self.start, self.size = buf, start, size

    def __len__(self) -> int:
        return self.size

    def name_at(self, offset: int) -> str:
        at = self.start + offset
        return bytes(self.buf[at:self.buf.find(b"\0", at, self.start + self.size)]).decode("utf-8", "backslashreplace")


@lru_cache(maxsize=4096)
def gnu_hash(name: bytes) -> int:
    """The GNU symbol hash (DJB's h * 33 + c, 32-bit), as .gnu.hash stores it. Cached: the rules
    ask every library of a wheel about the same anchors (SG009, SG010: ~20k lookups on scipy)."""
    h = 5381
    for c in name:
        h = (h * 33 + c) & 0xFFFFFFFF
    return h


def _gnu_hash_index(elf: _Elf, dynsym: _Section, raw: bytes, strings: bytes) -> NameIndex | None:
    """A lookup through the library's .gnu.hash (what the dynamic linker binds through), or None
    when there is none or its header does not fit its section (the caller then searches the
    string table). Every probe is bounds-checked; an inconsistency found while probing raises
    UnusableIndex, never an IndexError."""
    sections = [s for s in elf.sections[1:] if s.type == SHT_GNU_HASH]
    if len(sections) != 1 or sections[0].type == SHT_NOBITS or sections[0].link >= len(elf.sections) \
            or elf.sections[sections[0].link] is not dynsym:
        return None
    data = elf.section_bytes(sections[0], ".gnu.hash")
    endian, word = elf.layout.sym.format[0], 8 if elf.layout.is64 else 4
    if len(data) < 16:
        return None
    nbuckets, symoffset, bloom_size, shift = struct.unpack_from(endian + "4I", data, 0)
    chains_at = 16 + bloom_size * word + nbuckets * 4
    count = len(raw) // elf.layout.sym.size
    if not nbuckets or not bloom_size or chains_at > len(data) or symoffset > count:
        return None
    # Bloom words and buckets are read per probe, not unpacked whole: libtorch_cpu.so has 16k
    # buckets, and the rules probe a few dozen names.
    bloom_word = struct.Struct(endian + ("Q" if word == 8 else "I"))
    buckets_at = 16 + bloom_size * word
    chains = data[chains_at:]
    bits, entry, limit = word * 8, elf.layout.sym.size, len(strings)
    name_of = struct.Struct(endian + "I")

    def lookup(name: str) -> list[int]:
        encoded = name.encode()
        h = gnu_hash(encoded)
        mask = (1 << (h % bits)) | (1 << ((h >> shift) % bits))
        if bloom_word.unpack_from(data, 16 + (h // bits) % bloom_size * word)[0] & mask != mask:
            return []
        found, index = [], name_of.unpack_from(data, buckets_at + h % nbuckets * 4)[0]
        if index == 0:
            return []
        while True:  # the chain of this bucket: consecutive symbols, the last one's hash has bit 0 set
            at = (index - symoffset) * 4
            if index < symoffset or index >= count or at + 4 > len(chains):
                raise UnusableIndex(name)
            chained, = name_of.unpack_from(chains, at)
            if chained | 1 == h | 1:
                offset, = name_of.unpack_from(raw, index * entry)
                if offset < limit and strings.startswith(encoded + b"\0", offset):
                    found.append(offset)
            if chained & 1:
                return found
            index += 1

    return lookup


@record
class _Dynamic:
    soname: str | None
    needed: tuple[str, ...]
    symbolic: bool


class _Elf:
    """One ELF file's headers, checked on construction; methods read and check one table each."""

    def __init__(self, buf, where: str, pread: Pread | None = None) -> None:
        self.buf, self.where, self.size, self.pread = buf, where, len(buf), pread
        self.layout = self._ident()
        (self.e_type, _machine, _version, _entry, self.e_phoff, e_shoff, _flags, _ehsize, self.e_phentsize,
         self.e_phnum, e_shentsize, e_shnum, e_shstrndx) = self.layout.ehdr.unpack_from(buf, 16)
        if self.e_type not in (ET_REL, ET_EXEC, ET_DYN):
            raise self.bad(f"unsupported ELF file type {self.e_type} (not an object, executable or shared library)")
        if e_shoff == 0:
            if self.e_type == ET_REL:  # an object's symbols live only in sections; LIEF cannot help
                raise self.bad("corrupt: object file without section headers (e_shoff is 0)")
            raise NoSections(where)
        self.sections, self.shstrndx = self._section_headers(e_shoff, e_shentsize, e_shnum, e_shstrndx)
        self.header_table_end = e_shoff + len(self.sections) * e_shentsize

    def bad(self, reason: str) -> InputError:
        return InputError(f"{self.where}: {reason}")

    def _ident(self) -> _Layout:
        buf, size = self.buf, self.size
        if size < 16 or bytes(buf[:4]) != ELF_MAGIC:
            raise self.bad("not an ELF file")
        ei_class, ei_data, ei_version = buf[4], buf[5], buf[6]
        layout = _LAYOUTS.get((ei_class, ei_data))
        if layout is None or ei_version != 1:
            raise self.bad(f"corrupt ELF header (class {ei_class}, data {ei_data}, version {ei_version})")
        if size < 16 + layout.ehdr.size:
            raise self.bad(f"truncated: {size} bytes, shorter than the ELF header")
        return layout

    def _section_headers(self, shoff: int, shentsize: int, shnum: int, shstrndx: int) -> tuple[list[_Section], int]:
        layout, size = self.layout, self.size
        if shentsize < layout.shdr.size:
            raise self.bad(f"corrupt ELF header: section header size {shentsize} < {layout.shdr.size}")
        if shoff + layout.shdr.size > size:
            raise self.bad(f"truncated: section headers at offset {shoff}, beyond the end of the file ({size} bytes)")
        first = layout.shdr.unpack_from(self.buf, shoff)
        if shnum == 0:  # extended numbering: the count lives in section 0's sh_size
            shnum = first[5]
        if shstrndx == SHN_XINDEX:
            shstrndx = first[6]
        if shnum == 0:
            if self.e_type == ET_REL:
                raise self.bad("corrupt: object file without section headers (e_shnum is 0)")
            raise NoSections(self.where)
        end = shoff + shnum * shentsize
        if end > size or shnum > 1_000_000:
            raise self.bad(f"truncated: {shnum} section headers end at offset {end}, beyond the end of the file "
                           f"({size} bytes)")
        sections = []
        for index in range(shnum):
            (sh_name, sh_type, sh_flags, _a, sh_offset, sh_size, sh_link, sh_info, _al, sh_entsize) = \
                layout.shdr.unpack_from(self.buf, shoff + index * shentsize)
            section = _Section(sh_name, sh_type, sh_offset, sh_size, sh_link, sh_entsize, sh_info, sh_flags)
            # Every section must lie inside the file: a cut or corrupted file is refused here even
            # when the symbol tables themselves look whole.
            if sh_type != SHT_NOBITS and sh_offset + sh_size > size:
                raise self.bad(f"truncated or corrupt: section {index} ends at offset {sh_offset + sh_size}, "
                               f"beyond the end of the file ({size} bytes)")
            sections.append(section)
        if shstrndx != SHN_UNDEF and shstrndx >= shnum:
            raise self.bad(f"corrupt ELF header: section name table index {shstrndx} out of range ({shnum} sections)")
        if shstrndx != SHN_UNDEF and sections[shstrndx].type != SHT_STRTAB:
            raise self.bad(f"corrupt ELF header: section name table (section {shstrndx}) is not a string table")
        if shstrndx == SHN_UNDEF and self.e_type == ET_REL:
            # BFD names an object's sections through this table and refuses the file without it.
            raise self.bad("corrupt ELF header: object file without a section name table (e_shstrndx is 0)")
        return sections, shstrndx

    def section_bytes(self, section: _Section, what: str) -> bytes:
        if section.type == SHT_NOBITS:
            raise self.bad(f"corrupt: {what} has no bytes in the file (SHT_NOBITS)")
        return self.copy(section.offset, section.size)

    def copy(self, offset: int, size: int) -> bytes:
        """``size`` bytes at ``offset`` (checked by the caller to lie inside the file), read
        through ``pread`` when large: libtensorflow_cc.so.2's .dynstr is 82 MB, and a copy sliced
        from the mapping would keep those pages resident beside it."""
        if self.pread is not None and size >= PREAD_FROM:
            data = self.pread(offset, size)
            if len(data) != size:
                raise self.bad(f"truncated while reading: {len(data)} of {size} bytes at offset {offset}")
            return data
        return bytes(self.buf[offset:offset + size])

    def section_names(self) -> list[bytes]:
        if self.shstrndx == SHN_UNDEF:
            return []
        table = self.section_bytes(self.sections[self.shstrndx], "section name table")
        names = []
        for index, section in enumerate(self.sections):
            stop = table.find(b"\0", section.name)
            if section.name >= len(table) or stop < 0:
                raise self.bad(f"corrupt: the name of section {index} lies outside the section name table")
            names.append(table[section.name:stop])
        return names

    def check_links(self) -> None:
        """The links binutils follows: every symbol table names a string table, every relocation
        table a symbol table (and, in an object, the section it patches), each with its entry size.
        A file ``nm`` refuses must not come out clean here."""
        count, layout = len(self.sections), self.layout
        rel, rela = (16, 24) if layout.is64 else (8, 12)
        for index, section in enumerate(self.sections):
            kind = section.type
            # BFD refuses any section whose sh_link is out of range (SHN_BEFORE/SHN_AFTER aside,
            # Solaris' ordering markers), and an out-of-range sh_info where sh_info names a section.
            if section.link >= count and section.link not in (SHN_BEFORE, SHN_AFTER):
                raise self.bad(f"corrupt: section {index} links to section {section.link}, out of range "
                               f"({count} sections)")
            if (section.flags & SHF_INFO_LINK or kind in (SHT_RELA, SHT_REL)) and section.info >= count:
                raise self.bad(f"corrupt: section {index} refers to section {section.info}, out of range "
                               f"({count} sections)")
            if kind in (SHT_SYMTAB, SHT_DYNSYM):
                if section.entsize != layout.sym.size or not 0 < section.link < count \
                        or self.sections[section.link].type != SHT_STRTAB:
                    raise self.bad(f"corrupt: symbol table (section {index}) has entry size {section.entsize} "
                                   f"and links to section {section.link}")
                # sh_info: the index of the first non-local symbol, at most the entry count.
                if section.size and section.info * section.entsize > section.size:
                    raise self.bad(f"corrupt: symbol table (section {index}) says its first global symbol is "
                                   f"entry {section.info}, past its {section.size // section.entsize} entries")
            elif kind == SHT_SYMTAB_SHNDX and (section.entsize not in (0, 4) or not 0 < section.link < count
                                               or self.sections[section.link].type != SHT_SYMTAB):
                raise self.bad(f"corrupt: extended section index table (section {index}) has entry size "
                               f"{section.entsize} and links to section {section.link}")
            elif kind in (SHT_RELA, SHT_REL):
                expected = rela if kind == SHT_RELA else rel
                if section.entsize != expected or section.size % expected:
                    raise self.bad(f"corrupt: relocation table (section {index}) has entry size "
                                   f"{section.entsize}, expected {expected}")
                linked = section.link
                if linked >= count or (linked and self.sections[linked].type not in (SHT_SYMTAB, SHT_DYNSYM)) \
                        or (self.e_type == ET_REL and not linked):
                    raise self.bad(f"corrupt: relocation table (section {index}) links to section {linked}, "
                                   "which is not a symbol table")
                if self.e_type == ET_REL and (not 0 < section.info < count
                                              or self.sections[section.info].type in _NOT_RELOCATABLE):
                    raise self.bad(f"corrupt: relocation table (section {index}) applies to section "
                                   f"{section.info}, which is out of range or holds no code or data")
            elif kind == SHT_GROUP and (section.entsize != 4 or not 0 < section.link < count
                                        or self.sections[section.link].type != SHT_SYMTAB):
                raise self.bad(f"corrupt: section group (section {index}) has entry size {section.entsize} "
                               f"and links to section {section.link}")
            elif kind == SHT_STRTAB and section.size and self.buf[section.offset] != 0:
                raise self.bad(f"corrupt: string table (section {index}) does not start with a NUL byte")

    def check_groups(self) -> None:
        """Every section flagged SHF_GROUP is listed by a section group, and every group lists
        sections that exist (BFD refuses an object otherwise: "no group info for section")."""
        flagged = {i for i, s in enumerate(self.sections) if s.flags & SHF_GROUP}
        groups = [s for s in self.sections if s.type == SHT_GROUP]
        if not flagged and not groups:
            return
        endian = self.layout.sym.format[0]
        listed: set[int] = set()
        for group in groups:
            raw = self.section_bytes(group, "section group")
            if len(raw) < 4 or len(raw) % 4:
                raise self.bad(f"corrupt: a section group holds {len(raw)} bytes, not a whole number of entries")
            members = struct.unpack(f"{endian}{len(raw) // 4}I", raw)[1:]  # the first word holds flags
            if any(not 0 < m < len(self.sections) for m in members):
                raise self.bad("corrupt: a section group lists a section that does not exist")
            listed.update(members)
        if flagged - listed:
            raise self.bad(f"corrupt: section {min(flagged - listed)} is flagged as a group member, but no "
                           "section group lists it")

    def kind(self) -> str:
        kind = {ET_REL: OBJECT, ET_EXEC: EXECUTABLE, ET_DYN: SHARED}[self.e_type]
        has_interp = _check_segments(self.buf, self.layout, self.e_phoff, self.e_phentsize, self.e_phnum, self.size,
                                     self.bad)
        return EXECUTABLE if self.e_type == ET_DYN and has_interp else kind  # a PIE executable

    def table_of(self, sh_type: int) -> _Section | None:
        found = [s for s in self.sections if s.type == sh_type]
        if len(found) > 1:
            raise self.bad(f"corrupt: {len(found)} tables of type {sh_type}, expected one")
        return found[0] if found else None

    def symbol_table(self, names: list[bytes]) -> tuple[_Section | None, str]:
        """The table the symbol view comes from: ``.symtab`` of an object, else ``.dynsym``."""
        if self.e_type == ET_REL:
            table = self.table_of(SHT_SYMTAB)
            # Without a table: LTO bitcode is refused; anything else is an object with nothing to
            # name (an empty translation unit, stripped), which Debian's libc.a and libsqlite3.a
            # carry and nm reads as "no symbols".
            if table is None and any(n.startswith(b".gnu.lto_") for n in names):
                raise self.bad("object holds only LTO bitcode, no native symbol table; check the linked "
                               "library instead, or compile with -ffat-lto-objects")
            return table, ".symtab"
        table = self.table_of(SHT_DYNSYM)
        if table is None and self.e_type == ET_DYN:
            raise self.bad("shared library has no dynamic symbol table (.dynsym); is it a static or stripped stub?")
        return table, ".dynsym"

    def read_table(self, section: _Section, what: str) -> tuple[bytes, bytes]:
        """(entries, string table) of one symbol table, checked."""
        raw, view = self.read_table_lazily(section, what)
        return raw, self.copy(view.start, len(view))

    def read_table_lazily(self, section: _Section, what: str) -> tuple[bytes, _StringView]:
        """(entries, string table) of one symbol table, checked; the string table is left in the
        file (the .strtab of libtorch_cpu.so is tens of MB, of which SG007 reads a handful)."""
        entry = self.layout.sym.size
        if section.entsize != entry:
            raise self.bad(f"corrupt: {what} entry size {section.entsize}, expected {entry}")
        if section.size % entry:
            raise self.bad(f"corrupt: {what} size {section.size} is not a multiple of its entry size")
        if section.size < entry:
            raise self.bad(f"corrupt: {what} is empty (it always holds at least the null symbol)")
        raw = self.section_bytes(section, what)
        if not 0 < section.link < len(self.sections) or self.sections[section.link].type != SHT_STRTAB:
            raise self.bad(f"corrupt: {what} links to section {section.link}, which is not a string table")
        linked = self.sections[section.link]
        if linked.type == SHT_NOBITS:
            raise self.bad(f"corrupt: string table of {what} has no bytes in the file (SHT_NOBITS)")
        if linked.size == 0 or self.buf[linked.offset + linked.size - 1] != 0:
            raise self.bad(f"corrupt: the string table of {what} does not end with a NUL byte")
        return raw, _StringView(self.buf, linked.offset, linked.size)

    def dynamic(self) -> _Dynamic:
        """DT_SONAME, DT_NEEDED and whether the library binds its own symbols (-Bsymbolic)."""
        section = self.table_of(SHT_DYNAMIC) if self.e_type != ET_REL else None
        if section is None or section.type == SHT_NOBITS:
            return _Dynamic(None, (), False)
        entry = struct.Struct(self.layout.sym.format[0] + ("qQ" if self.layout.is64 else "iI"))
        raw = self.section_bytes(section, ".dynamic")
        raw = raw[:len(raw) - len(raw) % entry.size]
        # The names are read where they lie: the string table is .dynstr (5 MB in libtorch_cpu.so,
        # already copied once for the symbols), and .dynamic names only a handful of it.
        start = end = 0
        if 0 < section.link < len(self.sections) and self.sections[section.link].type == SHT_STRTAB:
            linked = self.sections[section.link]  # inside the file (checked with the headers)
            start, end = linked.offset, linked.offset + linked.size
        soname, needed, symbolic = None, [], False
        for tag, value in entry.iter_unpack(raw):
            if tag == DT_NULL:
                break
            if tag in (DT_SONAME, DT_NEEDED):
                stop = self.buf.find(b"\0", start + value, end) if value < end - start else -1
                if stop < 0:
                    raise self.bad(f"corrupt: a .dynamic name offset ({value}) lies outside its string table")
                name = bytes(self.buf[start + value:stop]).decode("utf-8", "backslashreplace")
                if tag == DT_SONAME:
                    soname = name
                else:
                    needed.append(name)
            elif tag == DT_SYMBOLIC or (tag == DT_FLAGS and value & DF_SYMBOLIC):
                symbolic = True
        return _Dynamic(soname, tuple(needed), symbolic)


def _not_exported(names: Iterable[str], exports: Names) -> list[str]:
    """The ``names`` not among ``exports``, sorted; searches only what they have in common."""
    import os.path

    names = sorted(set(names))
    if not names:
        return []
    common = os.path.commonprefix(names)  # noqa: RUF071 (string prefix of symbol names, not paths)
    present = set(exports.starting_with(common)) if common else exports
    return [n for n in names if n not in present]


def _segments(buf, layout: _Layout, phoff: int, phentsize: int, phnum: int, size: int, bad
              ) -> list[tuple[int, int, int]]:
    """(p_type, p_offset, p_filesz) of every program header, each checked to lie inside the file,
    with the segment's file image."""
    if phnum == 0:
        return []
    if phoff == 0:  # announced but placed nowhere (BFD refuses such a file; a linker never writes one)
        raise bad(f"corrupt ELF header: {phnum} program headers at offset 0")
    if phentsize < (56 if layout.is64 else 32) or phoff + phnum * phentsize > size or phnum >= 0xFFFF:
        raise bad(f"truncated or corrupt program headers ({phnum} at offset {phoff})")
    # p_offset and p_filesz: 64-bit at 8 and 32; 32-bit at 4 and 16.
    extent = struct.Struct(layout.phdr_type.format[0] + ("8xQ16xQ" if layout.is64 else "4xI8xI"))
    segments = []
    for i in range(phnum):
        at = phoff + i * phentsize
        p_offset, p_filesz = extent.unpack_from(buf, at)
        if p_offset + p_filesz > size:
            raise bad(f"truncated or corrupt: segment {i} ends at offset {p_offset + p_filesz}, "
                      f"beyond the end of the file ({size} bytes)")
        segments.append((layout.phdr_type.unpack_from(buf, at)[0], p_offset, p_filesz))
    return segments


def _check_segments(buf, layout: _Layout, phoff: int, phentsize: int, phnum: int, size: int, bad) -> bool:
    """Check every program header lies inside the file, and so does every segment's file image.
    Returns whether there is a PT_INTERP (a PIE executable rather than a library)."""
    return any(kind == PT_INTERP for kind, _, _ in _segments(buf, layout, phoff, phentsize, phnum, size, bad))


def image_end(buf, where: str) -> int:
    """Where the ELF image in ``buf`` ends: the furthest byte that its header, program headers,
    segments, sections or section header table cover. What follows is data no header describes (an
    overlay: AOTInductor appends weights over 2 GB there). Raises NoSections for a file without
    section headers (sstrip'ed), as read_elf does."""
    elf = _Elf(buf, where)
    layout = elf.layout
    ends = [16 + layout.ehdr.size, elf.header_table_end]
    ends += [s.offset + s.size for s in elf.sections if s.type != SHT_NOBITS]
    ends += [offset + filesz for _, offset, filesz in
             _segments(buf, layout, elf.e_phoff, elf.e_phentsize, elf.e_phnum, elf.size, elf.bad)]
    ends.append(elf.e_phoff + elf.e_phnum * elf.e_phentsize if elf.e_phnum else 0)
    return max(ends)


def _bytes_name_at(strings: bytes, offset: int) -> str:
    """The name at ``offset`` (checked by the caller to be NUL-terminated inside ``strings``)."""
    return strings[offset:strings.index(b"\0", offset)].decode("utf-8", "backslashreplace")


def _decode_table(strings: bytes) -> str:
    # latin-1 maps byte offsets 1:1 to character offsets, so st_name indexes the str directly.
    return strings.decode("latin-1")


def _fix_name(name: str) -> str:
    if name.isascii():
        return name
    return name.encode("latin-1").decode("utf-8", "backslashreplace")


def _rows(raw: bytes, layout: _Layout) -> list[tuple[int, int, int, int]]:
    """(st_name, st_info, st_other, st_shndx) of every entry."""
    if layout.sym_short is not None:
        return list(layout.sym_short.iter_unpack(raw))
    return [(n, i, o, s) for (n, _v, _z, i, o, s) in layout.sym.iter_unpack(raw)]


def _max_name(raw: bytes, layout: _Layout) -> int:
    """The largest st_name in a symbol table (st_name is the first field in both classes)."""
    if not raw:
        return 0
    native = (sys.byteorder == "little") == (layout.sym.format[0] == "<")
    if native:
        return max(memoryview(raw).cast("I")[0::layout.sym.size // 4])
    return max(row[0] for row in _rows(raw, layout))


def _names_below(raw: bytes, layout: _Layout, limit: int) -> bool:
    """Whether every st_name is below ``limit`` (``_max_name(...) < limit``), decided from byte
    columns where it can be: with ``limit`` under 16 MiB, no name's top byte may be set and none's
    third byte may exceed the limit's; only the names whose third byte equals it (names in the
    table's last 64 KiB: ~1% of libtorch_cpu.so's 75k) are read as ints. ``max`` over every st_name
    costs 14M instructions there, this ~1M."""
    entry = layout.sym.size
    count = len(raw) // entry
    native = (sys.byteorder == "little") == (layout.sym.format[0] == "<")
    if not native or not count or limit > 0xFFFFFF:
        return _max_name(raw, layout) < limit
    if raw[3::entry].count(0) != count:  # st_name's bytes, low first: a top byte set is >= 16 MiB
        return False
    third = limit >> 16
    column = raw[2::entry]
    if column.translate(b"\0" * (third + 1) + b"\1" * (255 - third)).find(1) >= 0:
        return False  # a third byte above the limit's
    equal = column.translate(b"\0" * third + b"\1" + b"\0" * (255 - third))
    if equal.count(1) * 16 > count:  # too many to read one by one (a table under 64 KiB)
        return _max_name(raw, layout) < limit
    names = memoryview(raw).cast("I")[0::entry // 4]
    at = equal.find(1)
    while at >= 0:
        if names[at] >= limit:
            return False
        at = equal.find(1, at + 1)
    return True


def _flags(test) -> bytes:
    """A bytes.translate table mapping each byte value to 1 where ``test(value)`` holds, else 0."""
    return bytes(1 if test(value) else 0 for value in range(256))


_IS_TLS = _flags(test=lambda b: b & 0xF == STT_TLS)
_NONZERO = _flags(test=bool)
# st_info -> bit 0: an export's binding, 1: an import's, 2: thread-local, 3: GNU_UNIQUE.
_INFO_BITS = bytes(a | b << 1 | c << 2 | d << 3 for a, b, c, d in zip(
    _flags(test=lambda b: b >> 4 in EXPORT_BINDINGS), _flags(test=lambda b: b >> 4 in IMPORT_BINDINGS), _IS_TLS,
    _flags(test=lambda b: b >> 4 == STB_GNU_UNIQUE)))
# st_other -> bit 0: an export's visibility, 1: protected.
_OTHER_BITS = bytes(a | b << 1 for a, b in zip(_flags(test=lambda b: b & 3 in EXPORT_VISIBILITIES),
                                               _flags(test=lambda b: b & 3 == STV_PROTECTED)))
_IS_LOCAL = _flags(test=lambda b: b >> 4 == STB_LOCAL)
_IS_HIDDEN = _flags(test=lambda b: b & 3 in (STV_HIDDEN, STV_INTERNAL))


@record
class _Selected:
    """Name offsets picked from one symbol table."""

    exports: list[int] | tuple[int, ...]
    """A tuple when dense, in table order, and then it may hold 0 (an empty name): dropped by its reader."""
    imports: list[int] | tuple[int, ...]
    tls: list[int] | tuple[int, ...]
    tls_unique: list[int] | tuple[int, ...]
    """Thread-local exports bound STB_GNU_UNIQUE (one copy per process, whoever loads them)."""
    tls_protected: list[int] | tuple[int, ...]
    """Thread-local exports of STV_PROTECTED visibility (the library binds its own copy)."""


def _select(raw: bytes, layout: _Layout) -> _Selected:
    """Name offsets of the exports, the imports and the thread-local exports of one table.

    Column-wise, at C speed: each field is a strided slice of the table (every 24th byte is an
    st_info), classified with bytes.translate and combined as big integers; itertools.compress
    picks the offsets. A Python loop over libtorch_cpu.so's 75k entries alone costs 25 ms.
    Entries with an empty name (offset 0) are dropped.
    """
    entry = layout.sym.size
    count = len(raw) // entry
    native = (sys.byteorder == "little") == (layout.sym.format[0] == "<")
    if not native or count == 0:
        return _select_rows(_rows(raw, layout))
    info_at = 4 if layout.is64 else 12  # st_info; st_other and st_shndx follow it in both classes
    names = memoryview(raw).cast("I")[0::entry // 4]  # not .tolist(): only the picked ones become ints

    def column(offset: int, table: bytes) -> int:
        return int.from_bytes(raw[info_at + offset::entry].translate(table), "little")

    defined = column(2, _NONZERO) | column(3, _NONZERO)  # st_shndx != SHN_UNDEF, either byte order
    ones = int.from_bytes(b"\x01" * count, "little")
    # st_info and st_other are classified once each, one bit per question in each entry's byte
    # (``_INFO_BITS``, ``_OTHER_BITS``); a shift brings bit k of every byte to bit 0.
    info, other = column(0, _INFO_BITS), column(1, _OTHER_BITS)
    export_mask = info & other & defined & ones
    import_mask = (info >> 1) & (ones ^ defined)
    tls_mask = export_mask & (info >> 2)

    def pick(mask: int) -> list[int] | tuple[int, ...]:
        flags = mask.to_bytes(count, "little")
        if mask.bit_count() * 16 > count:  # dense (the exports): one pass at C speed, kept as the
            # tuple compress makes: Names builds its set from it and gathers first bytes in table
            # order from it (an offset 0, an empty name, is dropped there: ``drop_empty``).
            return tuple(compress(names, flags))
        # Sparse (imports, thread-locals): compress would still make an int of every entry's
        # st_name (75k in libtorch_cpu.so, five times over); jump from one flagged entry to the next.
        picked, at = [], flags.find(1)
        while at >= 0:
            picked.append(names[at])
            at = flags.find(1, at + 1)
        return list(filter(None, picked))

    if not tls_mask:
        return _Selected(pick(export_mask), pick(import_mask), [], [], [])
    return _Selected(pick(export_mask), pick(import_mask), pick(tls_mask), pick(tls_mask & (info >> 3)),
                     pick(tls_mask & (other >> 1)))


def _select_rows(rows: list[tuple[int, int, int, int]]) -> _Selected:
    """``_select`` one row at a time (foreign byte order, or an empty table)."""
    exports = [r for r in rows if r[3] != SHN_UNDEF and r[0] and r[1] >> 4 in EXPORT_BINDINGS
               and r[2] & 3 in EXPORT_VISIBILITIES]
    imports = [r[0] for r in rows if r[3] == SHN_UNDEF and r[0] and r[1] >> 4 in IMPORT_BINDINGS]
    tls = [r for r in exports if r[1] & 0xF == STT_TLS]
    return _Selected([r[0] for r in exports], imports, [r[0] for r in tls],
                     [r[0] for r in tls if r[1] >> 4 == STB_GNU_UNIQUE], [r[0] for r in tls if r[2] & 3 == STV_PROTECTED])


@record
class _Classified:
    exports: Names
    imports: Names
    tls: Names
    tls_unique: frozenset[str]
    tls_protected: frozenset[str]
    symbols: list[Symbol]


def _classify(raw: bytes, strings: bytes, layout: _Layout, bad, what: str, detail: bool,
              index: NameIndex | None = None) -> _Classified:
    """Split one symbol table into export names, import names, TLS export names (+ detail)."""
    limit = len(strings)
    selected = _select(raw, layout)
    export_offsets, import_offsets, tls_offsets = selected.exports, selected.imports, selected.tls
    # Every entry's name, not only the selected ones: a corrupt table is refused whole.
    # (The table ends with NUL, checked by the caller, so an offset inside it is terminated.)
    if not _names_below(raw, layout, limit):
        highest = _max_name(raw, layout)
        raise bad(f"corrupt: a {what} name offset ({highest}) lies outside its string table ({limit} bytes)")
    # Exports and imports stay in the string table until asked for (74k exports in libtorch_cpu.so).
    exports = Names.from_table(strings, export_offsets, index, drop_empty=True)
    imports = Names.from_table(strings, import_offsets, drop_empty=True)
    tls = Names(_bytes_name_at(strings, o) for o in tls_offsets if o)
    symbols: list[Symbol] = []
    if detail:
        text = _decode_table(strings)
        find = text.find
        for st_name, st_info, st_other, st_shndx in _rows(raw, layout):
            if st_name == 0 or st_name >= limit or find("\0", st_name) < 0:
                continue
            binding, visibility, defined = st_info >> 4, st_other & 3, st_shndx != SHN_UNDEF
            if binding == STB_LOCAL and (st_info & 0xF) in (3, 4):  # section and file symbols
                continue
            symbols.append(Symbol(
                name=_fix_name(text[st_name:find("\0", st_name)]),
                defined=defined,
                binding=BINDING_NAMES.get(binding, f"binding{binding}"),
                visibility=VISIBILITY_NAMES[visibility],
                type=TYPE_NAMES.get(st_info & 0xF, "other"),
                is_export=defined and binding in EXPORT_BINDINGS and visibility in EXPORT_VISIBILITIES,
                is_import=not defined and binding in IMPORT_BINDINGS,
            ))
    return _Classified(exports, imports, tls, frozenset(_bytes_name_at(strings, o) for o in selected.tls_unique if o),
                       frozenset(_bytes_name_at(strings, o) for o in selected.tls_protected if o), symbols)


def _hidden_tls(raw: bytes, strings: _StringView, layout: _Layout) -> frozenset[str]:
    """Thread-locals a static symbol table shows defined but local or hidden: this library uses
    its own copy whatever else the process holds. GNU ld turns a hidden global into STB_LOCAL with
    default visibility in the output, so a hidden global and a file-scope ``static`` look alike
    here and both are collected. Column-wise, as ``_select``: .symtab of libtorch_cpu.so has 530k
    entries."""
    entry = layout.sym.size
    count = len(raw) // entry
    native = (sys.byteorder == "little") == (layout.sym.format[0] == "<")
    limit = len(strings)
    if not native:
        offsets = [n for n, i, o, x in _rows(raw, layout) if x != SHN_UNDEF and i & 0xF == STT_TLS
                   and (i >> 4 == STB_LOCAL or o & 3 in (STV_HIDDEN, STV_INTERNAL))]
    else:
        info_at = 4 if layout.is64 else 12
        mask = int.from_bytes(raw[info_at::entry].translate(_IS_TLS), "little")
        if not mask:
            return frozenset()
        mask &= int.from_bytes(raw[info_at + 1::entry].translate(_IS_HIDDEN), "little") | \
            int.from_bytes(raw[info_at::entry].translate(_IS_LOCAL), "little")
        mask &= int.from_bytes(raw[info_at + 2::entry].translate(_NONZERO), "little") | \
            int.from_bytes(raw[info_at + 3::entry].translate(_NONZERO), "little")
        # compress() over the strided view: only the picked offsets become Python ints (a list of
        # all 1.2M st_name values of libtensorflow_cc.so.2's .symtab would cost 45 MB).
        offsets = list(compress(memoryview(raw).cast("I")[0::entry // 4], mask.to_bytes(count, "little")))
    return frozenset(strings.name_at(o) for o in offsets if 0 < o < limit)


def _hidden_names(raw: bytes, strings: bytes, names: list[str], layout: _Layout, bad) -> tuple[str, ...]:
    """Which of ``names`` the static symbol table defines without exporting (local or hidden)."""
    # Most lookups are for one or two names in a table of 500k: skip the parse when no name occurs.
    # Only "name\0" is searched: linkers merge suffixes, so "helper" may live inside "use_helper".
    wanted = {n for n in names if n.encode() + b"\0" in strings}
    if not wanted:
        return ()
    text = _decode_table(strings)
    limit = len(text)
    found = set()
    for st_name, st_info, st_other, st_shndx in _rows(raw, layout):
        if st_name == 0 or st_shndx == SHN_UNDEF:
            continue
        if st_name >= limit:
            raise bad(f"corrupt: a .symtab name offset ({st_name}) lies outside its string table ({limit} bytes)")
        stop = text.find("\0", st_name)
        if stop < 0:
            raise bad("corrupt: a .symtab name is not terminated inside its string table")
        name = text[st_name:stop]
        if name in wanted and (st_info >> 4 == STB_LOCAL or (st_other & 3) not in EXPORT_VISIBILITIES):
            found.add(name)
    return tuple(sorted(found))


@record
class DynamicTable:
    """``.dynsym`` as an in-place editor needs it (``shimgen repair`` changes bindings and
    visibilities, fixed-size fields, so no byte moves): where it lies and its rows, checked."""

    offset: int
    """File offset of the first entry."""
    entry_size: int
    info_at: int
    """Offset of st_info inside an entry; st_other is the next byte."""
    rows: Iterator[tuple[int, int, int, int]]
    """(st_name, st_info, st_other, st_shndx) per entry, in table order: one pass, unpacked as it
    goes (a list of 436k tuples would cost 100 MB)."""
    strings: bytes


def dynamic_symbol_table(buf, where: str) -> DynamicTable:
    """The checked ``.dynsym`` of a linked ELF file held in ``buf`` (InputError when it has none)."""
    elf = _Elf(buf, where)
    elf.section_names()
    elf.check_links()
    table = elf.table_of(SHT_DYNSYM) if elf.e_type != ET_REL else None
    if table is None:
        raise elf.bad("no dynamic symbol table (.dynsym) to edit")
    raw, strings = elf.read_table(table, ".dynsym")
    if _max_name(raw, elf.layout) >= len(strings):
        raise elf.bad("corrupt: a .dynsym name offset lies outside its string table")
    layout = elf.layout
    rows = (layout.sym_short.iter_unpack(raw) if layout.sym_short is not None
            else ((n, i, o, x) for (n, _v, _z, i, o, x) in layout.sym.iter_unpack(raw)))
    return DynamicTable(table.offset, layout.sym.size, 4 if layout.is64 else 12, rows, strings)
