"""The CMake package, consumed from this checkout as `-Dshimgen_DIR=$(shimgen cmake-dir)`: every
function's argument checks, custom targets, reruns on header changes, whole-archive linking on
both paths, and a symbol check that fails the build."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shimgen import __version__
from tests.e2e._native import CMAKE_DIR, EXAMPLE, build, c_compiler, configure, has_check_symbols, python_env

CONFIG = 'prefix = "demo_"\nsymbols = ["aoti_torch_one", "aoti_torch_two"]\n'

# One project, many cases: CASE picks the calls. Configuring an existing build directory again
# skips compiler detection, so each case costs a fraction of a second.
CASES_PROJECT = """
cmake_minimum_required(VERSION 3.24)
project(cases C)
find_package(shimgen CONFIG REQUIRED)
set(cfg "${CMAKE_CURRENT_SOURCE_DIR}/shimgen.toml")
file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/s.c" "int s(void) { return 1; }\\n")
add_library(st STATIC "${CMAKE_CURRENT_BINARY_DIR}/s.c")
add_library(sh SHARED "${CMAKE_CURRENT_BINARY_DIR}/s.c")
if(CASE STREQUAL "ok")
  shimgen_generate(CONFIG "${cfg}")
elseif(CASE STREQUAL "export_before_generate")
  shimgen_export_only(sh)
endif()
CASE_CODE
"""

CASES = {
    # name: (code, expected text in the output, whether configure succeeds)
    "generate_unknown_argument": ('shimgen_generate(CONFIG "${cfg}" OUTPTU_DIR x)',
                                  "shimgen_generate: unknown arguments 'OUTPTU_DIR;x'", False),
    "generate_keyword_without_value": ("shimgen_generate(CONFIG)", "shimgen_generate: CONFIG needs a value", False),
    "generate_without_config": ("shimgen_generate()", "shimgen_generate: CONFIG <file> is required", False),
    "generate_missing_config": ("shimgen_generate(CONFIG nope.toml)", "is not a file", False),
    "generate_bad_config": ('file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/bad.toml" "prefix = \\"__x\\"\\nsymbols=[\\"a\\"]\\n")\n'
                            'shimgen_generate(CONFIG "${CMAKE_CURRENT_BINARY_DIR}/bad.toml")',
                            "reserved in C", False),
    "generate_target_twice": ('shimgen_generate(CONFIG "${cfg}")\nshimgen_generate(CONFIG "${cfg}")',
                              "target 'shimgen::prefix' already exists", False),
    "generate_dir_twice": ('shimgen_generate(CONFIG "${cfg}" TARGET a OUTPUT_DIR g)\n'
                           'shimgen_generate(CONFIG "${cfg}" TARGET b OUTPUT_DIR g)',
                           "is already used by another", False),
    "link_whole_not_a_target": ("shimgen_link_whole(nope st)", "shimgen_link_whole: 'nope' is not a target", False),
    "link_whole_no_library": ("shimgen_link_whole(sh PRIVATE)", "shimgen_link_whole: no library given", False),
    "link_whole_shared": ("shimgen_link_whole(st sh)", "only static libraries are linked whole", False),
    "link_whole_public_warns": ("shimgen_link_whole(sh PUBLIC st)", "gets its own whole copy of the shims", True),
    "export_only_static": ("shimgen_generate(CONFIG \"${cfg}\")\nshimgen_export_only(st)",
                           "only a SHARED or MODULE library has an export list", False),
    "export_only_unknown_argument": ("shimgen_generate(CONFIG \"${cfg}\")\nshimgen_export_only(sh FORM x)",
                                     "shimgen_export_only: unknown arguments 'FORM;x'", False),
    "export_before_generate": ("", "shimgen_export_only: no shimgen_generate() call yet", False),
    "export_from_other_target": ("shimgen_generate(CONFIG \"${cfg}\")\nshimgen_export_only(sh FROM st)",
                                 "'st' was not made by shimgen_generate()", False),
    "check_unknown_argument": ("shimgen_generate(CONFIG \"${cfg}\")\nshimgen_check_symbols(sh STRCT)",
                               "shimgen_check_symbols: unknown arguments 'STRCT'", False),
    "check_keyword_without_value": ("shimgen_generate(CONFIG \"${cfg}\")\nshimgen_check_symbols(sh EXTRA)",
                                    "shimgen_check_symbols: EXTRA needs a value", False),
    "generate_warning_shown": ('file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/w/inc/export.h" "#define AOTI_SHIM_EXPORT\\n")\n'
                               'file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/w/shimgen.toml" "prefix = \\"w_\\"\\n'
                               'symbols = [\\"aoti_torch_a\\"]\\nheaders = [\\"inc/*.h\\"]\\n")\n'
                               'shimgen_generate(CONFIG "${CMAKE_CURRENT_BINARY_DIR}/w/shimgen.toml")',
                               "shimgen_generate: shimgen: warning: outputs.header 'export.h' has the file name of "
                               "the scanned project header inc/export.h", True),
    "check_required_without_value": ("shimgen_generate(CONFIG \"${cfg}\")\nshimgen_check_symbols(sh REQUIRED)",
                                     "shimgen_check_symbols: REQUIRED needs a value", False),
}


@pytest.fixture(scope="module")
def cases_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("cases")
    (source / "shimgen.toml").write_text(CONFIG)
    c_compiler()
    return source


def run_case(cases_dir: Path, code: str, *definitions: str, build_name: str = "build") -> subprocess.CompletedProcess:
    (cases_dir / "CMakeLists.txt").write_text(CASES_PROJECT.replace("CASE_CODE", code))
    build_dir = cases_dir / build_name
    shutil.rmtree(build_dir / "shimgen", ignore_errors=True)
    return configure(cases_dir, build_dir, f"-Dshimgen_DIR={CMAKE_DIR}", "-DCASE=", *definitions,
                     env=python_env(), check=False)


def flat(text: str) -> str:
    """CMake wraps messages; compare with whitespace collapsed."""
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("name", sorted(CASES))
def test_function_argument_checks(cases_dir: Path, name: str) -> None:
    code, expected, succeeds = CASES[name]
    if name == "export_before_generate":
        result = run_case(cases_dir, "", "-DCASE=export_before_generate")
    else:
        result = run_case(cases_dir, code)
    output = flat(result.stdout + result.stderr)
    assert expected in output, output[-3000:]
    assert (result.returncode == 0) == succeeds, output[-3000:]


def test_custom_target_and_output_dir(cases_dir: Path) -> None:
    code = textwrap.dedent("""
        shimgen_generate(CONFIG "${cfg}" TARGET demo::prefix OUTPUT_DIR gen)
        if(NOT TARGET demo::prefix OR NOT TARGET demo_prefix OR TARGET shimgen::prefix)
          message(FATAL_ERROR "wrong targets")
        endif()
        get_target_property(defs demo_prefix INTERFACE_COMPILE_DEFINITIONS)
        get_target_property(dirs demo_prefix INTERFACE_INCLUDE_DIRECTORIES)
        message(STATUS "RESULT defs=${defs} dirs=${dirs} prefix=${SHIMGEN_PREFIX} "
                       "header=${SHIMGEN_HEADER} manifest=${SHIMGEN_MANIFEST}")
    """)
    result = run_case(cases_dir, code)
    assert result.returncode == 0, result.stdout + result.stderr
    build_dir = cases_dir / "build"
    line = next(line for line in result.stdout.splitlines() if "RESULT" in line)
    assert "defs=AOTI_SHIM_SYMBOL_PREFIX=demo_ " in line
    assert f"dirs={build_dir / 'gen'} " in line
    assert "prefix=demo_ " in line
    assert f"header={build_dir / 'gen' / 'export.h'} " in line
    assert (build_dir / "gen" / "manifest.json").is_file()


def test_find_package_twice_and_version_request(cases_dir: Path) -> None:
    code = 'find_package(shimgen 0.1 CONFIG REQUIRED)\nmessage(STATUS "RESULT ${shimgen_VERSION} ${SHIMGEN_COMMAND}")'
    result = run_case(cases_dir, code)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"RESULT {__version__} " in result.stdout
    too_new = run_case(cases_dir, "find_package(shimgen 9.0 CONFIG REQUIRED)")
    assert too_new.returncode != 0
    assert __version__ in flat(too_new.stderr)


def test_executable_given_as_a_command_list(cases_dir: Path) -> None:
    result = run_case(cases_dir, 'message(STATUS "RESULT ${SHIMGEN_COMMAND}")',
                      f"-DSHIMGEN_EXECUTABLE={sys.executable};-m;shimgen", build_name="build-list-exe")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"RESULT {sys.executable};-m;shimgen" in result.stdout


def test_unusable_executable_says_what_to_do(cases_dir: Path) -> None:
    result = run_case(cases_dir, "", "-DSHIMGEN_EXECUTABLE=/nonexistent/shimgen", build_name="build-bad-exe")
    assert result.returncode != 0
    assert "does not run `shimgen --version`" in flat(result.stderr)


def test_no_shimgen_anywhere_says_how_to_install(cases_dir: Path, tmp_path: Path) -> None:
    # A copy of the package beside no `shimgen` Python package, with PATH searches switched off:
    # no candidate can run, so find_package must fail with an install hint.
    lonely = tmp_path / "lonely" / "cmake"
    shutil.copytree(CMAKE_DIR, lonely)
    project = tmp_path / "project"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.24)\nproject(x NONE)\nfind_package(shimgen CONFIG REQUIRED)\n")
    result = configure(project, tmp_path / "build", f"-Dshimgen_DIR={lonely}",
                       "-DCMAKE_FIND_USE_SYSTEM_ENVIRONMENT_PATH=OFF", "-DCMAKE_FIND_USE_CMAKE_SYSTEM_PATH=OFF",
                       "-DCMAKE_FIND_USE_CMAKE_ENVIRONMENT_PATH=OFF", check=False)
    assert result.returncode != 0
    assert "Try: python -m pip install shimgen" in flat(result.stderr)


def copy_example(tmp_path: Path) -> Path:
    source = tmp_path / "example"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build*", "generated"))
    return source


def exported(library: Path) -> set[str]:
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) is not installed")
    result = subprocess.run([nm, "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in result.stdout.splitlines() if line.strip()}


def checks() -> str:
    return "ON" if has_check_symbols() else "OFF"


def test_example_reruns_the_generator_when_a_header_changes(tmp_path: Path) -> None:
    c_compiler()
    source = copy_example(tmp_path)
    build_dir = tmp_path / "build"
    configure(source, build_dir, f"-Dshimgen_DIR={CMAKE_DIR}", f"-DSHIMGEN_CHECK_SYMBOLS={checks()}", env=python_env())
    build(build_dir, env=python_env())
    assert "acme_aoti_torch_dtype_bool" in exported(build_dir / "libacme_shims.so")
    header = source / "include" / "acme" / "shims.h"
    header.write_text(header.read_text().replace(
        "AOTI_SHIM_EXPORT int32_t aoti_torch_device_type_cpu(void);",
        "AOTI_SHIM_EXPORT int32_t aoti_torch_device_type_cpu(void);\n"
        "AOTI_SHIM_EXPORT int32_t aoti_torch_device_type_cuda(void);"))
    with (source / "src" / "device.c").open("a") as handle:
        handle.write("int32_t aoti_torch_device_type_cuda(void) { return 1; }\n")
    result = build(build_dir, env=python_env())
    assert "Re-running CMake" in result.stdout or "Re-checking" in result.stdout, result.stdout
    assert "aoti_torch_device_type_cuda" in (build_dir / "shimgen" / "shimgen_prefix" / "export.h").read_text()
    names = exported(build_dir / "libacme_shims.so")
    assert "acme_aoti_torch_device_type_cuda" in names
    assert not any(name.startswith("aoti_torch_") for name in names)


def test_example_reruns_the_generator_when_the_config_changes(tmp_path: Path) -> None:
    c_compiler()
    source = copy_example(tmp_path)
    build_dir = tmp_path / "build"
    configure(source, build_dir, f"-Dshimgen_DIR={CMAKE_DIR}", f"-DSHIMGEN_CHECK_SYMBOLS={checks()}", env=python_env())
    build(build_dir, env=python_env())
    config = source / "shimgen.toml"
    config.write_text(config.read_text().replace('prefix = "acme_"', 'prefix = "acme2_"'))
    build(build_dir, env=python_env())
    names = exported(build_dir / "libacme_shims.so")
    assert "acme2_aoti_torch_dtype_float32" in names and "acme_aoti_torch_dtype_float32" not in names


@pytest.mark.parametrize("export_only", [True, False], ids=["export-only", "control-without"])
def test_export_only_hides_everything_but_the_shims(tmp_path: Path, export_only: bool) -> None:
    c_compiler()
    source = copy_example(tmp_path)
    with (source / "src" / "version.c").open("a") as handle:
        handle.write("int32_t acme_internal_helper(void) { return 2; }\n")  # default visibility
    cmakelists = source / "CMakeLists.txt"
    text = cmakelists.read_text().replace("shimgen_check_symbols(", "# shimgen_check_symbols(")
    if not export_only:
        text = text.replace("shimgen_export_only(acme_shims)", "")
    cmakelists.write_text(text)
    build_dir = tmp_path / "build"
    configure(source, build_dir, f"-Dshimgen_DIR={CMAKE_DIR}", env=python_env())
    build(build_dir, env=python_env())
    names = exported(build_dir / "libacme_shims.so")
    assert {"acme_aoti_torch_dtype_float32", "acme_shims_abi_version"} <= names
    assert ("acme_internal_helper" in names) is not export_only


def test_legacy_whole_archive_flags_keep_every_shim(tmp_path: Path) -> None:
    c_compiler()
    build_dir = tmp_path / "build"
    configure(EXAMPLE, build_dir, f"-Dshimgen_DIR={CMAKE_DIR}", f"-DSHIMGEN_CHECK_SYMBOLS={checks()}",
              "-DSHIMGEN_LEGACY_WHOLE_ARCHIVE=ON", env=python_env())
    ninja_file = (build_dir / "build.ninja").read_text()
    assert "-Wl,--whole-archive" in ninja_file and "LINK_LIBRARY" not in ninja_file
    build(build_dir, env=python_env())
    names = exported(build_dir / "libacme_shims.so")
    # aoti_torch_dtype_bool is referenced by nothing: only whole-archive linking keeps it.
    assert {"acme_aoti_torch_dtype_bool", "acme_aoti_torch_dtype_float32", "acme_shims_abi_version"} <= names


def test_without_link_whole_the_unreferenced_shims_are_dropped(tmp_path: Path) -> None:
    # The control for the test above: a plain link keeps no shim, because nothing references them.
    c_compiler()
    source = copy_example(tmp_path)
    cmakelists = source / "CMakeLists.txt"
    text = cmakelists.read_text()
    text = text.replace("shimgen_link_whole(acme_shims acme_shims_objects)",
                        "target_link_libraries(acme_shims PRIVATE acme_shims_objects)")
    cmakelists.write_text(text.replace("shimgen_check_symbols(", "# shimgen_check_symbols("))
    build_dir = tmp_path / "build"
    configure(source, build_dir, f"-Dshimgen_DIR={CMAKE_DIR}", env=python_env())
    build(build_dir, env=python_env())
    assert "acme_aoti_torch_dtype_bool" not in exported(build_dir / "libacme_shims.so")


@pytest.mark.skipif(not has_check_symbols(), reason="`shimgen check-symbols` is not in this checkout yet")
@pytest.mark.parametrize(
    ("old", "new", "target_file"),
    [
        # The plugin compiled without the prefix: it imports the plain names (SG004).
        ("target_link_libraries(acme_model PRIVATE acme_shims)",
         "target_link_libraries(acme_model PRIVATE acme_shims)\n"
         "target_compile_options(acme_model PRIVATE -UAOTI_SHIM_SYMBOL_PREFIX)",
         "libacme_model.so"),
        # The shims linked without whole-archive: no required shim is retained (SG002).
        ("shimgen_link_whole(acme_shims acme_shims_objects)",
         "target_link_libraries(acme_shims PRIVATE acme_shims_objects)",
         "libacme_shims.so"),
    ],
    ids=["plugin-without-prefix", "library-without-whole-archive"],
)
def test_a_finding_fails_the_build(tmp_path: Path, old: str, new: str, target_file: str) -> None:
    c_compiler()
    source = copy_example(tmp_path)
    cmakelists = source / "CMakeLists.txt"
    text = cmakelists.read_text()
    assert old in text
    cmakelists.write_text(text.replace(old, new))
    build_dir = tmp_path / "build"
    configure(source, build_dir, f"-Dshimgen_DIR={CMAKE_DIR}", env=python_env())
    result = build(build_dir, env=python_env(), check=False)
    output = flat(result.stdout + result.stderr)
    assert result.returncode != 0, output[-3000:]
    assert "shimgen_check_symbols:" in output and "has the findings listed above" in output, output[-3000:]
    # The rejected binary is moved aside, so the next build links and checks it again.
    assert not (build_dir / target_file).exists()
    assert (build_dir / f"{target_file}.shimgen-rejected").exists()
    again = build(build_dir, env=python_env(), check=False)
    assert again.returncode != 0
    assert "has the findings listed above" in flat(again.stdout + again.stderr)


CONSUMER = """\
#include <acme/shims.h>
int32_t consumer_run(void) { return aoti_torch_dtype_float32(); }
"""


@pytest.mark.skipif(not has_check_symbols(), reason="`shimgen check-symbols` is not in this checkout yet")
def test_a_rebuilt_extra_binary_is_checked_again(tmp_path: Path) -> None:
    """The check runs after its target links; a binary of EXTRA rebuilt alone (a test that now
    calls a plain name) relinks the target, so the set is checked again and the build fails."""
    c_compiler()
    source = copy_example(tmp_path)
    (source / "plugin" / "consumer.c").write_text(CONSUMER)
    cmakelists = source / "CMakeLists.txt"
    old = "shimgen_check_symbols(acme_model EXTRA acme_shims)"
    text = cmakelists.read_text()
    assert old in text
    cmakelists.write_text(text.replace(old, "add_library(acme_consumer MODULE plugin/consumer.c)\n"
                                            "target_link_libraries(acme_consumer PRIVATE acme_shims)\n"
                                            "shimgen_check_symbols(acme_model EXTRA acme_shims acme_consumer)"))
    build_dir = tmp_path / "build"
    configure(source, build_dir, f"-Dshimgen_DIR={CMAKE_DIR}", env=python_env())
    build(build_dir, env=python_env())
    # Only the consumer changes: it now calls the plain name (SG004 once checked).
    (source / "plugin" / "consumer.c").write_text(CONSUMER.replace(
        "int32_t consumer_run", "#undef aoti_torch_dtype_float32\nint32_t consumer_run"))
    result = build(build_dir, env=python_env(), check=False)
    output = flat(result.stdout + result.stderr)
    assert result.returncode != 0, output[-3000:]
    assert "SG004 aoti_torch_dtype_float32" in output and "libacme_consumer.so" in output, output[-3000:]


def test_the_fragment_is_found_through_the_index_not_by_guessing(cases_dir: Path) -> None:
    # A renamed fragment beside another banner-carrying .cmake file: only the index says which is which.
    (cases_dir / "renamed.toml").write_text(CONFIG + '[outputs]\ncmake = "frag.cmake"\n')
    code = textwrap.dedent("""
        file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/g-index/zzz.cmake"
             "# generated by shimgen 0.0.1 from elsewhere; do not edit\\nmessage(FATAL_ERROR DECOY)\\n")
        shimgen_generate(CONFIG "${CMAKE_CURRENT_SOURCE_DIR}/renamed.toml" OUTPUT_DIR g-index)
        message(STATUS "RESULT ${SHIMGEN_PREFIX} ${SHIMGEN_GENERATED_DIR}")
    """)
    result = run_case(cases_dir, code)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"RESULT demo_ {cases_dir / 'build' / 'g-index'}" in result.stdout


def test_a_fragment_switched_off_later_is_not_used_stale(cases_dir: Path) -> None:
    (cases_dir / "later.toml").write_text(CONFIG)
    code = 'shimgen_generate(CONFIG "${CMAKE_CURRENT_SOURCE_DIR}/later.toml" OUTPUT_DIR g-later)'
    assert run_case(cases_dir, code).returncode == 0
    (cases_dir / "later.toml").write_text(CONFIG + "[outputs]\ncmake = false\n")
    result = run_case(cases_dir, code)  # the old shimgen.cmake is still in g-later
    assert result.returncode != 0
    assert "disables the CMake output ([outputs] cmake = false)" in flat(result.stderr)


def test_only_the_documented_variables_reach_the_caller(cases_dir: Path) -> None:
    from tests.unit.test_cmake_package_files import _documented_variables

    (cases_dir / "nodef.toml").write_text(CONFIG + "[outputs]\ndef = false\n")
    code = textwrap.dedent("""
        get_cmake_property(_before VARIABLES)
        shimgen_generate(CONFIG "${cfg}" TARGET first OUTPUT_DIR g-first)
        get_cmake_property(_after VARIABLES)
        list(REMOVE_ITEM _after ${_before} _before)
        message(STATUS "NEW ${_after}")
        message(STATUS "TARGET1 ${SHIMGEN_PREFIX_TARGET}")
        # A second config without a .def output: the first call's SHIMGEN_DEF_FILE must neither
        # survive in the caller nor reach the second target.
        shimgen_generate(CONFIG "${CMAKE_CURRENT_SOURCE_DIR}/nodef.toml" TARGET second OUTPUT_DIR g-second)
        get_target_property(def second SHIMGEN_DEF_FILE)
        if(DEFINED SHIMGEN_DEF_FILE)
          message(STATUS "DEF2 ${SHIMGEN_DEF_FILE} PROP2 ${def}")
        else()
          message(STATUS "DEF2 unset PROP2 ${def}")
        endif()
        message(STATUS "TARGET2 ${SHIMGEN_PREFIX_TARGET}")
    """)
    result = run_case(cases_dir, code)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = {line.split()[1]: line.split(maxsplit=2)[2:] for line in result.stdout.splitlines()
             if line.startswith("-- ") and len(line.split()) > 2}
    # outputs.asm_header is off by default, so its variable is the one documented name not set here.
    assert set(lines["NEW"][0].split(";")) == _documented_variables() - {"SHIMGEN_ASM_HEADER"}
    assert lines["TARGET1"] == ["first"] and lines["TARGET2"] == ["second"]
    assert lines["DEF2"] == ["unset PROP2 def-NOTFOUND"]
