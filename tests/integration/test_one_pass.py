"""The one-pass build (symbols_from_targets + shimgen_prefix_library()) on a small library whose
sources are edited between runs: what each run recompiles and regenerates, and the errors.

The real-library proof is tests/integration/test_vendor_zstd.py; this file checks the build graph's
behaviour, where zstd's compile time would make each step slow. Every build is `shimgen build`; a
compiler launcher logs each compiler invocation.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e._native import REPO, c_compiler, python_env, run

LIBRARY = """\
#include "tiny.h"
int tiny_calls = 0;
int tiny_one(int x) { tiny_calls++; return x + 1; }
"""
HEADER = "int tiny_one(int x);\nextern int tiny_calls;\n"
USER = """\
#include "tiny.h"
int user_call(void) { return tiny_one(41) + tiny_calls; }
"""
CMAKE = """\
cmake_minimum_required(VERSION 3.21)
project(tiny C)
add_library(tiny SHARED tiny.c)
target_include_directories(tiny PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
add_library(user SHARED user.c)
target_link_libraries(user PRIVATE tiny)
find_package(shimgen CONFIG REQUIRED)
shimgen_prefix_library(tiny CONFIG "${SHIMGEN_CONFIG}")
"""
CONFIG = 'prefix = "tp_"\nmacro = "TINY_PREFIX"\nlibrary = "tiny"\nsymbols_from_targets = ["tiny"]\n'


class Project:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.src = root / "src"
        self.build_dir = root / "build"
        self.log = root / "compiles.log"
        self.src.mkdir(parents=True)
        for name, text in {"tiny.c": LIBRARY, "tiny.h": HEADER, "user.c": USER, "CMakeLists.txt": CMAKE,
                           "shimgen.toml": CONFIG}.items():
            (self.src / name).write_text(text)
        self.launcher = root / "count-cc"
        self.launcher.write_text(f'#!/bin/sh\necho "$*" >> "{self.log}"\nexec "$@"\n')
        self.launcher.chmod(0o755)

    def build(self, *, check: bool = True) -> subprocess.CompletedProcess:
        result = run([sys.executable, "-m", "shimgen", "build", "-c", self.src / "shimgen.toml", "-B", self.build_dir,
                      "--cuda", "off", "-j", "2", "-D", f"CMAKE_C_COMPILER_LAUNCHER={self.launcher}"],
                     env=python_env(), check=False)
        if check:
            assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        return result

    def compiles(self) -> list[str]:
        """Source file names compiled since the last call, marked 'unprefixed' or 'prefixed'."""
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        self.log.unlink(missing_ok=True)
        return sorted(f"{line.split()[-1].rsplit('/', 1)[-1]} "
                      f"{'unprefixed' if '_shimgen_unprefixed.dir' in line else 'prefixed'}" for line in lines)

    @property
    def generated(self) -> Path:
        return self.build_dir / "shimgen" / "tiny"

    def header_mtime(self) -> int:
        return (self.generated / "export.h").stat().st_mtime_ns

    def exports(self) -> set[str]:
        from shimgen.binary.load import load_paths

        return set().union(*(b.exports for b in load_paths([self.build_dir / "libtiny.so"])))


@pytest.fixture
def project(tmp_path: Path) -> Project:
    c_compiler()
    return Project(tmp_path)


@pytest.mark.parametrize("route", ["objects", "recompile"])
def test_edits_rebuild_what_they_must_and_nothing_more(project: Project, route: str) -> None:
    """The default route compiles the library once and links its objects renamed by objcopy;
    RECOMPILE compiles it a second time with the header force-included."""
    if route == "recompile":
        (project.src / "CMakeLists.txt").write_text(CMAKE.replace('"${SHIMGEN_CONFIG}")', '"${SHIMGEN_CONFIG}" RECOMPILE)'))
    again = ["tiny.c prefixed"] if route == "recompile" else []
    project.build()
    assert project.compiles() == sorted([*again, "tiny.c unprefixed", "user.c prefixed"])
    assert project.exports() == {"tp_tiny_one", "tp_tiny_calls"}
    names = {s["name"] for s in json.loads((project.generated / "manifest.json").read_text())["shims"]}
    assert names == {"tiny_one", "tiny_calls"}  # functions and data, read from the objects
    header = project.header_mtime()

    project.build()
    assert project.compiles() == []

    # A body edit: the library compiles again; the names are the same, so the header keeps its
    # bytes and mtime and user.c, which includes it, is not recompiled.
    (project.src / "tiny.c").write_text(LIBRARY.replace("x + 1", "x + 2"))
    project.build()
    assert project.compiles() == sorted([*again, "tiny.c unprefixed"])
    assert project.header_mtime() == header

    # A new function: the set grows, the header is regenerated, and everything including it rebuilds.
    (project.src / "tiny.c").write_text(LIBRARY + "int tiny_two(void) { return 2; }\n")
    result = project.build()
    assert project.compiles() == sorted([*again, "tiny.c unprefixed", "user.c prefixed"])
    assert project.header_mtime() != header
    assert project.exports() == {"tp_tiny_one", "tp_tiny_calls", "tp_tiny_two"}
    assert "3/3 prefixed shims exported" in result.stdout

    project.build()
    assert project.compiles() == []


def test_exclude_keeps_a_name_unprefixed(project: Project) -> None:
    from shimgen.binary.load import load_paths

    (project.src / "shimgen.toml").write_text(CONFIG + 'exclude = ["tiny_calls"]\n')
    project.build()
    (obj,) = (project.generated / "objects").glob("*tiny.c.o")  # the renamed copy the library links
    defined = {s.name for b in load_paths([obj], detail=True) for s in b.symbols if s.defined and s.binding == "global"}
    assert defined == {"tp_tiny_one", "tiny_calls"}
    manifest = json.loads((project.generated / "manifest.json").read_text())
    assert manifest["symbols_from"]["excluded"] == ["tiny_calls"]
    # The export list holds the prefixed names only, so the excluded one is not exported either.
    assert project.exports() == {"tp_tiny_one"}


def test_a_leak_is_a_finding_exit_1(project: Project) -> None:
    """Without the export list, an excluded (so unrenamed) global is exported plain: strict checking
    reports it as a foreign export, and shimgen build exits 1, as check-symbols would."""
    (project.src / "shimgen.toml").write_text(CONFIG + 'exclude = ["tiny_calls"]\n')
    (project.src / "CMakeLists.txt").write_text(CMAKE.replace('"${SHIMGEN_CONFIG}")', '"${SHIMGEN_CONFIG}" NO_EXPORT_ONLY)'))
    result = project.build(check=False)
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr[-2000:]
    assert "SG006" in result.stdout and "tiny_calls" in result.stdout and "check-symbols: FAILED" in result.stdout


def test_sources_added_after_the_call_fail_configure(project: Project) -> None:
    (project.src / "extra.c").write_text("int tiny_extra(void) { return 3; }\n")
    (project.src / "CMakeLists.txt").write_text(CMAKE + "target_sources(tiny PRIVATE extra.c)\n")
    result = project.build(check=False)
    assert result.returncode == 2
    assert "changed after the call" in " ".join(result.stderr.split() + result.stdout.split())


def test_a_listed_target_without_the_cmake_call_is_an_error(project: Project) -> None:
    (project.src / "shimgen.toml").write_text(CONFIG.replace('["tiny"]', '["tiny", "user"]'))
    result = project.build(check=False)
    assert result.returncode == 2
    assert "has no shimgen_prefix_library(user CONFIG ...) call" in result.stderr
    assert "Traceback" not in result.stderr


def test_commands_that_cannot_see_the_objects_say_so(tmp_path: Path) -> None:
    (tmp_path / "shimgen.toml").write_text(CONFIG)
    result = run([sys.executable, "-m", "shimgen", "generate", "-c", tmp_path / "shimgen.toml"], env=python_env(),
                 check=False)
    assert result.returncode == 2 and "symbols_from_targets" in result.stderr and "shimgen build" in result.stderr
    # shimgen build needs the project that defines the targets beside the config.
    result = run([sys.executable, "-m", "shimgen", "build", "-c", tmp_path / "shimgen.toml", "-B", tmp_path / "b"],
                 env=python_env(), check=False)
    assert result.returncode == 2 and "holds no CMakeLists.txt" in result.stderr
    assert not (tmp_path / "b").exists()  # refused before anything was created
    # --target and --objects-list go together, and the target must be listed.
    result = run([sys.executable, "-m", "shimgen", "generate", "-c", tmp_path / "shimgen.toml", "--target", "tiny"],
                 env=python_env(), check=False)
    assert result.returncode == 2 and "--target and --objects-list go together" in result.stderr
    listing = tmp_path / "objects.txt"
    listing.write_text("missing.o\n")
    result = run([sys.executable, "-m", "shimgen", "generate", "-c", tmp_path / "shimgen.toml", "--target", "tiny",
                  "--objects-list", listing], env=python_env(), check=False)
    assert result.returncode == 2 and "lists 'missing.o', which does not exist" in result.stderr
    assert not (tmp_path / "generated").exists()  # nothing half-written
    # -D takes NAME=VALUE.
    result = run([sys.executable, "-m", "shimgen", "build", "-c", tmp_path / "shimgen.toml", "-D", "NOVALUE"],
                 env=python_env(), check=False, cwd=REPO)
    assert result.returncode == 2 and "'NOVALUE' is not NAME=VALUE" in result.stderr


@pytest.mark.parametrize("variable", ["MSVC", "CMAKE_C_COMPILER_FRONTEND_VARIANT"])
def test_msvc_gets_fi_instead_of_include(project: Project, variable: str) -> None:
    """With an MSVC-style compiler (cl, clang-cl: MSVC or the MSVC front-end variant) the header is
    force-included with /FI, on the library and (PUBLIC) on what links it. No MSVC here: the
    compiler id is faked after project(), and the build rules CMake writes are read, not run."""
    from tests.e2e._native import CMAKE_DIR, configure

    value = "MSVC" if variable == "CMAKE_C_COMPILER_FRONTEND_VARIANT" else "ON"
    cmake = project.src / "CMakeLists.txt"
    cmake.write_text(CMAKE.replace("project(tiny C)\n", f"project(tiny C)\nset({variable} {value})\n"))
    configure(project.src, project.build_dir, f"-Dshimgen_DIR={CMAKE_DIR}",
              f"-DSHIMGEN_CONFIG={project.src / 'shimgen.toml'}", env=python_env())
    ninja = (project.build_dir / "build.ninja").read_text()
    header = project.generated / "export.h"
    flags = {}
    for block in ninja.split("\nbuild ")[1:]:
        target = block.split(":", 1)[0]
        for line in block.splitlines():
            if line.strip().startswith("FLAGS = "):
                flags[target] = line.strip()[len("FLAGS = "):]
    tiny = next(v for k, v in flags.items() if k.startswith("CMakeFiles/tiny.dir/"))
    user = next(v for k, v in flags.items() if k.startswith("CMakeFiles/user.dir/"))
    unprefixed = next(v for k, v in flags.items() if k.startswith("CMakeFiles/tiny_shimgen_unprefixed.dir/"))
    assert f"/FI{header}" in tiny and "-include" not in tiny
    assert f"/FI{header}" in user  # PUBLIC
    assert "/FI" not in unprefixed and "-include" not in unprefixed


# CMake writes MSVC's spellings once MSVC is set; zig cc (clang's GNU driver) needs its own. The
# translation is of spelling only: what is compiled and linked is what an MSVC-style build asks for.
MSVC_STYLE_CC = """\
import subprocess
import sys

out: list[str] = []
it = iter(sys.argv[1:])
for arg in it:
    if arg.startswith("/FI"):
        out += ["-include", arg[3:]]
    elif arg == "-Xlinker":
        option = next(it)
        if option.startswith("/DEF:"):
            out.append(option[5:])  # zig takes a module-definition file as an input
        elif option.startswith("/implib:"):
            out.append("-Wl,--out-implib," + option[8:])
        elif not option.startswith(("/MANIFEST", "/pdb:", "/version:")):
            out += ["-Xlinker", option]
    else:
        out.append(arg)
sys.exit(subprocess.call([sys.executable, "-m", "ziglang", "cc", "-target", "x86_64-windows-msvc",
                          "-fno-sanitize=all", *out]))
"""


def test_msvc_style_cross_build_reads_coff_objects(project: Project) -> None:
    """The MSVC route end to end, cross-compiled for x86_64-windows-msvc by zig cc: the unprefixed
    copy compiles to COFF .obj files, shimgen reads them, the header is force-included (/FI), the
    DLL links with the generated .def, and the strict check passes on it."""
    from tests import toolchains
    from tests.e2e._native import CMAKE_DIR, build, configure

    toolchains.require_zig()
    compiler = project.root / "zig-msvc-cc"
    compiler.write_text(f"#!{sys.executable}\n{MSVC_STYLE_CC}")
    compiler.chmod(0o755)
    (project.src / "CMakeLists.txt").write_text(CMAKE.replace("project(tiny C)\n", "project(tiny C)\nset(MSVC ON)\n"))
    configure(project.src, project.build_dir, f"-Dshimgen_DIR={CMAKE_DIR}",
              f"-DSHIMGEN_CONFIG={project.src / 'shimgen.toml'}", "-DCMAKE_SYSTEM_NAME=Windows",
              f"-DCMAKE_C_COMPILER={compiler}", "-DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY",
              "-DCMAKE_C_STANDARD_LIBRARIES=", "-DCMAKE_SHARED_LINKER_FLAGS=-Wl,--no-entry", env=python_env())
    result = build(project.build_dir, env=python_env())
    assert "clean: 1 binary checked, prefix 'tp_' (strict)" in result.stdout
    from shimgen.binary.load import load_paths

    (objects,) = load_paths([project.build_dir / "CMakeFiles" / "tiny_shimgen_unprefixed.dir" / "tiny.c.obj"])
    assert objects.format == "COFF" and set(objects.exports) == {"tiny_one", "tiny_calls"}
    manifest = json.loads((project.generated / "manifest.json").read_text())
    assert {s["name"]: s["defined_in"]["file"] for s in manifest["shims"]} == {
        "tiny_one": "CMakeFiles/tiny_shimgen_unprefixed.dir/tiny.c.obj",
        "tiny_calls": "CMakeFiles/tiny_shimgen_unprefixed.dir/tiny.c.obj"}
    (dll,) = load_paths([project.build_dir / "tiny.dll"])
    (user,) = load_paths([project.build_dir / "user.dll"])
    assert dll.format == "PE" and set(dll.exports) == {"tp_tiny_one", "tp_tiny_calls"}
    assert {"tp_tiny_one", "tp_tiny_calls"} <= set(user.imports)


def test_cmake_alone_checks_after_the_link(project: Project) -> None:
    """Without shimgen build: plain cmake + ninja, the POST_BUILD strict check included; a leak
    fails the build and moves the binary aside."""
    from tests.e2e._native import CMAKE_DIR, build, configure

    configure(project.src, project.build_dir, f"-Dshimgen_DIR={CMAKE_DIR}",
              f"-DSHIMGEN_CONFIG={project.src / 'shimgen.toml'}", env=python_env())
    result = build(project.build_dir, env=python_env())
    assert "shimgen: checking the symbols of tiny" in result.stdout and "clean: 1 binary checked" in result.stdout
    assert project.exports() == {"tp_tiny_one", "tp_tiny_calls"}

    (project.src / "shimgen.toml").write_text(CONFIG + 'exclude = ["tiny_calls"]\n')
    (project.src / "CMakeLists.txt").write_text(CMAKE.replace('"${SHIMGEN_CONFIG}")', '"${SHIMGEN_CONFIG}" NO_EXPORT_ONLY)'))
    result = build(project.build_dir, env=python_env(), check=False)
    assert result.returncode != 0 and "SG006" in result.stdout
    assert (project.build_dir / "libtiny.so.shimgen-rejected").is_file() and not (project.build_dir / "libtiny.so").exists()
