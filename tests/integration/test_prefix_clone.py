"""shimgen_prefix_library()'s unprefixed copy compiles exactly as the target does (issue 23, item 1).

The names are read from that copy, so any compile setting it misses changes them: BoringSSL's
`-fvisibility=hidden` given as CXX_VISIBILITY_PRESET was lost, and 240 hidden internals looked
exported. Two comparisons on a small C library that sets every kind of compile property: the
properties themselves, one by one, and the compile command each object gets (against the same
project configured without shimgen). Configure only: nothing is compiled.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tests.e2e._native import CMAKE_DIR, c_compiler, configure, python_env

PROPERTIES = ["C_VISIBILITY_PRESET", "VISIBILITY_INLINES_HIDDEN", "COMPILE_OPTIONS", "COMPILE_DEFINITIONS",
              "COMPILE_FEATURES", "INCLUDE_DIRECTORIES", "POSITION_INDEPENDENT_CODE", "C_STANDARD",
              "C_STANDARD_REQUIRED", "C_EXTENSIONS", "COMPILE_FLAGS", "COMPILE_WARNING_AS_ERROR"]

CMAKE = """\
cmake_minimum_required(VERSION 3.21)
project(tiny C)
option(SHIMGEN_PREFIXED "" ON)
add_compile_options(-DFROM_DIRECTORY=1)
add_library(tiny SHARED tiny.c)
set_target_properties(tiny PROPERTIES C_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
                      C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF COMPILE_FLAGS -fno-common
                      COMPILE_WARNING_AS_ERROR ON)
target_compile_options(tiny PRIVATE -fno-strict-aliasing)
target_compile_definitions(tiny PRIVATE TINY_BUILDING PUBLIC TINY_SHARED)
target_compile_features(tiny PRIVATE c_std_11)
target_include_directories(tiny PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
if(SHIMGEN_PREFIXED)
  # The target's values as the call sees them (the call then adds the force-include to it).
  foreach(property IN ITEMS @PROPERTIES@)
    get_target_property(mine_${property} tiny ${property})
  endforeach()
  find_package(shimgen CONFIG REQUIRED)
  shimgen_prefix_library(tiny CONFIG "${SHIMGEN_CONFIG}")
  set(dump "")
  foreach(property IN ITEMS @PROPERTIES@)
    get_target_property(copy tiny_shimgen_unprefixed ${property})
    string(APPEND dump "${property}\\t${mine_${property}}\\t${copy}\\n")
  endforeach()
  file(WRITE "${CMAKE_BINARY_DIR}/properties.tsv" "${dump}")
endif()
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    c_compiler()
    src = tmp_path / "src"
    (src / "include").mkdir(parents=True)
    (src / "tiny.c").write_text("int tiny_one(void) { return 1; }\n")
    (src / "shimgen.toml").write_text('prefix = "tp_"\nlibrary = "tiny"\nsymbols_from_targets = ["tiny"]\n')
    (src / "CMakeLists.txt").write_text(CMAKE.replace("@PROPERTIES@", " ".join(PROPERTIES)))
    return src


def _command(build: Path, directory: str) -> list[str]:
    (entry,) = [e for e in json.loads((build / "compile_commands.json").read_text())
                if f"/{directory}/" in e["output"] if "output" in e] or [
        e for e in json.loads((build / "compile_commands.json").read_text()) if f"/{directory}/" in e["command"]]
    # The object's own path differs by the directory name alone.
    return [a.replace(directory, "<dir>") for a in shlex.split(entry["command"])]


def test_the_unprefixed_copy_has_every_compile_property(project: Path) -> None:
    build = project.parent / "build"
    configure(project, build, f"-Dshimgen_DIR={CMAKE_DIR}", f"-DSHIMGEN_CONFIG={project / 'shimgen.toml'}",
              env=python_env())
    rows = [line.split("\t") for line in (build / "properties.tsv").read_text().splitlines()]
    assert [name for name, _, _ in rows] == PROPERTIES
    for name, mine, copy in rows:
        if name == "POSITION_INDEPENDENT_CODE":
            # Where unset on a SHARED library (which CMake compiles position-independent anyway), ON.
            assert copy == ("ON" if mine.endswith("NOTFOUND") else mine)
            continue
        if name == "COMPILE_DEFINITIONS":
            # ... and with the <target>_EXPORTS definition CMake gives a SHARED library's sources.
            assert copy == mine + ";tiny_EXPORTS"
            continue
        assert copy == mine, name
        assert "NOTFOUND" not in mine, name  # the project sets every one of them


def test_the_unprefixed_copy_compiles_with_the_same_command(project: Path) -> None:
    """The copy's compile command equals the target's own in the project configured without
    shimgen: same flags, definitions (tiny_EXPORTS included), include directories, standard."""
    plain, prefixed = project.parent / "plain", project.parent / "prefixed"
    configure(project, plain, "-DSHIMGEN_PREFIXED=OFF", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", env=python_env())
    configure(project, prefixed, f"-Dshimgen_DIR={CMAKE_DIR}", f"-DSHIMGEN_CONFIG={project / 'shimgen.toml'}",
              "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", env=python_env())
    original = _command(plain, "tiny.dir")
    copy = _command(prefixed, "tiny_shimgen_unprefixed.dir")
    assert "-fvisibility=hidden" in original and "-Dtiny_EXPORTS" in original and "-fPIC" in original
    assert sorted(copy) == sorted(original)
    assert copy == original
