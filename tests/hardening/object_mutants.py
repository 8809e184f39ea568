"""Mutants of gcc-built relocatable objects (.o) and static archives (.a), judged by binutils.

Every mutant is derived with a fixed seed from files the test compiles; none is checked in. Kinds:
  header    random byte changes in the ELF header
  sht       random byte changes in the section-header table
  field     one ELF header or section header field set to an extreme value (0, all ones, the file
            size, one past it, the section count)
  splice    the head of one file joined to the tail of another at a random point, or one file's
            section-header table laid over the other's
  cut       the file truncated at a random point
  ar-*      archive mutations: member header bytes, the size field, ``ar_fmag``, the GNU long-name
            table ``//`` (offsets out of range, its terminators removed), the symbol index ``/``,
            and header or section-header bytes of an object inside the archive

The oracle (``nm_unreadable``, ``readelf_plain_exports``) runs binutils over all mutants in a few
batched processes and attributes each message to its file by name (every mutant has a unique one).
"""

from __future__ import annotations

import random
import re
import struct
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

P = "executorch_"
EXPORT = '__attribute__((visibility("default")))'

# The shims of the config the mutants are checked with; aoti_torch_c is a plain shim leak.c exports.
SHIMS = ("aoti_torch_a", "aoti_torch_b", "aoti_torch_c")
CONFIG = f'prefix = "{P}"\npatterns = ["aoti_torch_*"]\n'


@dataclass(frozen=True)
class Mutant:
    name: str  # unique file name, also the id
    kind: str
    content: bytes


def build_bases(d: Path) -> dict[str, bytes]:
    """good.o (prefixed shims only), leak.o (a plain shim exported), and two archives of both:
    one with short member names, one whose long names live in the ``//`` table."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "good.c").write_text(
        f"{EXPORT} int {P}aoti_torch_a(void){{return 1;}}\n{EXPORT} int {P}aoti_torch_b(void){{return 2;}}\n"
        f"{EXPORT} __thread int {P}tls;\nstatic int helper(int x){{return x + 1;}}\n"
        f"{EXPORT} int use_helper(int x){{return helper(x) * {P}aoti_torch_a();}}\n")
    (d / "leak.c").write_text(f"{EXPORT} int aoti_torch_c(void){{return 3;}}\nint {P}aoti_torch_a(void);\n"
                              f"{EXPORT} int call(void){{return {P}aoti_torch_a() + aoti_torch_c();}}\n")
    for name in ("good", "leak"):
        subprocess.run(["gcc", "-O1", "-fPIC", "-fvisibility=hidden", "-c", "-o", d / f"{name}.o", d / f"{name}.c"],
                       check=True)
    short = d / "libshort.a"
    subprocess.run(["ar", "rcs", short, d / "good.o", d / "leak.o"], check=True)
    long_good, long_leak = d / "prefixed_shims_member_good.o", d / "plain_shim_member_leak.o"
    long_good.write_bytes((d / "good.o").read_bytes())
    long_leak.write_bytes((d / "leak.o").read_bytes())
    names = d / "liblongnames.a"
    subprocess.run(["ar", "rcs", names, long_good, long_leak], check=True)
    return {name: (d / name).read_bytes() for name in ("good.o", "leak.o", "libshort.a", "liblongnames.a")}


# ---- ELF (every base is x86-64: 64-bit little-endian) ----

EHDR_FIELDS = {  # name: (offset, struct format)
    "e_type": (16, "<H"), "e_version": (20, "<I"), "e_phoff": (32, "<Q"), "e_shoff": (40, "<Q"),
    "e_ehsize": (52, "<H"), "e_phentsize": (54, "<H"), "e_phnum": (56, "<H"), "e_shentsize": (58, "<H"),
    "e_shnum": (60, "<H"), "e_shstrndx": (62, "<H"),
}
SHDR_FIELDS = {  # offset inside one 64-byte section header
    "sh_name": (0, "<I"), "sh_type": (4, "<I"), "sh_flags": (8, "<Q"), "sh_offset": (24, "<Q"),
    "sh_size": (32, "<Q"), "sh_link": (40, "<I"), "sh_info": (44, "<I"), "sh_entsize": (56, "<Q"),
}


def _sht(data: bytes) -> tuple[int, int, int]:
    """(e_shoff, e_shentsize, e_shnum)."""
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    return shoff, shentsize, shnum


def _put(data: bytes, offset: int, fmt: str, value: int) -> bytes:
    width = struct.calcsize(fmt)
    value &= (1 << (8 * width)) - 1
    return data[:offset] + struct.pack(fmt, value) + data[offset + width:]


def _flip(data: bytes, positions: Sequence[int], rng: random.Random) -> bytes:
    mutated = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at = rng.choice(positions)
        mutated[at] ^= 1 << rng.randrange(8) if rng.random() < 0.5 else rng.randrange(1, 256)
    return bytes(mutated)


def _extremes(data: bytes, width: int, shnum: int) -> list[int]:
    return [0, (1 << (8 * width)) - 1, (1 << (8 * width - 1)), len(data), len(data) + 1, shnum, shnum - 1, 1]


def elf_mutants(tag: str, data: bytes, other: bytes, rng: random.Random, *, header: int, sht: int, fields: int,
                splices: int, cuts: int) -> list[Mutant]:
    shoff, shentsize, shnum = _sht(data)
    out: list[Mutant] = []

    def add(kind: str, content: bytes) -> None:
        if content != data:
            out.append(Mutant(f"{tag}-{kind}-{len(out):03d}.o", kind, content))

    head = [p for p in range(64) if p not in (16, 17)]  # e_type: an .o turned .so is another valid file
    for _ in range(header):
        add("header", _flip(data, head, rng))
    table = range(shoff, shoff + shnum * shentsize)
    for _ in range(sht):
        add("sht", _flip(data, table, rng))
    choices = [(None, name) for name in EHDR_FIELDS] + [(i, name) for i in range(shnum) for name in SHDR_FIELDS]
    for index, name in rng.sample(choices, min(fields, len(choices))):
        offset, fmt = EHDR_FIELDS[name] if index is None else SHDR_FIELDS[name]
        at = offset if index is None else shoff + index * shentsize + offset
        value = rng.choice(_extremes(data, struct.calcsize(fmt), shnum))
        add("field", _put(data, at, fmt, value))
    for k in range(splices):
        if k % 2:  # one file's section headers over the other's (same place, same count or not)
            o_shoff, o_entsize, o_shnum = _sht(other)
            add("splice", data[:shoff] + other[o_shoff:o_shoff + o_shnum * o_entsize] + data[shoff + shnum * shentsize:])
        else:
            cut = rng.randrange(16, min(len(data), len(other)))
            add("splice", data[:cut] + other[cut:])
    for _ in range(cuts):
        add("cut", data[:rng.randrange(1, len(data))])
    return out


# ---- archives ----

@dataclass(frozen=True)
class ArMember:
    header: int  # offset of the 60-byte header
    name: bytes
    size: int


def ar_members(data: bytes) -> list[ArMember]:
    offset, out = 8, []
    while offset + 60 <= len(data):
        size = int(data[offset + 48:offset + 58])
        out.append(ArMember(offset, data[offset:offset + 16].rstrip(b" "), size))
        offset += 60 + size + (size & 1)
    return out


def _ar_field(data: bytes, at: int, width: int, text: bytes) -> bytes:
    return data[:at] + text[:width].ljust(width) + data[at + width:]


def archive_mutants(tag: str, data: bytes, other: bytes, rng: random.Random, *, flips: int, sizes: int,
                    members_mutated: int, splices: int, cuts: int) -> list[Mutant]:
    members = ar_members(data)
    out: list[Mutant] = []

    def add(kind: str, content: bytes) -> None:
        if content != data:
            out.append(Mutant(f"{tag}-{kind}-{len(out):03d}.a", kind, content))

    headers = [m.header + i for m in members for i in range(60)]
    for _ in range(flips):
        add("ar-header", _flip(data, headers, rng))
    for member in rng.sample(members, len(members)):
        at = member.header
        add("ar-fmag", data[:at + 58] + b"\n`" + data[at + 60:])
        for _ in range(sizes):
            text = rng.choice([b"0", b"-1", b"9999999999", b"12x", b"", str(member.size + 1).encode(),
                               str(max(0, member.size - 1)).encode(), str(len(data)).encode()])
            add("ar-size", _ar_field(data, at + 48, 10, text))
    index = next((m for m in members if m.name == b"/"), None)
    if index is not None:
        body = index.header + 60
        count, = struct.unpack_from(">I", data, body)
        add("ar-index", data[:body] + struct.pack(">I", 0xFFFFFFFF) + data[body + 4:])
        add("ar-index", data[:body] + struct.pack(">I", count + 50) + data[body + 4:])
        for _ in range(min(count, 3)):
            at = body + 4 + 4 * rng.randrange(count)
            add("ar-index", data[:at] + struct.pack(">I", rng.choice([0, 9, len(data), 0x7FFFFFFF])) + data[at + 4:])
    names = next((m for m in members if m.name == b"//"), None)
    if names is not None:
        body = names.header + 60
        table = data[body:body + names.size]
        add("ar-names", data[:body] + table.replace(b"/\n", b"//") + data[body + names.size:])  # terminators gone
        add("ar-names", data[:body] + table.replace(b"/\n", b"\0\0", 1) + data[body + names.size:])
        for member in (m for m in members if re.fullmatch(rb"/\d+", m.name)):
            for value in (names.size, names.size + 40, 99999999, int(member.name[1:]) + 1, names.size - 1):
                add("ar-names", _ar_field(data, member.header, 16, b"/%d" % value))
            add("ar-names", _ar_field(data, member.header, 16, b"/-1"))
    objects = [m for m in members if data[m.header + 60:m.header + 64] == b"\x7fELF"]
    for _ in range(members_mutated):  # a member's own ELF headers, sizes unchanged
        member = rng.choice(objects)
        start, end = member.header + 60, member.header + 60 + member.size
        body = data[start:end]
        shoff, shentsize, shnum = _sht(body)
        inner = _flip(body, [p for p in range(64) if p not in (16, 17)] + list(range(shoff, shoff + shnum * shentsize)),
                      rng)
        add("ar-member", data[:start] + inner + data[end:])
    for _ in range(splices):
        cut = rng.randrange(8, min(len(data), len(other)))
        add("splice", data[:cut] + other[cut:])
    ends = [m.header + 60 + m.size for m in members]
    for point in sorted(set(ends[:-1] + [rng.randrange(1, len(data)) for _ in range(cuts)])):
        add("cut", data[:point])
    return out


def corpus(bases: dict[str, bytes], seed: int = 14) -> list[Mutant]:
    rng = random.Random(seed)
    good, leak = bases["good.o"], bases["leak.o"]
    mutants = elf_mutants("good", good, leak, rng, header=30, sht=50, fields=50, splices=10, cuts=10)
    mutants += elf_mutants("leak", leak, good, rng, header=20, sht=30, fields=30, splices=6, cuts=6)
    mutants += archive_mutants("short", bases["libshort.a"], bases["liblongnames.a"], rng, flips=30, sizes=3,
                               members_mutated=25, splices=6, cuts=6)
    mutants += archive_mutants("long", bases["liblongnames.a"], bases["libshort.a"], rng, flips=30, sizes=3,
                               members_mutated=25, splices=6, cuts=6)
    return mutants


# ---- the binutils oracle ----

def _batches(paths: Sequence[Path], size: int = 100) -> Iterable[Sequence[Path]]:
    for start in range(0, len(paths), size):
        yield paths[start:start + size]


def nm_unreadable(paths: Sequence[Path]) -> dict[str, str]:
    """{file name: nm's complaint} for every file nm cannot read.

    nm reports a file it cannot parse as an error line naming it. Warnings (nm carries on and
    lists the symbols) do not count."""
    bad = _complaints("nm", ["-A"], paths)
    # "no symbols" is also what nm says of a valid object without a symbol table (Debian's libc.a
    # holds such members), and with the LTO plugin installed (Debian's binutils loads LLVMgold)
    # of many files BFD rejects. objdump, which loads no plugin, tells the two apart.
    unsure = [p for p in paths if bad.get(p.name) == "no symbols"]
    confirmed = _complaints("objdump", ["-h"], unsure)
    for path in unsure:
        if path.name in confirmed:
            bad[path.name] = confirmed[path.name]
        else:
            del bad[path.name]
    return bad


def _complaints(tool: str, args: list[str], paths: Sequence[Path]) -> dict[str, str]:
    """{file name: first non-warning message} of ``tool`` over ``paths``. Archives run one per
    process: binutils names a broken member by the member alone ("nm: good.o: ..."); objects run
    in batches, where each message names its file."""
    bad: dict[str, str] = {}
    archives = [p for p in paths if p.suffix == ".a"]
    objects = [p for p in paths if p.suffix != ".a"]
    for batch in [*_batches(objects), *([a] for a in archives)]:
        done = subprocess.run([tool, *args, *map(str, batch)], capture_output=True, text=True, errors="replace")
        for line in done.stderr.splitlines():
            match = re.match(rf"{tool}: (?!warning)(.*?)(?:\(.*?\))?: (.*)", line)
            if match:
                name = batch[0].name if len(batch) == 1 else Path(match.group(1)).name
                bad.setdefault(name, match.group(2))
    return bad


def readelf_plain_exports(paths: Sequence[Path], prefix: str = P) -> dict[str, list[str]]:
    """{file name: plain shim names} that ``readelf --syms`` shows defined, GLOBAL (or WEAK) and
    DEFAULT visibility in some symbol table of the file (an archive: of any member)."""
    found: dict[str, list[str]] = {}
    row = re.compile(r"\s*\d+: \S+\s+\d+\s+\S+\s+(GLOBAL|WEAK)\s+DEFAULT\s+(\S+)\s+(\S+)")
    for batch in _batches(paths):
        done = subprocess.run(["readelf", "--syms", "-W", *map(str, batch)], capture_output=True, text=True,
                              errors="replace")
        current = batch[0].name if len(batch) == 1 else None  # one file: readelf prints no "File:" line
        for line in done.stdout.splitlines():
            if line.startswith("File: "):
                current = Path(re.sub(r"\(.*\)$", "", line[6:])).name
                continue
            match = row.match(line)
            if current and match and match.group(2) != "UND":
                name = match.group(3).split("@")[0]
                if name.startswith("aoti_torch_") and not name.startswith(prefix):
                    found.setdefault(current, []).append(name)
    return found
