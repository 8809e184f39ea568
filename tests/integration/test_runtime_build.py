"""shimgen build's driver: init cache, options, nvcc lookup, artifacts (no compiler), and one small real
build of a project whose paths and cache values CMake quoting gets wrong by hand."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from shimgen.builder import builder as build_module
from shimgen.builder import cmake as cmake_driver
from shimgen.builder import process
from shimgen.builder.builder import BuildOptions, build, cache_entries, read_artifacts
from shimgen.builder.cmake import CacheEntry, init_cache_text, write_init_cache
from shimgen.errors import ToolError, UsageError
from shimgen.project.config import load_config
from shimgen.resources import default_config


def test_init_cache_forces_sorted_bracket_quoted_entries():
    text = init_cache_text({"B": CacheEntry('say "hi" ]] ${x}'), "A": CacheEntry("/a b;c$", "PATH")})
    lines = text.splitlines()
    assert lines[1] == 'set(A [[/a b;c$]] CACHE PATH "" FORCE)'
    assert lines[2] == 'set(B [=[say "hi" ]] ${x}]=] CACHE STRING "" FORCE)'


@pytest.mark.parametrize("name, value, message", [
    ("X", "a\nb", "contains a line break"),
    ("X", "a\rb", "contains a line break"),
    ("X Y", "1", "is not a plain variable name"),
    ("X)", "1", "is not a plain variable name"),
])
def test_init_cache_refuses_what_a_cache_cannot_hold(name, value, message):
    with pytest.raises(UsageError, match=message):
        init_cache_text({name: CacheEntry(value)})


# Every character hand quoting got wrong: ${} and $ENV{} expansion, backslash escapes (and the old
# backslash-to-slash rewrite), ';' list splitting, quotes, and brackets that end a bracket argument.
ODD_VALUE = 'a ${x} $ENV{HOME} \\n\\;\\ ;b; "q" ]] ]=] [==[ end\\'


def test_odd_paths_and_values_configure_and_build(tmp_path):
    """A real `shimgen build` of a C project whose source path holds `$`, `;` and spaces, built in a
    directory with `$` and spaces: the generated dir and an extra cache value arrive byte-exact,
    and the library links with its prefixed shim. (CMake's own try_compile cannot work in a build
    directory holding ';' or '${', so those go into the source path and the extra value.)"""
    project = _small_project(tmp_path / "src $dollar; semi colon", 'prefix = "odd_"\nsymbols = ["aoti_torch_one"]\n',
                             extra_cmake='file(WRITE "${CMAKE_BINARY_DIR}/echo-dir.txt" "${SHIMGEN_GENERATED_DIR}")\n'
                                         'file(WRITE "${CMAKE_BINARY_DIR}/echo-value.txt" "${ODD_VALUE}")\n').parent
    build_dir = tmp_path / "build $1 two words"
    result = build(load_config(project / "shimgen.toml"),
                   BuildOptions(build_dir, cuda="off", jobs=2, cache=(("ODD_VALUE", ODD_VALUE),)))
    assert (build_dir / "echo-dir.txt").read_text() == str(build_dir / "generated")
    assert (build_dir / "echo-value.txt").read_text() == ODD_VALUE
    assert result.check.exit_code == 0, result.check.text
    assert [artifact.prefixed_exports for artifact in result.artifacts] == [1]


def test_init_cache_written_only_when_changed(tmp_path):
    entries = {"X": CacheEntry("1")}
    path, changed = write_init_cache(tmp_path, entries)
    assert changed and path.name == "shimgen-init.cmake"
    mtime = path.stat().st_mtime_ns
    assert write_init_cache(tmp_path, entries)[1] is False and path.stat().st_mtime_ns == mtime
    assert write_init_cache(tmp_path, {"X": CacheEntry("2")})[1] is True


def test_cache_entries_carry_prefix_independent_settings(tmp_path):
    config = load_config(default_config())
    tools = cmake_driver.Tools(cmake=Path("/x/cmake"), ninja=Path("/x/ninja"))
    entries = cache_entries(BuildOptions(tmp_path, build_type="Debug", cache=(("EXTRA", "ON"),)), config,
                            tmp_path / "generated", tools, None)
    assert entries["CMAKE_BUILD_TYPE"].value == "Debug"
    assert entries["SHIMGEN_RUNTIME_CUDA"].value == "OFF" and "CMAKE_CUDA_COMPILER" not in entries
    assert entries["CMAKE_MAKE_PROGRAM"].value == "/x/ninja"
    assert entries["SHIMGEN_RUNTIME_OUTPUT_NAME"].value == "shimgen_runtime"
    assert entries["EXTRA"].value == "ON"
    with_cuda = cache_entries(BuildOptions(tmp_path), config, tmp_path, tools, Path("/cuda/bin/nvcc"))
    assert with_cuda["SHIMGEN_RUNTIME_CUDA"].value == "ON"
    assert with_cuda["CMAKE_CUDA_COMPILER"].value == "/cuda/bin/nvcc"


@pytest.mark.parametrize("options, message", [
    (dict(cuda="maybe"), "--cuda must be one of"),
    (dict(build_type="Fast"), "--build-type must be one of"),
    (dict(jobs=0), "-j must be at least 1"),
])
def test_bad_options_are_usage_errors(tmp_path, options, message):
    with pytest.raises(UsageError, match=message):
        build(load_config(default_config()), BuildOptions(tmp_path / "b", **options))


def test_cuda_on_without_nvcc_is_a_tool_error(tmp_path, monkeypatch):
    monkeypatch.setattr(build_module, "find_nvcc", lambda: None)
    with pytest.raises(ToolError, match="no nvcc was found"):
        build(load_config(default_config()), BuildOptions(tmp_path / "b", cuda="on"))
    assert not (tmp_path / "b").exists()  # nothing written before the options were checked


@pytest.mark.parametrize("mode, cublas, cache, uses_cuda", [
    ("auto", True, (), True),
    ("auto", False, (), False),  # the toolkit without cuBLAS: CPU-only, not a failed configure
    ("auto", False, (("SHIMGEN_CUBLAS_ROOT", "/opt/cublas"),), True),  # the user named cuBLAS
    ("on", False, (), True),     # asked for: CMake names what is missing
    ("off", True, (), False),
])
def test_cuda_auto_needs_nvcc_and_cublas(tmp_path, monkeypatch, caplog, mode, cublas, cache, uses_cuda):
    nvcc = tmp_path / "cuda" / "bin" / "nvcc"
    monkeypatch.setattr(build_module, "find_nvcc", lambda: nvcc)
    monkeypatch.setattr(build_module, "has_cublas", lambda found: cublas)
    with caplog.at_level(logging.INFO, logger="shimgen"):
        chosen = build_module.cuda_compiler(BuildOptions(tmp_path / "b", cuda=mode, cache=cache),
                                            load_config(default_config()))
    assert chosen == (nvcc if uses_cuda else None)
    said = any("no cuBLAS" in record.getMessage() for record in caplog.records)
    assert said == (mode == "auto" and not cublas and not cache)


def test_user_project_gets_the_package_and_no_cublas_check(tmp_path, monkeypatch, caplog):
    """shimgen build -c <a config beside the user's CMakeLists.txt> (issue 23 item 11): the project
    finds shimgen through shimgen_DIR, and nvcc is used without the bundled runtime's cuBLAS need."""
    (tmp_path / "CMakeLists.txt").write_text("project(p C)\n")
    config_path = tmp_path / "shimgen.toml"
    config_path.write_text('prefix = "p_"\nsymbols = ["aoti_torch_a"]\n')
    config = load_config(config_path)
    nvcc = tmp_path / "cuda" / "bin" / "nvcc"
    monkeypatch.setattr(build_module, "find_nvcc", lambda: nvcc)
    monkeypatch.setattr(build_module, "has_cublas", lambda found: False)
    with caplog.at_level(logging.DEBUG, logger="shimgen"):
        assert build_module.cuda_compiler(BuildOptions(tmp_path / "b"), config) == nvcc
    assert not any("no cuBLAS" in record.getMessage() for record in caplog.records)
    tools = cmake_driver.Tools(cmake=Path("cmake"), ninja=Path("ninja"))
    entries = cache_entries(BuildOptions(tmp_path / "b"), config, tmp_path / "g", tools, nvcc)
    assert Path(entries["shimgen_DIR"].value, "shimgenConfig.cmake").is_file()
    assert entries["SHIMGEN_CONFIG"].value == str(config.path)
    runtime = cache_entries(BuildOptions(tmp_path / "b"), load_config(default_config()), tmp_path / "g", tools, None)
    assert "shimgen_DIR" not in runtime


def test_cublas_is_found_in_the_toolkit_beside_nvcc(tmp_path, monkeypatch):
    import importlib.metadata

    def no_package(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", no_package)
    (tmp_path / "bin").mkdir()
    nvcc = tmp_path / "bin" / "nvcc"
    nvcc.write_text("")
    assert not build_module.has_cublas(nvcc)
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "cublas_v2.h").write_text("")
    assert build_module.has_cublas(nvcc)


def test_run_logs_and_raises_one_line(tmp_path, caplog):
    caplog.set_level("DEBUG", logger="shimgen")
    process.run(["true"], stream=True)
    assert [r.getMessage() for r in caplog.records] == ["RUN: true"]
    with pytest.raises(ToolError, match=r"false failed with exit code 1 \(command: false\)"):
        process.run(["false"], stream=True)
    with pytest.raises(ToolError, match="cannot run"):
        process.run([str(tmp_path / "missing-tool")])


def test_captured_output_is_logged_and_its_tail_is_the_error(caplog):
    caplog.set_level("DEBUG", logger="shimgen")
    assert process.run(["sh", "-c", "echo one; echo two"]) == "one\ntwo\n"
    assert [r.getMessage() for r in caplog.records] == ["RUN: sh -c 'echo one; echo two'", "  one", "  two"]
    script = "for i in 1 2 3 4 5; do echo line$i; done; echo oops >&2; exit 3"
    with pytest.raises(ToolError) as raised:
        process.run(["sh", "-c", script], what="the step")
    assert raised.value.problems == ["the step failed with exit code 3: line4 | line5 | oops"]


def test_a_failed_job_stops_its_siblings():
    slow = process.start(["sleep", "30"])
    failed = process.start(["false"])
    with pytest.raises(ToolError):
        failed.wait()
    slow.stop()
    assert slow.process.returncode is not None


def test_artifacts_listing(tmp_path):
    library = tmp_path / "libx.so"
    library.write_bytes(b"")
    (tmp_path / "shimgen-artifacts.txt").write_text(f"{library}\n")
    assert read_artifacts(tmp_path) == (library,)
    library.unlink()
    with pytest.raises(ToolError, match="produced no library"):
        read_artifacts(tmp_path)


def _progress(caplog) -> list[str]:
    """The progress lines a build logged (the shimgen logger, INFO)."""
    return [r.getMessage() for r in caplog.records if r.name.startswith("shimgen") and r.levelno == logging.INFO]


def test_failed_configure_is_retried_next_run(tmp_path, caplog):
    """A CMake error is one ToolError line, and the next run configures again instead of building."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "shimgen.toml").write_text('prefix = "p_"\nsymbols = ["aoti_torch_x"]\n')
    (project / "CMakeLists.txt").write_text('cmake_minimum_required(VERSION 3.24)\nproject(p NONE)\n'
                                            'message(FATAL_ERROR "deliberate")\n')
    options = BuildOptions(tmp_path / "b")
    with caplog.at_level(logging.INFO, logger="shimgen"):
        for _ in range(2):
            with pytest.raises(ToolError, match="cmake failed with exit code 1"):
                build(load_config(project / "shimgen.toml"), options)
    assert sum(1 for line in _progress(caplog) if line.startswith("[2/4] configure /")) == 2
    assert (tmp_path / "b" / "generated" / "export.h").is_file()


def test_an_interrupted_configure_is_redone_with_the_new_options(tmp_path, caplog):
    """A configure killed after the new init cache was written (Ctrl-C during '[2/4] configure')
    leaves it beside the old CMake cache; the next build must configure again (Debug), not report
    'configure: up to date' and build with the old options (Release)."""
    from tests.e2e._native import c_compiler

    c_compiler()
    project = tmp_path / "project"
    project.mkdir()
    (project / "shimgen.toml").write_text('prefix = "kill_"\nsymbols = ["aoti_torch_one"]\n')
    (project / "shim.c").write_text('#include "export.h"\nAOTI_SHIM_EXPORT int aoti_torch_one(void);\n'
                                    "int aoti_torch_one(void) { return 1; }\n")
    (project / "CMakeLists.txt").write_text("""cmake_minimum_required(VERSION 3.24)
project(kill C)
include("${SHIMGEN_GENERATED_DIR}/shimgen.cmake")
add_library(kill SHARED shim.c)
set_target_properties(kill PROPERTIES OUTPUT_NAME "${SHIMGEN_RUNTIME_OUTPUT_NAME}" C_VISIBILITY_PRESET hidden)
shimgen_apply_prefix(kill)
file(WRITE "${CMAKE_BINARY_DIR}/build-type.txt" "${CMAKE_BUILD_TYPE}")
""")
    config = load_config(project / "shimgen.toml")
    build_dir = tmp_path / "build"
    build(config, BuildOptions(build_dir, cuda="off", jobs=2, build_type="Release"))
    assert (build_dir / "build-type.txt").read_text() == "Release"

    # The interrupted run: its init cache is written, then CMake is killed before it finishes.
    debug = BuildOptions(build_dir, cuda="off", jobs=2, build_type="Debug")
    entries = cache_entries(debug, config, build_dir / "generated", cmake_driver.find_tools(), None)
    (build_dir / "shimgen-configured.stamp").unlink(missing_ok=True)  # configure() removes it first
    assert write_init_cache(build_dir, entries)[1]

    with caplog.at_level(logging.INFO, logger="shimgen"):
        build(config, debug)
    lines = _progress(caplog)
    assert "[2/4] configure: up to date" not in lines and any(line.startswith("[2/4] configure ") for line in lines)
    assert (build_dir / "build-type.txt").read_text() == "Debug"
    # And a finished configure is trusted again: the next identical build does not reconfigure.
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="shimgen"):
        build(config, debug)
    assert "[2/4] configure: up to date" in _progress(caplog)


def _small_project(root: Path, config: str, extra_cmake: str = "") -> Path:
    """A one-shim C project as a user writes it beside its shimgen.toml (no bundled runtime)."""
    from tests.support import c_project

    return c_project(root, config, {"shim.c": '#include "export.h"\nAOTI_SHIM_EXPORT int aoti_torch_one(void);\n'
                                              "int aoti_torch_one(void) { return 1; }\n"}, extra_cmake)


def test_prefix_change_leaves_no_trace_in_the_build_dir(tmp_path):
    """The same build dir rebuilt after the config's prefix changed: the library exports the new
    prefix and holds no byte of the old one (no stale object, generated header or cache entry). The
    whole runtime's version of this is test_runtime.py's, behind SHIMGEN_SLOW_BUILDS=1."""
    config = _small_project(tmp_path / "p", 'prefix = "oldpfx_"\nsymbols = ["aoti_torch_one"]\n')
    options = BuildOptions(tmp_path / "b", cuda="off", jobs=2)
    first = build(load_config(config), options)
    assert b"oldpfx_aoti_torch_one" in first.artifacts[0].path.read_bytes()
    config.write_text(config.read_text().replace('"oldpfx_"', '"newpfx_"'))
    second = build(load_config(config), options)
    data = second.artifacts[0].path.read_bytes()
    assert b"newpfx_aoti_torch_one" in data and b"oldpfx" not in data
    assert second.check.exit_code == 0 and second.artifacts[0].prefixed_exports == 1


def test_build_reads_each_artifact_once(tmp_path, monkeypatch):
    """The check and the count of prefixed exports come from one read of the built library (they
    used to read it twice: check-symbols, then the summary's count)."""
    from shimgen.binary import load

    config = _small_project(tmp_path / "p", 'prefix = "once_"\nsymbols = ["aoti_torch_one"]\n')
    reads: list[str] = []
    real = load.load_bytes

    def counting(data, name, *args, **kwargs):
        reads.append(name)
        return real(data, name, *args, **kwargs)

    monkeypatch.setattr(load, "load_bytes", counting)
    result = build(load_config(config), BuildOptions(tmp_path / "b", cuda="off", jobs=2))
    assert result.check.exit_code == 0, result.check.text
    assert [artifact.prefixed_exports for artifact in result.artifacts] == [1]
    assert sorted(reads) == sorted({str(artifact.path) for artifact in result.artifacts}), reads


def test_build_renders_through_generate_and_shows_its_warnings(tmp_path, run_cli):
    """shimgen build writes what shimgen generate writes, and says what generate warns about (here a
    scanned project header with the generated header's name), on the build's own output."""
    config = _small_project(tmp_path / "p", 'prefix = "warn_"\nheaders = ["inc/*.h"]\n')
    (config.parent / "inc").mkdir()
    (config.parent / "inc" / "export.h").write_text("AOTI_SHIM_EXPORT int aoti_torch_one(void);\n")
    built = run_cli("build", "-c", config, "-B", tmp_path / "b", "--cuda", "off", "-j", "2")
    assert built.code == 0, built.err
    warnings = [line for line in built.err.splitlines() if "warning:" in line]
    assert len(warnings) == 1 and "has the file name of the scanned project header inc/export.h" in warnings[0], built.err
    generated = run_cli("generate", "-c", config, "-o", tmp_path / "g")
    assert generated.code == 0 and [line for line in generated.err.splitlines() if "warning:" in line] == warnings
    for path in sorted((tmp_path / "g").iterdir()):
        text = (tmp_path / "b" / "generated" / path.name).read_text()
        assert text == path.read_text().replace(str(tmp_path / "g"), str(tmp_path / "b" / "generated")), path.name
