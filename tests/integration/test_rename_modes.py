"""rename = define | pragma | auto, compiled for real: gcc and clang (zig cc) rename the same
symbols either way; the pragma leaves a struct member of the same spelling alone; the assembly
header renames a .S for ELF (gcc) and Mach-O (zig cc -target x86_64-macos)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shimgen.binary.load import load_paths
from shimgen.generate.render import generate
from shimgen.project.config import load_config
from tests.support import require_tool

CONFIG = """\
prefix = "zz_"
library = "demo"
symbols = ["compress", "counter"]
rename = "{mode}"
[outputs]
asm_header = "prefix_asm.h"
"""

SOURCE = textwrap.dedent(
    """\
    #include "export.h"
    #include "export.h"   /* twice: must not double-prefix or drop the rename */
    #ifdef __cplusplus
    extern "C" {
    #endif
    int compress(int x);
    extern int counter;
    #ifdef __cplusplus
    }
    #endif
    int counter = 3;
    int compress(int x) { return x + counter; }
    int use(void) { return compress(2); }
    const char* final_name(void) { return SHIMGEN_PREFIXED_STRING(compress); }
    const char* mode(void) { return SHIMGEN_DEMO_RENAME_MODE; }
    """
)

# The libssh2 case: a struct member spelled like a renamed function.
MEMBER = textwrap.dedent(
    """\
    #include "export.h"
    struct flags_t { int compress; } flags;
    int compress(int x);
    int set(void) { flags.compress = 1; return compress(flags.compress); }
    """
)


def zig(*args: str) -> list[str]:
    pytest.importorskip("ziglang")
    return [sys.executable, "-m", "ziglang", *args]


COMPILERS = {
    "gcc": lambda: [require_tool("gcc")],
    "g++": lambda: [require_tool("g++"), "-x", "c++"],
    "clang": lambda: zig("cc", "-fno-sanitize=undefined"),
    "clang++": lambda: zig("c++", "-fno-sanitize=undefined", "-x", "c++"),
}


def generated(tmp_path_factory, mode: str) -> Path:
    root = tmp_path_factory.mktemp(f"mode-{mode}")
    (root / "shimgen.toml").write_text(CONFIG.format(mode=mode))
    generate(load_config(root / "shimgen.toml"))
    return root / "generated"


@pytest.fixture(scope="module")
def headers(tmp_path_factory) -> dict[str, Path]:
    return {mode: generated(tmp_path_factory, mode) for mode in ("define", "pragma", "auto")}


def symbols(obj: Path) -> tuple[set[str], set[str]]:
    (binary,) = load_paths([obj])
    return set(binary.exports), set(binary.imports)


def compile_object(compiler: list[str], include: Path, source: Path, out: Path, *extra: str) -> Path:
    subprocess.run([*compiler, "-Wall", "-Werror", "-c", "-DAOTI_SHIM_SYMBOL_PREFIX=zz_", *extra, f"-I{include}",
                    str(source), "-o", str(out)], check=True, capture_output=True)
    return out


@pytest.mark.parametrize("compiler", sorted(COMPILERS))
def test_pragma_and_auto_rename_the_same_as_define(headers, tmp_path, compiler):
    command = COMPILERS[compiler]()
    source = tmp_path / "lib.c"
    source.write_text(SOURCE)
    seen = {mode: symbols(compile_object(command, headers[mode], source, tmp_path / f"{mode}.o"))
            for mode in headers}
    exports, _ = seen["define"]
    assert {"zz_compress", "zz_counter"} <= exports and not {"compress", "counter"} & exports
    assert not any(name.startswith("zz_zz_") for name in exports)
    assert seen["pragma"] == seen["define"] and seen["auto"] == seen["define"]


def test_generated_header_names_its_mode(headers, tmp_path):
    require_tool("gcc")
    program = tmp_path / "main.c"
    program.write_text(SOURCE + '#include <stdio.h>\nint main(void) { printf("%s %s\\n", mode(), final_name()); '
                       "return 0; }\n")
    out = {}
    for name, include in headers.items():
        exe = tmp_path / name
        subprocess.run(["gcc", "-Wall", "-Werror", "-DAOTI_SHIM_SYMBOL_PREFIX=zz_", f"-I{include}", str(program),
                        "-o", str(exe)], check=True)
        out[name] = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    assert out == {"define": ["define", "zz_compress"], "pragma": ["pragma", "zz_compress"],
                   "auto": ["pragma", "zz_compress"]}
    assert '#pragma redefine_extname' not in (headers["define"] / "export.h").read_text()


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_pragma_leaves_a_struct_member_alone(headers, tmp_path, compiler):
    """define mode compiles too (it renames the member consistently in one TU), but the member
    spelling differs between TUs that do and do not include export.h; pragma never touches it."""
    command = COMPILERS[compiler]()
    source = tmp_path / "member.c"
    source.write_text(MEMBER)
    preprocessed = subprocess.run([*command, "-E", "-DAOTI_SHIM_SYMBOL_PREFIX=zz_", f"-I{headers['pragma']}",
                                   str(source)], capture_output=True, text=True, check=True).stdout
    assert "flags.compress" in preprocessed
    _, imports = symbols(compile_object(command, headers["pragma"], source, tmp_path / "m.o"))
    assert "zz_compress" in imports and "compress" not in imports
    defined = subprocess.run([*command, "-E", "-DAOTI_SHIM_SYMBOL_PREFIX=zz_", f"-I{headers['define']}",
                              str(source)], capture_output=True, text=True, check=True).stdout
    assert "flags.zz_compress" in defined, "control: the #define rename rewrites the member"


ASM = textwrap.dedent(
    """\
    #include "prefix_asm.h"
    #if defined(__APPLE__)
    #  define SYM(x) _##x
    #else
    #  define SYM(x) x
    #endif
        .text
        .globl SYM(compress)
    SYM(compress):
        ret
        .globl SYM(use)
    SYM(use):
        call SYM(compress)
        ret
    """
)


@pytest.mark.parametrize("target", ["elf", "macho"])
def test_assembly_header_renames_definition_and_call(headers, tmp_path, target):
    source = tmp_path / "a.S"
    source.write_text(ASM)
    command = [require_tool("gcc")] if target == "elf" else zig("cc", "-target", "x86_64-macos")
    obj = tmp_path / "a.o"
    subprocess.run([*command, "-c", "-DAOTI_SHIM_SYMBOL_PREFIX=zz_", f"-I{headers['define']}", str(source),
                    "-o", str(obj)], check=True, capture_output=True)
    (binary,) = load_paths([obj], detail=True)
    assert binary.format == ("ELF" if target == "elf" else "Mach-O")
    defined = {s.name for s in binary.symbols if s.defined}
    assert {"zz_compress", "use"} <= defined and "compress" not in defined
    assert "compress" not in binary.imports


# The BoringSSL shapes (issue 23, item 4), in C++: an extern "C" function, an extern "C" inline
# function (stack.h's sk_*_call_*), an extern "C" variable, and C++-linkage globals whose names are
# not mangled (err_data.cc's kOpenSSLReasonValues, the ASN1_ITEM *_it tables).
CXX_LIBRARY = textwrap.dedent(
    """\
    extern "C" int lib_func(int x);
    extern "C" { inline int lib_inline(int x) { return x + 1; } }
    extern "C" int lib_counter;
    extern const int lib_table[2];
    int lib_counter = 1;
    const int lib_table[2] = {1, 2};
    int lib_func(int x) { int (*volatile p)(int) = lib_inline; return p(x) + lib_counter + lib_table[1]; }
    """
)
CXX_NAMES = {"lib_func", "lib_inline", "lib_counter", "lib_table"}


@pytest.mark.parametrize("compiler", ["g++", "clang++"])
def test_auto_renames_what_the_pragma_misses_in_cxx(tmp_path, compiler):
    """rename = "auto" picks per name: the pragma for functions, #define in C++ for data and weak
    (inline) definitions, which the pragma leaves alone (the negative control: "pragma")."""
    command = COMPILERS[compiler]()
    source = tmp_path / "lib.cc"
    source.write_text(CXX_LIBRARY)
    plain = compile_object(command, tmp_path, source, tmp_path / "plain.o", "-UAOTI_SHIM_SYMBOL_PREFIX", "-O0")
    results = {}
    for mode in ("pragma", "auto"):
        root = tmp_path / mode
        root.mkdir()
        (root / "shimgen.toml").write_text(f'prefix = "zz_"\nmacro = "AOTI_SHIM_SYMBOL_PREFIX"\nlibrary = "demo"\n'
                                           f'symbols_from = ["plain.o"]\nrename = "{mode}"\n')
        (root / "plain.o").write_bytes(plain.read_bytes())
        generate(load_config(root / "shimgen.toml"))
        out = compile_object(command, root, source, root / "lib.o", "-include", str(root / "generated" / "export.h"),
                             "-O0", "-Wno-pragmas")
        (binary,) = load_paths([out])
        results[mode] = {n for n in binary.exports | binary.imports if n.lstrip("z_") in CXX_NAMES or n in CXX_NAMES}
    assert results["auto"] == {f"zz_{n}" for n in CXX_NAMES}
    # The pragma alone misses the C++-linkage table on both compilers (clang keeps it plain and
    # warns; g++ 12 even turns it into a local, mangled _ZL9lib_table).
    assert "zz_lib_table" not in results["pragma"] and {"zz_lib_func", "zz_lib_counter"} <= results["pragma"]
