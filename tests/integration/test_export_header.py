"""The generated export.h compiled for real: renames, idempotence, C and C++, the CMake fragment."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from shimgen.generate.render import generate
from shimgen.project.config import load_config
from tests.support import require_tool

CONFIG = 'prefix = "executorch_"\nsymbols = ["aoti_torch_empty_strided", "aoti_torch_get_numel"]\n'

SHIM_SOURCE = textwrap.dedent(
    """\
    #include "export.h"
    #include "export.h"   /* twice: must not double-prefix */
    #include <stdint.h>
    #ifdef __cplusplus
    extern "C" {
    #endif
    AOTI_SHIM_EXPORT int32_t aoti_torch_get_numel(void* t, int64_t* out);
    AOTI_SHIM_EXPORT int32_t aoti_torch_empty_strided(int64_t n);
    #ifdef __cplusplus
    }
    #endif
    int32_t aoti_torch_get_numel(void* t, int64_t* out) { (void)t; *out = 7; return 0; }
    int32_t aoti_torch_empty_strided(int64_t n) { return (int32_t)n; }
    const char* final_name(void) { return SHIMGEN_PREFIXED_STRING(aoti_torch_get_numel); }
    """
)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hdr")
    (root / "shimgen.toml").write_text(CONFIG)
    generate(load_config(root / "shimgen.toml"))
    return root / "generated"


def defined_symbols(binary: Path) -> set[str]:
    out = subprocess.run(["nm", "--defined-only", str(binary)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in out.stdout.splitlines() if line.strip()}


@pytest.mark.parametrize("compiler,suffix", [("gcc", "c"), ("g++", "cpp")])
@pytest.mark.parametrize("prefixed", [True, False], ids=["with-prefix", "without-prefix"])
def test_header_renames_only_with_the_definition(generated, tmp_path, compiler, suffix, prefixed):
    require_tool(compiler)
    source = tmp_path / f"shim.{suffix}"
    source.write_text(SHIM_SOURCE)
    library = tmp_path / "libshim.so"
    flags = ["-DAOTI_SHIM_SYMBOL_PREFIX=executorch_"] if prefixed else []
    subprocess.run([compiler, "-Wall", "-Werror", "-shared", "-fPIC", "-fvisibility=hidden", *flags,
                    f"-I{generated}", str(source), "-o", str(library)], check=True)
    symbols = defined_symbols(library)
    if prefixed:
        assert {"executorch_aoti_torch_get_numel", "executorch_aoti_torch_empty_strided"} <= symbols
        assert "aoti_torch_get_numel" not in symbols
        assert not any(s.startswith("executorch_executorch_") for s in symbols)
    else:
        assert {"aoti_torch_get_numel", "aoti_torch_empty_strided"} <= symbols
        assert not any(s.startswith("executorch_") for s in symbols)


def test_prefixed_string_and_names_already_renamed(generated, tmp_path):
    """A name already renamed by another header keeps that rename; the string helper is exact."""
    require_tool("gcc")
    program = tmp_path / "main.c"
    program.write_text(textwrap.dedent(
        """\
        #define aoti_torch_empty_strided executorch_aoti_torch_empty_strided  /* renamed earlier */
        #include "export.h"
        #include <stdio.h>
        #include <string.h>
        #define STR_(x) #x
        #define STR(x) STR_(x)
        int main(void) {
          printf("%s %s %s\\n", SHIMGEN_PREFIXED_STRING(aoti_torch_get_numel),
                 STR(aoti_torch_empty_strided), STR(SHIMGEN_PREFIXED_NAME(aoti_torch_get_numel)));
          return 0;
        }
        """))
    exe = tmp_path / "main"
    subprocess.run(["gcc", "-Wall", "-Werror", "-DAOTI_SHIM_SYMBOL_PREFIX=executorch_",
                    "-DAOTI_SHIM_SYMBOL_PREFIX=executorch_", f"-I{generated}", str(program), "-o", str(exe)],
                   check=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["executorch_aoti_torch_get_numel", "executorch_aoti_torch_empty_strided",
                   "executorch_aoti_torch_get_numel"]


def test_keep_file_pulls_an_unreferenced_shim_out_of_an_archive(generated, tmp_path):
    """keep.c retains every required shim without whole-archive."""
    require_tool("gcc")
    flags = ["-fPIC", "-DAOTI_SHIM_SYMBOL_PREFIX=executorch_", f"-I{generated}"]
    (tmp_path / "a.c").write_text(SHIM_SOURCE)
    subprocess.run(["gcc", "-c", *flags, str(tmp_path / "a.c"), "-o", str(tmp_path / "a.o")], check=True)
    subprocess.run(["ar", "rcs", str(tmp_path / "libshims.a"), str(tmp_path / "a.o")], check=True)
    (tmp_path / "empty.c").write_text("int unrelated(void) { return 0; }\n")
    script = ["-Wl,--version-script=" + str(generated / "shimgen.map")]
    without = tmp_path / "without.so"
    subprocess.run(["gcc", "-shared", *flags, str(tmp_path / "empty.c"), str(tmp_path / "libshims.a"),
                    "-o", str(without)], check=True)
    assert "executorch_aoti_torch_get_numel" not in defined_symbols(without), "control: the archive is dropped"
    kept = tmp_path / "kept.so"
    subprocess.run(["gcc", "-shared", *flags, *script, str(generated / "shimgen_keep.c"),
                    str(tmp_path / "libshims.a"), "-o", str(kept)], check=True)
    dynamic = subprocess.run(["nm", "-D", "--defined-only", str(kept)], capture_output=True, text=True).stdout
    assert "executorch_aoti_torch_get_numel" in dynamic and "executorch_aoti_torch_empty_strided" in dynamic
    assert "unrelated" not in dynamic, "the version script exports only the prefixed shims"


def test_cmake_fragment_in_a_tiny_project(generated, tmp_path):
    """The generated fragment's INTERFACE target carries the definition PUBLIC to consumers."""
    cmake = require_tool("cmake")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "shim.c").write_text(SHIM_SOURCE)
    (project / "consumer.c").write_text(textwrap.dedent(
        """\
        #include "export.h"
        #include <stdint.h>
        int32_t aoti_torch_get_numel(void* t, int64_t* out);
        int64_t use(void) { int64_t n = 0; aoti_torch_get_numel(0, &n); return n; }
        """))
    (project / "CMakeLists.txt").write_text(textwrap.dedent(
        f"""\
        cmake_minimum_required(VERSION 3.20)
        project(tiny C)
        include("{generated / 'shimgen.cmake'}")
        add_library(shims SHARED shim.c)
        shimgen_apply_prefix(shims)
        target_link_options(shims PRIVATE "LINKER:--version-script=${{SHIMGEN_VERSION_SCRIPT}}")
        add_library(consumer SHARED consumer.c)
        target_link_libraries(consumer PRIVATE shims)   # gets the definition through PUBLIC
        if(NOT SHIMGEN_PREFIX STREQUAL "executorch_" OR NOT TARGET shimgen::prefix)
          message(FATAL_ERROR "fragment variables missing")
        endif()
        """))
    build = tmp_path / "build"
    subprocess.run([cmake, "-S", str(project), "-B", str(build)], check=True, capture_output=True)
    subprocess.run([cmake, "--build", str(build)], check=True, capture_output=True)
    undefined = subprocess.run(["nm", "-D", "--undefined-only", str(build / "libconsumer.so")],
                               capture_output=True, text=True).stdout
    assert "executorch_aoti_torch_get_numel" in undefined
    assert " aoti_torch_get_numel" not in undefined
    exported = subprocess.run(["nm", "-D", "--defined-only", str(build / "libshims.so")],
                              capture_output=True, text=True).stdout
    assert "executorch_aoti_torch_get_numel" in exported and "final_name" not in exported
