"""check-symbols on real PE and Mach-O binaries (fat ones too) and on foreign-architecture ELF.

All are built here by `zig cc` from the PyPI `ziglang` package (tests/toolchains.py), so no apt
toolchain is needed; without the package (not installed with the [test] extra) these tests skip.
"""

from __future__ import annotations

import pytest

from shimgen.binary.load import load_paths
from shimgen.check import Policy, check_paths
from shimgen.errors import InputError
from tests.toolchains import (
    bitcode_object,
    fat_macho,
    has_zig,
    macho_dylib,
    macho_object,
    pe_dll,
    require_zig,
    zig_cc,
)

P = "executorch_"
POLICY = Policy(P, patterns=("aoti_torch_*",), shims=("aoti_torch_a", "aoti_torch_h"),
                required=("aoti_torch_a", "aoti_torch_h"))

needs_zig = pytest.mark.skipif(not has_zig(), reason="zig missing: python -m pip install ziglang")


def codes(paths, strict=False):
    return sorted((f.code, f.symbol) for f in check_paths(paths, POLICY, strict=strict).findings)


@pytest.fixture(scope="module")
def pe(tmp_path_factory):
    require_zig()
    d = tmp_path_factory.mktemp("pe")
    (d / "dep.c").write_text("__declspec(dllexport) int aoti_torch_c(void){return 3;}\n")
    (d / "s.c").write_text(
        f"__declspec(dllexport) int {P}aoti_torch_a(void){{return 1;}}\n"
        "__declspec(dllexport) int aoti_torch_b(void){return 2;}\n"
        f"int {P}aoti_torch_h(void){{return 4;}}\n"  # no dllexport: not exported
        "int aoti_torch_c(void);\nint use(void){return aoti_torch_c();}\n")
    pe_dll(d / "dep.c", d / "dep.dll", f"-Wl,--out-implib,{d / 'libdep.a'}")
    pe_dll(d / "s.c", d / "s.dll", f"-L{d}", "-ldep")  # imports aoti_torch_c from dep.dll
    return d


@needs_zig
def test_pe_dll_exports_and_imports(pe):
    (binary,) = load_paths([pe / "s.dll"])
    assert binary.format == "PE" and binary.kind == "shared"
    assert binary.exports == {P + "aoti_torch_a", "aoti_torch_b"}
    assert "aoti_torch_c" in binary.imports
    assert codes([pe / "s.dll"]) == [("SG001", "aoti_torch_b"), ("SG002", P + "aoti_torch_h"),
                                     ("SG004", "aoti_torch_c")]


@needs_zig
def test_pe_truncated_is_bad_input(pe, tmp_path):
    data = (pe / "s.dll").read_bytes()
    # Past the headers, half way, and short of the last section by a few bytes.
    for cut in (1024, len(data) // 2, len(data) - 16):
        bad = tmp_path / f"cut{cut}.dll"
        bad.write_bytes(data[:cut])
        with pytest.raises(InputError):
            load_paths([bad])


@pytest.fixture(scope="module")
def macho(tmp_path_factory):
    require_zig()
    d = tmp_path_factory.mktemp("macho")
    vis = '__attribute__((visibility("{}")))'
    (d / "m.c").write_text(
        f"{vis.format('default')} int {P}aoti_torch_a(void){{return 1;}}\n"
        f"{vis.format('default')} int aoti_torch_b(void){{return 2;}}\n"
        f"{vis.format('hidden')} int {P}aoti_torch_h(void){{return 3;}}\n"
        f"int aoti_torch_c(void);\n{vis.format('default')} int use(void){{return aoti_torch_c() + {P}aoti_torch_h();}}\n")
    macho_dylib(d / "m.c", d / "m.dylib", "x86_64")
    macho_dylib(d / "m.c", d / "arm.dylib", "arm64")
    fat_macho([macho_object(d / "m.c", d / "x86.o", "x86_64"), macho_object(d / "m.c", d / "arm.o", "arm64")],
              d / "fat.o")
    fat_macho([d / "m.dylib", d / "arm.dylib"], d / "fat.dylib")
    return d


@needs_zig
def test_macho_dylib_underscore_stripped_and_hidden_is_sg003(macho):
    (binary,) = load_paths([macho / "m.dylib"])
    assert binary.format == "Mach-O" and binary.kind == "shared"
    assert {P + "aoti_torch_a", "aoti_torch_b", "use"} <= binary.exports
    assert not any(n.startswith("_" + P) for n in binary.exports)
    assert codes([macho / "m.dylib"]) == [("SG001", "aoti_torch_b"), ("SG003", P + "aoti_torch_h"),
                                          ("SG004", "aoti_torch_c")]
    assert ("SG006", "use") in codes([macho / "m.dylib"], strict=True)


@needs_zig
def test_macho_fat_object_gives_one_result_per_slice(macho):
    slices = load_paths([macho / "fat.o"])
    assert sorted(b.member for b in slices) == ["arm64", "x86_64"]
    for binary in slices:
        assert binary.kind == "object" and "aoti_torch_b" in binary.exports and "aoti_torch_c" in binary.imports
        assert P + "aoti_torch_h" not in binary.exports  # hidden visibility = private extern


@needs_zig
def test_macho_truncated_is_bad_input(macho, tmp_path):
    data = (macho / "m.dylib").read_bytes()
    for cut in (16, 4096, len(data) // 2):
        bad = tmp_path / f"cut{cut}.dylib"
        bad.write_bytes(data[:cut])
        with pytest.raises(InputError):
            load_paths([bad])


@needs_zig
def test_macho_fat_dylib_slices_are_not_duplicate_providers(macho):
    report = check_paths([macho / "fat.dylib"], POLICY)
    assert sorted(s.member for s in report.files) == ["arm64", "x86_64"]
    found = sorted((f.code, f.symbol, f.member) for f in report.findings)
    assert ("SG007", P + "aoti_torch_a", "arm64") not in found
    assert {c for c, _, _ in found} == {"SG001", "SG003", "SG004"}
    assert len(found) == 6  # each finding once per slice


@needs_zig
def test_llvm_bitcode_object_is_bad_input(tmp_path):
    (tmp_path / "l.c").write_text("int lto_only(void){return 1;}\n")
    bitcode_object(tmp_path / "l.c", tmp_path / "l.o")
    with pytest.raises(InputError, match="bitcode"):
        load_paths([tmp_path / "l.o"])


@needs_zig
@pytest.mark.parametrize("target", ["x86-linux-gnu", "powerpc-linux-gnu", "aarch64_be-linux-gnu", "x86_64-linux-gnu"])
def test_fast_elf_reader_equals_lief_on_32_bit_and_big_endian_elf(tmp_path, target):
    """The fast reader's 32-bit layout and its foreign-byte-order path, cross-checked with LIEF."""
    from shimgen.binary.elf import read_elf
    from shimgen.binary.lief_reader import read_elf_lief

    source = tmp_path / "e.c"
    source.write_text(
        f'__attribute__((visibility("default"))) int {P}aoti_torch_a(void){{return 1;}}\n'
        f'__attribute__((visibility("default"))) __thread int {P}tls;\n'
        f"int {P}aoti_torch_h(void){{return 2;}}\nint aoti_torch_c(void);\n"
        f'__attribute__((visibility("default"))) int use(void){{return aoti_torch_c() + {P}aoti_torch_h();}}\n')
    library, obj = tmp_path / "e.so", tmp_path / "e.o"
    zig_cc(target, "-fPIC", "-fvisibility=hidden", "-shared", "-nostdlib", source, "-o", library)
    zig_cc(target, "-fPIC", "-fvisibility=hidden", "-c", source, "-o", obj)
    interest = frozenset({P + "aoti_torch_a", P + "aoti_torch_h"})
    for path in (library, obj):
        data = path.read_bytes()
        fast, slow = read_elf(data, str(path), hidden_of=interest), read_elf_lief(data, str(path), hidden_of=interest)
        assert {P + "aoti_torch_a", P + "tls", "use"} <= fast.exports
        assert "aoti_torch_c" in fast.imports and fast.tls == {P + "tls"}
        for field in ("kind", "exports", "imports", "tls", "hidden"):
            assert getattr(fast, field) == getattr(slow, field), (path.name, field)
    assert read_elf(library.read_bytes(), "e.so", hidden_of=interest).hidden == (P + "aoti_torch_h",)
