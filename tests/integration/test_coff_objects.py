"""COFF objects (.obj) and COFF static archives (.lib): read for symbols_from and check-symbols.

Every object here is compiled by `zig cc` (clang) for a Windows target, and every .lib is written
by zig's llvm-lib / llvm-ar, the tools MSVC-compatible builds use; the names read are compared
with an independent reader, llvm-nm (or binutils nm), where one is installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from shimgen.binary.load import load_paths
from shimgen.errors import InputError
from shimgen.project.objects import read_symbols_from
from tests.integration.test_vendor_zstd import sdist  # noqa: F401  (the zstandard sdist, fetched once)
from tests.toolchains import coff_object, has_zig, require_zig, zig_tool

pytestmark = pytest.mark.skipif(not has_zig(), reason="zig missing: python -m pip install ziglang")

SOURCE = textwrap.dedent(
    """\
    int counter = 3;
    const int table[4] = {1, 2, 3, 4};
    extern int external_ref(int);
    static int local_helper(int x) { return x + 1; }
    int add_one(int x) { return local_helper(x) + external_ref(x); }
    __attribute__((weak)) int weak_fn(void) { return 1; }
    __declspec(selectany) int picked = 7;
    int zeroed;
    """
)
DEFINED = {"counter", "table", "add_one", "weak_fn", "picked", "zeroed"}
WEAK = {"weak_fn", "picked"}  # a weak external with a default here, and a selectany COMDAT

I386_SOURCE = textwrap.dedent(
    """\
    int __stdcall std_fn(int a, int b) { return a + b; }
    int __fastcall fast_fn(int a, int b) { return a - b; }
    int __vectorcall vector_fn(int a, int b) { return a * b; }
    int plain_fn(int a) { return a; }
    int plain_data = 1;
    """
)
TARGETS = ("x86_64-windows-msvc", "x86_64-windows-gnu", "x86-windows-msvc", "aarch64-windows-msvc")


@pytest.fixture(scope="module")
def objs(tmp_path_factory) -> Path:
    require_zig()
    d = tmp_path_factory.mktemp("coff")
    (d / "a.c").write_text(SOURCE)
    (d / "b.c").write_text("int b_func(void) { return 2; }\nint b_data = 5;\n")
    (d / "i386.c").write_text(I386_SOURCE)
    (d / "common.c").write_text("int tentative;\nint uses_it(void) { return tentative; }\n")
    for target in TARGETS:
        coff_object(target, d / "a.c", d / f"a-{target}.obj")
    coff_object("x86_64-windows-msvc", d / "b.c", d / "b.obj")
    coff_object("x86-windows-msvc", d / "i386.c", d / "i386.obj")
    coff_object("x86_64-windows-msvc", d / "common.c", d / "common.obj", "-fcommon")
    # LLVM writes a bigobj header (ANON_OBJECT_HEADER_BIGOBJ) only past 65,279 sections.
    (d / "big.s").write_text(".globl big_fn\n.text\nbig_fn:\n ret\n"
                             + "".join(f'.section .text$s{i},"xr"\n ret\n' for i in range(65_300)))
    coff_object("x86_64-windows-msvc", d / "big.s", d / "big.obj")
    zig_tool("lib", "/OUT:both.lib", "a-x86_64-windows-msvc.obj", "b.obj", cwd=d)
    zig_tool("ar", "rcs", "both-ar.lib", "a-x86_64-windows-msvc.obj", "b.obj", cwd=d)
    return d


def oracle(path: Path, tool: str = "llvm-nm") -> set[str] | None:
    """Defined external names as an independent reader lists them (None when it is not installed):
    llvm-nm, or binutils nm, which reads x86 and x64 COFF but lists every weak external as 'w'
    (undefined), whatever its default."""
    found = shutil.which(tool)
    if found is None:
        return None
    out = subprocess.run([found, "-g", "--defined-only", str(path)], capture_output=True, text=True,
                         check=True).stdout
    names = {line.split()[-1] for line in out.splitlines() if line.strip()}
    # '.weak.<name>.default.<other>' is the default clang gives a weak external: part of <name>.
    return {name for name in names if not name.startswith(".weak.")}


@pytest.mark.parametrize("target", TARGETS)
def test_defined_externals_join_and_references_do_not(objs: Path, target: str) -> None:
    obj = objs / f"a-{target}.obj"
    (binary,) = load_paths([obj], detail=True)
    assert binary.format == "COFF" and binary.kind == "object"
    assert set(binary.exports) == DEFINED
    assert "external_ref" in binary.imports and "local_helper" not in binary.exports
    found = read_symbols_from(objs, objs / "shimgen.toml", [obj.name], prefix="zz_")
    assert set(found.names) == DEFINED
    assert {s.name for s in found.weak} == WEAK
    assert not found.skipped  # '.weak.weak_fn.default.add_one' is weak_fn's body, not a name to report
    # i386 decorates cdecl C names with '_': shimgen reports the C spelling.
    names = oracle(obj)
    if names is not None:
        assert {n[1:] if target.startswith("x86-") else n for n in names} == DEFINED
    names = oracle(obj, "nm") if target.startswith("x86") else None
    if names is not None:
        assert {n[1:] if target.startswith("x86-") else n for n in names} == DEFINED - {"weak_fn"}


def test_i386_decorations_come_off(objs: Path) -> None:
    """cdecl _f, stdcall _f@8, fastcall @f@8 and vectorcall f@@8 are all the C name f."""
    (binary,) = load_paths([objs / "i386.obj"])
    assert set(binary.exports) == {"std_fn", "fast_fn", "vector_fn", "plain_fn", "plain_data"}
    names = oracle(objs / "i386.obj")
    if names is not None:
        assert names == {"_std_fn@8", "@fast_fn@8", "vector_fn@@8", "_plain_fn", "_plain_data"}


def test_common_symbol_is_a_definition(objs: Path) -> None:
    (binary,) = load_paths([objs / "common.obj"], detail=True)
    assert set(binary.exports) == {"tentative", "uses_it"}
    assert {s.name: s.type for s in binary.symbols}["tentative"] == "object"
    names = oracle(objs / "common.obj")
    if names is not None:
        assert names == {"tentative", "uses_it"}


def test_long_name_stored_as_the_tail_of_another_is_read(objs: Path, tmp_path: Path) -> None:
    """clang names weak_fn's default '.weak.weak_fn.default.<first external>', and LLVM stores the
    first external's long name as that string's tail: LIEF 1.0.0 reads it as ''."""
    (tmp_path / "t.c").write_text("int a_rather_long_function_name(void) { return 1; }\n"
                                  "__attribute__((weak)) int weak_fn(void) { return 2; }\n")
    obj = coff_object("x86_64-windows-msvc", tmp_path / "t.c", tmp_path / "t.obj")
    data = obj.read_bytes()
    strings = int.from_bytes(data[8:12], "little") + 18 * int.from_bytes(data[12:16], "little")
    assert data[strings:].count(b"a_rather_long_function_name\0") == 1  # really tail-merged
    (binary,) = load_paths([obj])
    assert set(binary.exports) == {"a_rather_long_function_name", "weak_fn"}
    names = oracle(obj)
    if names is not None:
        assert names == set(binary.exports)


def test_weak_reference_is_an_import(tmp_path: Path) -> None:
    """A weak *reference* is a weak external whose default is an absolute 0 (LLVM): not defined
    here, so never renamed; its default is not reported either."""
    (tmp_path / "w.c").write_text("extern int maybe(void) __attribute__((weak));\n"
                                  "int call(void) { return maybe ? maybe() : 0; }\n")
    obj = coff_object("x86_64-windows-msvc", tmp_path / "w.c", tmp_path / "w.obj")
    (binary,) = load_paths([obj])
    assert "maybe" in binary.imports and "maybe" not in binary.exports
    found = read_symbols_from(tmp_path, tmp_path / "shimgen.toml", ["w.obj"], prefix="zz_")
    assert found.names == ("call",)
    # The pointer stub clang adds for the reference is defined but no C name: skipped, and said so.
    assert [(s.symbol.name, s.reason) for s in found.skipped] == [(".refptr.maybe", "not a C identifier")]


def test_weak_alias_keeps_its_target(tmp_path: Path) -> None:
    """A weak alias names a real function as its default: both are definitions."""
    (tmp_path / "al.c").write_text("int real_b(void) { return 1; }\n"
                                   "int alias_a(void) __attribute__((weak, alias(\"real_b\")));\n")
    obj = coff_object("x86_64-windows-gnu", tmp_path / "al.c", tmp_path / "al.obj")
    found = read_symbols_from(tmp_path, tmp_path / "shimgen.toml", ["al.obj"], prefix="zz_")
    assert found.names == ("alias_a", "real_b") and [s.name for s in found.weak] == ["alias_a"]
    names = oracle(obj)
    if names is not None:
        assert names == {"alias_a", "real_b"}


def test_bigobj_is_read(objs: Path) -> None:
    assert (objs / "big.obj").read_bytes()[:4] == b"\0\0\xff\xff"  # really the bigobj header
    (binary,) = load_paths([objs / "big.obj"])
    assert set(binary.exports) == {"big_fn"}


@pytest.mark.parametrize("archive", ["both.lib", "both-ar.lib"])
def test_lib_archive_members_are_read_and_recorded(objs: Path, archive: str) -> None:
    """llvm-lib and llvm-ar both write Microsoft's second linker member ('/', little-endian)."""
    found = read_symbols_from(objs, objs / "shimgen.toml", [archive], prefix="zz_", exclude=["b_data"])
    by_name = {s.name: s for s in found.renamed}
    assert set(by_name) == DEFINED | {"b_func"} and found.excluded == ("b_data",)
    assert by_name["b_func"].member == "b.obj" and by_name["add_one"].member == "a-x86_64-windows-msvc.obj"
    assert by_name["add_one"].file == archive


def test_symbols_from_obj_glob_feeds_rename_set_and_manifest(objs: Path, run_cli) -> None:
    project = objs / "project"
    shutil.rmtree(project, ignore_errors=True)
    (project / "build").mkdir(parents=True)
    for name in ("a-x86_64-windows-msvc.obj", "b.obj"):
        shutil.copy(objs / name, project / "build" / name)
    config = project / "shimgen.toml"
    config.write_text('prefix = "zz_"\npatterns = []\nsymbols_from = ["build/*.obj"]\n')
    result = run_cli("generate", "-c", config)
    assert result.code == 0, result.err
    assert "2 weak definitions renamed" in result.err and "weak_fn" in result.err
    manifest = json.loads((project / "generated" / "manifest.json").read_text())
    by_name = {s["name"]: s for s in manifest["shims"]}
    assert set(by_name) == DEFINED | {"b_func", "b_data"}
    assert by_name["b_func"]["defined_in"] == {"file": "build/b.obj", "member": None}
    assert by_name["picked"]["binding"] == "weak"
    header = "".join(p.read_text() for p in (project / "generated").rglob("*.h"))
    assert "add_one" in header and "b_data" in header and "external_ref" not in header


def test_check_symbols_reads_an_obj(objs: Path, run_cli) -> None:
    """check-symbols' format detection: an object's exports are its defined externals."""
    check = run_cli("check-symbols", "--prefix", "zz_", "--pattern", "add_*", "--format", "json",
                    objs / "a-x86_64-windows-msvc.obj")
    assert check.code == 1, check.err
    report = json.loads(check.out)
    assert check.code == 1 and report["files"][0]["format"] == "COFF"
    assert any(f["code"] == "SG001" and f["symbol"] == "add_one" for f in report["findings"])


def test_truncated_or_corrupt_obj_is_bad_input(objs: Path, tmp_path: Path, run_cli) -> None:
    data = (objs / "a-x86_64-windows-msvc.obj").read_bytes()
    symtab = int.from_bytes(data[8:12], "little")
    cases = {f"cut{cut}": data[:cut] for cut in (24, 200, len(data) // 2, len(data) - 8)}
    cases["symbols_past_end"] = data[:12] + (0x7FFFFFFF).to_bytes(4, "little") + data[16:]
    cases["aux_past_end"] = data[:symtab + 17] + b"\xff" + data[symtab + 18:]
    for name, content in cases.items():
        bad = tmp_path / f"{name}.obj"
        bad.write_bytes(content)
        with pytest.raises(InputError):
            load_paths([bad])
        result = run_cli("check-symbols", "--prefix", "zz_", bad)
        assert result.code == 2, (name, result.out, result.err)
        assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err, name


def test_import_library_defines_nothing_to_rename(tmp_path: Path) -> None:
    """An import library (the .lib of a DLL, from llvm-lib /DEF) holds short import records, which
    define nothing, and descriptor objects whose names are reserved: no name joins the set."""
    (tmp_path / "x.def").write_text("LIBRARY x.dll\nEXPORTS\n  x_fn\n  x_data DATA\n")
    zig_tool("lib", "/def:x.def", "/machine:x64", "/out:x.lib", cwd=tmp_path)
    binaries = load_paths([tmp_path / "x.lib"])
    assert not any({"x_fn", "x_data", "__imp_x_fn"} & set(b.exports) for b in binaries)
    found = read_symbols_from(tmp_path, tmp_path / "shimgen.toml", ["x.lib"], prefix="zz_")
    assert found.names == ()
    assert "__IMPORT_DESCRIPTOR_x" in {s.symbol.name for s in found.skipped}


@pytest.mark.slow
@pytest.mark.parametrize("target", ["x86_64-windows-gnu", "x86-windows-gnu"])
def test_zstd_from_its_sdist_compiled_to_coff_matches_nm(sdist: Path, tmp_path: Path, target: str) -> None:  # noqa: F811
    """A C library nobody here wrote: zstd's single-file source from the zstandard sdist, compiled
    to one COFF object (MinGW headers: zig ships no Windows SDK for the msvc targets). Every
    defined external llvm-nm and binutils nm list is read, and nothing else; i386 names arrive
    without their '_'."""
    obj = coff_object(target, sdist / "zstd" / "zstd.c", tmp_path / "zstd.obj", "-O0")
    (binary,) = load_paths([obj])
    assert "ZSTD_compress" in binary.exports and "memcpy" in binary.imports
    i386 = target.startswith("x86-")
    for tool in ("llvm-nm", "nm"):
        names = oracle(obj, tool)
        if names is not None:
            assert {n[1:] if i386 and n.startswith("_") else n for n in names} == set(binary.exports), tool
    (tmp_path / "lib").mkdir()
    zig_tool("ar", "rcs", "lib/zstd.lib", "zstd.obj", cwd=tmp_path)
    found = read_symbols_from(tmp_path, tmp_path / "shimgen.toml", ["lib/*.lib"], prefix="zz_")
    assert {s.name for s in found.renamed} | {s.symbol.name for s in found.skipped} == set(binary.exports)
    assert len(found.names) > 300 and all(s.member == "zstd.obj" for s in found.renamed)

