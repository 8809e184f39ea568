"""Names.having through a library's .gnu.hash (SG009's anchor lookup) answers exactly as set
membership does, on every shared library of the installed torch, numpy and scipy wheels, and on
a gcc-built library; a corrupt hash table falls back to searching the string table."""

from __future__ import annotations

import random
import struct
import subprocess

from shimgen.binary import elf
from shimgen.binary.load import load_paths
from shimgen.check.runtimes import anchors
from tests.integration.test_check_sweep import wheel_dirs


def _wanted(binary, rng: random.Random) -> set[str]:
    exports, imports = sorted(binary.exports), sorted(binary.imports)
    return {*anchors(), *rng.sample(exports, min(60, len(exports))), *rng.sample(imports, min(30, len(imports))),
            "not_a_symbol_anywhere", "_ZNSt9exception", ""}


def test_hash_lookup_equals_membership_on_real_wheels():
    rng = random.Random(5)
    libraries = [p for d in wheel_dirs() for p in sorted(d.rglob("*.so*")) if p.is_file() and not p.is_symlink()]
    indexed = 0
    for path in libraries:
        (binary,) = load_paths([path])
        if binary.kind != "shared":
            continue
        indexed += binary.exports._index is not None
        wanted = _wanted(binary, rng)
        truth = {n for n in wanted if n in set(binary.exports)}
        assert binary.exports.having(wanted) == truth, path
    assert indexed > 100  # the index was really used, not only the fallback


def test_gcc_library_and_a_corrupt_hash_table(tmp_path):
    source = tmp_path / "l.c"
    source.write_text("".join(f"int f{i}(void){{return {i};}}\n" for i in range(300)) + "int __cxa_throw;\n")
    library = tmp_path / "libl.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wl,--hash-style=gnu", "-o", library, source], check=True)
    (binary,) = load_paths([library])
    assert binary.exports._index is not None
    wanted = {"f0", "f150", "f299", "f300", "__cxa_throw", "puts"}
    assert binary.exports.having(wanted) == {"f0", "f150", "f299", "__cxa_throw"}
    # Point every bucket past the symbol count: probing it is refused, and the text search answers.
    data = bytearray(library.read_bytes())
    header = next(s for s in _sections(data) if s[0] == elf.SHT_GNU_HASH)
    nbuckets, _, bloom_size, _ = struct.unpack_from("<4I", data, header[1])
    buckets_at = header[1] + 16 + bloom_size * 8
    for i in range(nbuckets):
        struct.pack_into("<I", data, buckets_at + 4 * i, 0x7FFFFFF0)
    corrupt = tmp_path / "libcorrupt.so"
    corrupt.write_bytes(bytes(data))
    (binary,) = load_paths([corrupt])
    assert binary.exports.having(wanted) == {"f0", "f150", "f299", "__cxa_throw"}


def _sections(data: bytearray) -> list[tuple[int, int]]:
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    return [struct.unpack_from("<4xI16xQ", data, shoff + i * shentsize) for i in range(shnum)]


def test_gnu_hash_values():
    # Published values of the GNU hash (h = h * 33 + c from 5381, 32-bit): the empty name and printf.
    assert elf.gnu_hash(b"") == 0x1505 and elf.gnu_hash(b"printf") == 0x156B2BB8
