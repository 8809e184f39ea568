"""Malformed inputs for check-symbols, generated from binaries built here and torch's libraries.

Nothing here is checked in as a binary: every case is derived, with a fixed seed, from a file the
tests compile (gcc; zig cc from PyPI for PE and Mach-O) or from torch's installed libraries.

Each case carries an expectation:
  bad          structurally invalid by construction (a cut file, a field pointing past the end,
               random bytes behind a magic, a special file, a hostile zip): exit 2 with one line.
  bad-or-same  a random change to header or section-header bytes. It may hit a field no reader
               needs (an address, a flag, padding), leaving a valid file: then the report must
               be byte-identical to the unmutated file's. Anything else must be exit 2.
  no-crash     a random change inside the symbol or string tables, or an archive's member
               headers. Those bytes are the content (a name, a binding, a member name): changing
               them makes a different valid file, so only the crash, hang and output-shape
               guarantees apply.
"""

from __future__ import annotations

import io
import os
import random
import struct
import subprocess
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from tests import toolchains

P = "executorch_"
EXPORT = '__attribute__((visibility("default")))'


@dataclass
class Case:
    id: str
    path: str
    expect: str  # bad | bad-or-same | no-crash | reference
    group: str  # cases of one group run in one worker, in order (in-place patches)
    ref: str | None = None  # the reference case's id, for bad-or-same
    patch: list = field(default_factory=list)  # [(offset, hex)], applied in place by the driver
    args: list = field(default_factory=list)

    variant: str = "check"  # check: check-symbols -c CONFIG; symbols: symbols --all (the detail path)
    config: str = ""

    def as_json(self) -> dict:
        if self.variant == "symbols":
            args = ["symbols", self.path, "--prefix", P, "--all"]
        else:
            # A config with required shims, one of them missing everywhere: the reader then also
            # searches the static symbol table (.symtab) to tell "hidden" from "not kept".
            args = ["check-symbols", self.path, "-c", self.config, "--format", "json"]
        return {"id": self.id, "path": self.path, "args": args, "patch": self.patch, "expect": self.expect}

    def as_symbols(self) -> Case:
        return Case(self.id + "#symbols", self.path, self.expect, self.group,
                    self.ref + "#symbols" if self.ref else None, self.patch, variant="symbols")


# ---- ELF (64-bit little-endian: every base here is x86-64) ----

@dataclass(frozen=True)
class ElfSection:
    index: int
    header: int  # file offset of this section's header
    type: int
    offset: int
    size: int
    link: int
    entsize: int


def elf_sections(data: bytes) -> list[ElfSection]:
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    out = []
    for index in range(shnum):
        at = shoff + index * shentsize
        _name, type_, _flags, _addr, offset, size, link, _info, _align, entsize = struct.unpack_from("<IIQQQQIIQQ", data, at)
        out.append(ElfSection(index, at, type_, offset, size, link, entsize))
    return out


def _hex(fmt: str, value: int) -> str:
    return struct.pack(fmt, value).hex()


def elf_targeted(data: bytes) -> list[tuple[str, list]]:
    """(name, patch) pairs, each invalid by construction."""
    size = len(data)
    sections = elf_sections(data)
    e_type, = struct.unpack_from("<H", data, 16)
    table = next(s for s in sections if s.type == (2 if e_type == 1 else 11))
    strings = sections[table.link]
    shnum, = struct.unpack_from("<H", data, 0x3C)
    phnum, = struct.unpack_from("<H", data, 0x38)
    out = [
        ("e_shoff_past_eof", [(0x28, _hex("<Q", size + 64))]),
        ("e_shoff_huge", [(0x28, _hex("<Q", 1 << 63))]),
        ("e_shoff_straddles_eof", [(0x28, _hex("<Q", size - 10))]),
        ("e_shnum_ffff", [(0x3C, _hex("<H", 0xFFFF))]),
        ("e_shnum_past_eof", [(0x3C, _hex("<H", shnum + 200))]),
        ("e_shentsize_0", [(0x3A, _hex("<H", 0))]),
        ("e_shentsize_10", [(0x3A, _hex("<H", 10))]),
        ("e_shentsize_ffff", [(0x3A, _hex("<H", 0xFFFF))]),
        ("e_shstrndx_out_of_range", [(0x3E, _hex("<H", 0xFFF0))]),
        ("e_shstrndx_past_shnum", [(0x3E, _hex("<H", shnum))]),
        ("ei_class_9", [(4, "09")]),
        ("ei_data_7", [(5, "07")]),
        ("table_offset_past_eof", [(table.header + 24, _hex("<Q", size + 100))]),
        ("table_offset_huge", [(table.header + 24, _hex("<Q", 1 << 62))]),
        ("table_size_huge", [(table.header + 32, _hex("<Q", 24 << 36))]),
        ("table_size_past_eof", [(table.header + 32, _hex("<Q", (size // 24 + 8) * 24))]),
        ("table_size_not_multiple", [(table.header + 32, _hex("<Q", table.size + 1))]),
        ("table_size_zero", [(table.header + 32, _hex("<Q", 0))]),
        ("table_link_out_of_range", [(table.header + 40, _hex("<I", shnum + 5))]),
        ("table_link_zero", [(table.header + 40, _hex("<I", 0))]),
        ("table_link_to_itself", [(table.header + 40, _hex("<I", table.index))]),
        ("table_entsize_0", [(table.header + 56, _hex("<Q", 0))]),
        ("table_entsize_16", [(table.header + 56, _hex("<Q", 16))]),
        ("table_entsize_32", [(table.header + 56, _hex("<Q", 32))]),
        ("table_nobits", [(table.header + 4, _hex("<I", 8))]),
        ("strings_offset_past_eof", [(strings.header + 24, _hex("<Q", size + 1))]),
        ("strings_size_huge", [(strings.header + 32, _hex("<Q", 1 << 40))]),
        ("strings_size_zero", [(strings.header + 32, _hex("<Q", 0))]),
        ("strings_size_one", [(strings.header + 32, _hex("<Q", 1))]),
        ("strings_nobits", [(strings.header + 4, _hex("<I", 8))]),
        ("strings_unterminated", [(strings.offset + strings.size - 1, "41")]),
        ("second_symbol_table", [(sections[-1].header + 4, _hex("<I", table.type))]),
    ]
    # A section other than the symbol tables pointing past the end of the file.
    other = next(s for s in sections if s.type not in (0, 8) and s.index not in (table.index, strings.index))
    out.append(("other_section_past_eof", [(other.header + 24, _hex("<Q", size + 4096))]))
    # Name offsets (st_name) outside the string table, for a few named symbols.
    named = [i for i in range(1, table.size // 24) if struct.unpack_from("<I", data, table.offset + i * 24)[0]]
    for i in named[:: max(1, len(named) // 3)][:3]:
        at = table.offset + i * 24
        out.append((f"st_name_{i}_one_past", [(at, _hex("<I", strings.size))]))
        out.append((f"st_name_{i}_huge", [(at, _hex("<I", 0xFFFFFFF0))]))
    if phnum:
        out += [
            ("e_phoff_past_eof", [(0x20, _hex("<Q", size + 64))]),
            ("e_phnum_huge", [(0x38, _hex("<H", 0xFFFE))]),
            ("e_phentsize_3", [(0x36, _hex("<H", 3))]),
        ]
        phoff, = struct.unpack_from("<Q", data, 0x20)
        out.append(("segment_past_eof", [(phoff + 8, _hex("<Q", size + 4096))]))  # p_offset of segment 0
    return out


def elf_structural_positions(data: bytes) -> list[int]:
    """Byte offsets of the ELF header, program headers and section headers (minus e_type)."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    # e_type (16..17) is excluded: turning a library into an "executable" is a different valid
    # file, not a corrupt one.
    positions = [p for p in range(64) if p not in (16, 17)]
    positions += range(phoff, phoff + phnum * phentsize) if phnum else []
    positions += range(shoff, shoff + shnum * shentsize)
    return positions


def elf_table_positions(data: bytes) -> list[int]:
    sections = elf_sections(data)
    e_type, = struct.unpack_from("<H", data, 16)
    table = next(s for s in sections if s.type == (2 if e_type == 1 else 11))
    strings = sections[table.link]
    return list(range(table.offset, table.offset + table.size)) + list(range(strings.offset, strings.offset + strings.size))


def truncation_points(size: int, inner: list[int], count: int, rng: random.Random) -> list[int]:
    fixed = [1, 3, 4, 5, 8, 15, 16, 17, 24, 32, 52, 63, 64, 100, 256, 1000, 4096, size // 2, size - 1]
    spread = [int(size * k / count) for k in range(1, count)]
    points = {p for p in fixed + spread + inner + [rng.randrange(1, size) for _ in range(count // 2)] if 0 < p < size}
    return sorted(points)


class Corpus:
    """Writes case files under ``root`` and collects the cases."""

    def __init__(self, root: Path, seed: int = 7) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.rng = random.Random(seed)
        self.cases: list[Case] = []
        self.config = root / "shimgen.toml"
        self.config.write_text(f'prefix = "{P}"\nsymbols = ["aoti_torch_a", "aoti_torch_b", "aoti_torch_zz"]\n')

    def file(self, group: str, name: str, content: bytes, expect: str, ref: str | None = None) -> Case:
        path = self.root / group / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        return self.add(Case(f"{group}/{name}", str(path), expect, group, ref))

    def add(self, case: Case) -> Case:
        case.config = str(self.config)
        self.cases.append(case)
        return case

    def add_symbols_variants(self, skip_groups: tuple[str, ...]) -> None:
        """Every case again through `symbols --all`, which reads every symbol (another code path)."""
        for case in [c for c in self.cases if c.group not in skip_groups and c.variant == "check"]:
            self.add(case.as_symbols())

    # -- per-format batteries --

    def elf_battery(self, group: str, data: bytes, *, truncations: int, header_flips: int, table_flips: int,
                    in_place: Path | None = None) -> None:
        """Cuts, targeted field corruptions and random flips of one ELF file.

        ``in_place``: a copy of a big library that the driver patches and restores per case,
        instead of writing one file per case; its cuts are written only up to the symbol tables.
        """
        rng = self.rng
        sections = elf_sections(data)
        e_type, = struct.unpack_from("<H", data, 16)
        table = next(s for s in sections if s.type == (2 if e_type == 1 else 11))
        strings = sections[table.link]
        inner = [table.offset + table.size // 2, table.offset + table.size, strings.offset + strings.size // 2,
                 strings.offset + strings.size - 1]
        if in_place is not None:
            ref = self.add(Case(f"{group}/reference", str(in_place), "reference", group))
            limit = strings.offset + strings.size  # cuts beyond the tables would copy 400 MB each
            for point in sorted({p for p in [*inner, 64, 4096, 65536, table.offset + 10] if p <= limit})[:truncations]:
                self.file(group, f"cut_{point}", data[:point], "bad")
            for name, patch in elf_targeted(data):
                self.add(Case(f"{group}/{name}", str(in_place), "bad", group, patch=patch))
            return
        ref = self.file(group, "reference", data, "reference")
        for point in truncation_points(len(data), inner, truncations, rng):
            self.file(group, f"cut_{point}", data[:point], "bad")
        for name, patch in elf_targeted(data):
            self.file(group, name, _patched(data, patch), "bad")
        structural = elf_structural_positions(data)
        for k in range(header_flips):
            position = rng.choice(structural)
            mutated = bytearray(data)
            mutated[position] ^= 1 << rng.randrange(8) if rng.random() < 0.5 else rng.randrange(1, 256)
            self.file(group, f"flip_header_{k}_at_{position}", bytes(mutated), "bad-or-same", ref.id)
        content = elf_table_positions(data)
        for k in range(table_flips):
            mutated = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                mutated[rng.choice(content)] = rng.randrange(256)
            self.file(group, f"flip_table_{k}", bytes(mutated), "no-crash", ref.id)

    def random_behind_magic(self, count: int) -> None:
        rng = self.rng
        heads = {
            "elf": b"\x7fELF",
            "elf64le": b"\x7fELF\x02\x01\x01",  # a plausible ident: gets further into the reader
            "elf32be": b"\x7fELF\x01\x02\x01",
            "macho64": b"\xcf\xfa\xed\xfe",
            "macho32": b"\xce\xfa\xed\xfe",
            "macho64be": b"\xfe\xed\xfa\xcf",
            "fat": b"\xca\xfe\xba\xbe\x00\x00\x00\x02",  # two slices announced
            "fat1": b"\xca\xfe\xba\xbe\x00\x00\x00\x01",
            "pe": b"MZ",
            "pe_with_header": b"MZ" + b"\0" * 58 + struct.pack("<I", 64) + b"PE\0\0",
            "archive": b"!<arch>\n",
        }
        for name, head in heads.items():
            for k in range(count):
                length = rng.choice([0, 1, 16, 60, 200, 1000, 4096, 20000])
                body = head + rng.randbytes(length)
                self.file("magic", f"{name}_{k}_{length}", body, "bad")

    def generic_battery(self, group: str, data: bytes, needed_end: int, targeted: list[tuple[str, bytes]],
                        *, truncations: int, flips: int, structural_end: int) -> None:
        """Mach-O and PE: cuts (bad below ``needed_end``, else bad-or-same), targeted corruptions
        (bad) and random flips in the headers, load commands and section table (bad-or-same)."""
        rng = self.rng
        ref = self.file(group, "reference", data, "reference")
        for point in truncation_points(len(data), [needed_end - 1, needed_end // 2], truncations, rng):
            expect = "bad" if point < needed_end else "bad-or-same"
            self.file(group, f"cut_{point}", data[:point], expect, ref.id)
        for name, content in targeted:
            self.file(group, name, content, "bad")
        for k in range(flips):
            position = rng.randrange(4, structural_end)
            mutated = bytearray(data)
            mutated[position] ^= 1 << rng.randrange(8) if rng.random() < 0.5 else rng.randrange(1, 256)
            self.file(group, f"flip_{k}_at_{position}", bytes(mutated), "bad-or-same", ref.id)


def _patched(data: bytes, patch: list) -> bytes:
    mutated = bytearray(data)
    for offset, hexbytes in patch:
        new = bytes.fromhex(hexbytes)
        if offset + len(new) <= len(mutated):
            mutated[offset:offset + len(new)] = new
    return bytes(mutated)


# ---- builders of the base binaries ----

def build_elf_bases(d: Path) -> dict[str, Path]:
    d.mkdir(parents=True, exist_ok=True)
    (d / "good.c").write_text(f"{EXPORT} int {P}aoti_torch_a(void){{return 1;}}\n"
                              f"{EXPORT} int {P}aoti_torch_b(void){{return 2;}}\n"
                              f"{EXPORT} __thread int {P}tls;\nint puts(const char*);\n"
                              f"{EXPORT} int hello(void){{return puts(\"hi\");}}\n")
    (d / "leak.c").write_text(f"{EXPORT} int aoti_torch_a(void){{return 1;}}\nint aoti_torch_c(void);\n"
                              f"{EXPORT} int call(void){{return aoti_torch_c();}}\n")
    (d / "main.c").write_text(f"int {P}aoti_torch_a(void);\nint main(void){{return {P}aoti_torch_a();}}\n")
    out = {"so": d / "libgood.so", "leak": d / "libleak.so", "obj": d / "good.o", "obj2": d / "leak.o",
           "archive": d / "libshim.a", "exe": d / "app", "lto": d / "lto.o", "lto_archive": d / "liblto.a"}
    cc = ["gcc", "-fPIC", "-fvisibility=hidden"]
    subprocess.run([*cc, "-shared", "-o", out["so"], d / "good.c"], check=True)
    subprocess.run([*cc, "-shared", "-o", out["leak"], d / "leak.c"], check=True)
    subprocess.run([*cc, "-c", "-o", out["obj"], d / "good.c"], check=True)
    subprocess.run([*cc, "-c", "-o", out["obj2"], d / "leak.c"], check=True)
    subprocess.run(["ar", "rcs", out["archive"], out["obj"], out["obj2"]], check=True)
    subprocess.run(["gcc", "-o", out["exe"], d / "main.c", out["so"], f"-Wl,-rpath,{d}"], check=True)
    subprocess.run(["gcc", "-flto", "-c", "-o", out["lto"], d / "good.c"], check=True)
    subprocess.run(["ar", "rcs", out["lto_archive"], out["lto"]], check=True)
    return out


def build_pe(d: Path) -> Path | None:
    if not toolchains.has_zig():
        return None
    d.mkdir(parents=True, exist_ok=True)
    (d / "s.c").write_text(f"__declspec(dllexport) int {P}aoti_torch_a(void){{return 1;}}\n"
                           "__declspec(dllexport) int aoti_torch_b(void){return 2;}\n")
    return toolchains.pe_dll(d / "s.c", d / "s.dll", "-s")


def build_coff(d: Path) -> Path | None:
    """A COFF object (MSVC conventions) with a weak external, a selectany COMDAT and a reference."""
    if not toolchains.has_zig():
        return None
    d.mkdir(parents=True, exist_ok=True)
    (d / "c.c").write_text(f"int {P}aoti_torch_a(void){{return 1;}}\nint aoti_torch_b(void){{return 2;}}\n"
                           "__attribute__((weak)) int aoti_torch_w(void){return 3;}\n"
                           "__declspec(selectany) int aoti_torch_d = 4;\n"
                           "int aoti_torch_c(void);\nint use(void){return aoti_torch_c();}\n")
    return toolchains.coff_object("x86_64-windows-msvc", d / "c.c", d / "c.obj")


def build_macho(d: Path) -> dict[str, Path]:
    if not toolchains.has_zig():
        return {}
    d.mkdir(parents=True, exist_ok=True)
    (d / "m.c").write_text(f"{EXPORT} int {P}aoti_torch_a(void){{return 1;}}\n{EXPORT} int aoti_torch_b(void){{return 2;}}\n"
                           f"int aoti_torch_c(void);\n{EXPORT} int use(void){{return aoti_torch_c();}}\n")
    out = {"dylib": toolchains.macho_dylib(d / "m.c", d / "m.dylib", "x86_64")}
    slices = [toolchains.macho_object(d / "m.c", d / f"{arch}.o", arch) for arch in ("x86_64", "arm64")]
    out["fat"] = toolchains.fat_macho(slices, d / "fat.o")
    return out


# ---- per-format targeted corruptions (Mach-O, fat, PE) ----

def macho_targeted(data: bytes) -> tuple[int, int, list[tuple[str, bytes]]]:
    """(needed end, end of load commands, [(name, content)]) for a 64-bit little-endian Mach-O."""
    ncmds, sizeofcmds = struct.unpack_from("<II", data, 16)
    size = len(data)
    at, symtab, needed = 32, None, 0
    for _ in range(ncmds):
        cmd, cmdsize = struct.unpack_from("<II", data, at)
        if cmd == 0x2:  # LC_SYMTAB: symoff, nsyms, stroff, strsize
            symtab = at
            symoff, nsyms, stroff, strsize = struct.unpack_from("<IIII", data, at + 8)
            needed = max(needed, symoff + nsyms * 16, stroff + strsize)
        if cmd == 0x19:  # LC_SEGMENT_64: fileoff, filesize at +40, +48
            fileoff, filesize = struct.unpack_from("<QQ", data, at + 40)
            needed = max(needed, fileoff + filesize)
        at += cmdsize

    def put(offset: int, fmt: str, value: int) -> bytes:
        return _patched(data, [(offset, _hex(fmt, value))])

    out = [("ncmds_huge", put(16, "<I", 0xFFFFFFFF)), ("sizeofcmds_huge", put(20, "<I", 0xFFFFFF00)),
           ("sizeofcmds_past_eof", put(20, "<I", size))]
    if symtab is not None:
        out += [("symoff_past_eof", put(symtab + 8, "<I", size + 16)), ("nsyms_huge", put(symtab + 12, "<I", 0x0FFFFFFF)),
                ("stroff_past_eof", put(symtab + 16, "<I", size + 1)), ("strsize_huge", put(symtab + 20, "<I", 0x7FFFFFFF))]
    out.append(("first_cmdsize_zero", put(36, "<I", 0)))
    out.append(("first_cmdsize_huge", put(36, "<I", 0x7FFFFFF0)))
    return needed, 32 + sizeofcmds, out


def fat_targeted(data: bytes) -> list[tuple[str, bytes]]:
    size = len(data)

    def put(offset: int, fmt: str, value: int) -> bytes:
        return _patched(data, [(offset, _hex(fmt, value))])

    # fat_arch (big-endian): cputype, cpusubtype, offset, size, align, from byte 8
    return [("fat_nfat_19", put(4, ">I", 19)), ("fat_slice_offset_past_eof", put(16, ">I", size + 64)),
            ("fat_slice_size_huge", put(20, ">I", 0x7FFFFFFF)), ("fat_second_slice_past_eof", put(36, ">I", size)),
            ("fat_slices_overlap_header", put(16, ">I", 0))]


def pe_targeted(data: bytes) -> tuple[int, int, list[tuple[str, bytes]]]:
    size = len(data)
    lfanew, = struct.unpack_from("<I", data, 0x3C)
    coff = lfanew + 4
    nsections, = struct.unpack_from("<H", data, coff + 2)
    optsize, = struct.unpack_from("<H", data, coff + 16)
    table = coff + 20 + optsize
    needed = 0
    for i in range(nsections):
        raw_size, raw_ptr = struct.unpack_from("<II", data, table + i * 40 + 16)
        needed = max(needed, raw_ptr + raw_size)
    export_dir = coff + 20 + 112  # PE32+: data directories start at optional header + 112

    def put(offset: int, fmt: str, value: int) -> bytes:
        return _patched(data, [(offset, _hex(fmt, value))])

    out = [("e_lfanew_past_eof", put(0x3C, "<I", size + 8)), ("e_lfanew_huge", put(0x3C, "<I", 0xFFFFFFF0)),
           ("pe_signature_broken", put(lfanew, "<I", 0x00004550 ^ 0xFF)),
           ("nsections_ffff", put(coff + 2, "<H", 0xFFFF)), ("optional_header_size_huge", put(coff + 16, "<H", 0xFFFF)),
           ("section0_raw_past_eof", put(table + 20, "<I", size + 512)),
           ("section0_raw_size_huge", put(table + 16, "<I", 0x7FFFFFFF)),
           ("export_dir_rva_bogus", put(export_dir, "<I", 0x7FFFFFF0)),
           ("export_dir_size_huge", put(export_dir + 4, "<I", 0x7FFFFFF0))]
    return needed, table + nsections * 40, out


def coff_targeted(data: bytes) -> tuple[int, int, list[tuple[str, bytes]]]:
    """(needed end, end of the section table, [(name, content)]) for a regular COFF object."""
    nsections, = struct.unpack_from("<H", data, 2)
    symtab, nsymbols = struct.unpack_from("<II", data, 8)
    strings = symtab + nsymbols * 18
    last, index = symtab, 0
    while index < nsymbols:  # the last primary record (auxiliary records follow their primary)
        last = symtab + index * 18
        index += 1 + data[last + 17]

    def put(offset: int, fmt: str, value: int) -> bytes:
        return _patched(data, [(offset, _hex(fmt, value))])

    out = [("symtab_past_eof", put(8, "<I", len(data) + 64)), ("nsymbols_huge", put(12, "<I", 0x7FFFFFFF)),
           ("symtab_inside_headers", put(8, "<I", 4)), ("nsections_past_eof", put(2, "<H", 0xFF00)),
           ("section0_raw_past_eof", put(20 + 20, "<I", len(data) + 512)),
           ("section0_raw_size_huge", put(20 + 16, "<I", 0x7FFFFFFF)),
           ("string_table_size_huge", put(strings, "<I", 0x7FFFFFFF)),
           ("last_symbol_aux_past_table", put(last + 17, "<B", data[last + 17] + 3))]
    return len(data), 20 + nsections * 40, out


# ---- zips and special files ----

def zip_cases(corpus: Corpus, library: bytes) -> None:
    group = "zip"
    d = corpus.root / group
    d.mkdir(parents=True, exist_ok=True)

    def write_zip(name: str, members: list[tuple[str, bytes]], compression=zipfile.ZIP_DEFLATED) -> Path:
        path = d / name
        with zipfile.ZipFile(path, "w", compression) as archive:
            for member, content in members:
                archive.writestr(zipfile.ZipInfo(member), content, compress_type=compression)
        return path

    def add(path: Path) -> None:
        corpus.add(Case(f"{group}/{path.name}", str(path), "bad", group))

    add(write_zip("traversal.whl", [("pkg/__init__.py", b""), ("../../evil/libgood.so", library)]))
    add(write_zip("traversal_inner.whl", [("pkg/../../../libgood.so", library)]))
    add(write_zip("absolute.whl", [("/tmp/libgood.so", library)]))
    add(write_zip("backslash.whl", [("..\\..\\libgood.so", library)]))
    add(write_zip("drive.whl", [("C:/Windows/libgood.so", library)]))
    # A member that decompresses far beyond its stored size: 300 MB of zeros behind an ELF magic.
    bomb = d / "bomb.whl"
    _write_bomb(bomb, "pkg/libbomb.so", 300 << 20, honest=True)
    add(bomb)
    liar = d / "bomb_lying_header.whl"
    _write_bomb(liar, "pkg/libbomb.so", 300 << 20, honest=False)
    add(liar)
    add(write_zip("many_members.whl", [(f"pkg/m{i}.txt", b"x") for i in range(20_001)], zipfile.ZIP_STORED))
    add(write_zip("thousands_no_binary.whl", [(f"pkg/m{i}.py", b"pass\n") for i in range(5_000)], zipfile.ZIP_STORED))
    add(write_zip("cut_member.whl", [("pkg/libgood.so", library), ("pkg/libcut.so", library[:len(library) // 2])]))
    add(write_zip("zip_in_zip.whl", [("inner.zip", _zip_bytes([("libgood.so", library)]))]))
    whole = _zip_bytes([("pkg/libgood.so", library)])
    for point in (10, 30, len(whole) // 2, len(whole) - 30, len(whole) - 1):
        (d / f"cut_{point}.whl").write_bytes(whole[:point])
        add(d / f"cut_{point}.whl")
    damaged = bytearray(whole)
    damaged[len(whole) // 3] ^= 0xFF  # inside the deflated data: a zlib error or a CRC mismatch
    (d / "data_damaged.whl").write_bytes(bytes(damaged))
    add(d / "data_damaged.whl")
    stored = _zip_bytes([("pkg/libgood.so", library)], zipfile.ZIP_STORED)
    central = stored.rfind(b"PK\x01\x02")
    body = bytearray(stored)
    body[central + 24:central + 28] = struct.pack("<I", 3 << 30)  # declared size 3 GiB
    (d / "declared_huge.whl").write_bytes(bytes(body))
    add(d / "declared_huge.whl")


def _zip_bytes(members, compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for member, content in members:
            archive.writestr(member, content)
    return buffer.getvalue()


def _write_bomb(path: Path, member: str, size: int, *, honest: bool) -> None:
    """A deflated member of ``size`` bytes (ELF magic, then zeros), built without holding it in memory."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = b"\0" * (1 << 20)
    parts = [compressor.compress(b"\x7fELF\x02\x01\x01" + b"\0" * ((1 << 20) - 7))]
    crc = zlib.crc32(b"\x7fELF\x02\x01\x01" + b"\0" * ((1 << 20) - 7))
    for _ in range(size // len(chunk) - 1):
        parts.append(compressor.compress(chunk))
        crc = zlib.crc32(chunk, crc)
    parts.append(compressor.flush())
    data = b"".join(parts)
    declared = size if honest else 4096  # a lying header claims a small member
    name = member.encode()
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(data), declared, len(name), 0) + name
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(data), declared, len(name),
                          0, 0, 0, 0, 0, 0) + name
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), len(local) + len(data), 0)
    path.write_bytes(local + data + central + end)


def special_cases(corpus: Corpus, library: bytes, lto: Path, lto_archive: Path) -> list[str]:
    """Empty file, directories, symlink loop, FIFO, unreadable files, text, LTO-only objects.
    Returns the reasons for cases that cannot be made here."""
    group = "special"
    d = corpus.root / group
    d.mkdir(parents=True, exist_ok=True)
    skipped = []

    def add(name: str, path: Path) -> None:
        corpus.add(Case(f"{group}/{name}", str(path), "bad", group))

    add("empty", _write(d / "empty.so", b""))
    (d / "empty_dir").mkdir()
    add("empty_dir", d / "empty_dir")
    (d / "text_dir").mkdir()
    _write(d / "text_dir" / "README", b"not a binary\n")
    add("text_dir", d / "text_dir")
    os.symlink("loop_b", d / "loop_a")
    os.symlink("loop_a", d / "loop_b")
    add("symlink_loop", d / "loop_a")
    os.symlink("nowhere.so", d / "dangling")
    add("dangling_symlink", d / "dangling")
    os.mkfifo(d / "fifo")
    add("fifo", d / "fifo")
    add("missing", d / "missing.so")
    (d / "mixed_dir").mkdir()
    _write(d / "mixed_dir" / "libgood.so", library)
    _write(d / "mixed_dir" / "libcut.so", library[:len(library) // 2])  # one bad file spoils the walk
    add("dir_with_a_cut_library", d / "mixed_dir")
    add("text", _write(d / "notes.so", b"#!/bin/sh\necho this is text\n" * 20))
    add("utf16_text", _write(d / "utf16.so", "\ufeffhello".encode("utf-16")))
    add("lto_object", lto)
    add("lto_archive", lto_archive)
    unreadable = _write(d / "unreadable.so", library)
    os.chmod(unreadable, 0)
    if os.geteuid() != 0:
        add("chmod_000", unreadable)
    else:
        skipped.append("chmod 000: tests run as root, which reads the file anyway (/proc/self/mem stands in)")
    if Path("/proc/self/mem").exists():
        add("proc_self_mem", Path("/proc/self/mem"))  # a regular file whose read fails with EIO
    if Path("/dev/zero").exists():
        add("dev_zero", Path("/dev/zero"))  # endless: must be refused without reading
    return skipped


def _write(path: Path, content: bytes) -> Path:
    path.write_bytes(content)
    return path
