"""Operating-system errors and hostile names are one line, exit 2 (issue 19 items 11 and 12).

A full disk is simulated with RLIMIT_FSIZE in a child process (writing past it fails with EFBIG;
Python ignores SIGXFSZ); every other case runs the CLI in-process."""

from __future__ import annotations

import os
import resource
import sys
from pathlib import Path

import pytest

from shimgen.errors import printable
from tests.support import run_shimgen

SMALL = 'prefix = "acme_"\nsymbols = ["aoti_torch_a"]\n'
# Enough shims that the manifest and version script outgrow the file size limit below, while the
# header index and the small files fit: the old writer replaced those first, then failed.
LARGE = 'prefix = "acme_"\nsymbols = [' + ", ".join(f'"aoti_torch_{i:04d}_{"x" * 40}"' for i in range(200)) + "]\n"


def _one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("shimgen: error: "), err
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def test_full_disk_mid_generate_keeps_the_old_set_whole(tmp_path):
    config = tmp_path / "shimgen.toml"
    config.write_text(SMALL)
    first = run_shimgen("generate", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    before = _snapshot(tmp_path / "generated")
    config.write_text(LARGE)
    limit = 8192
    assert max(len(b) for b in before.values()) < limit  # the control: the old set fits under the limit

    def small_disk() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = run_shimgen("generate", cwd=tmp_path, preexec_fn=small_disk)
    assert done.returncode == 2, done.stdout + done.stderr
    line = _one_error_line(done.stderr)
    assert str(tmp_path / "generated") in line and "File too large" in line, line
    assert _snapshot(tmp_path / "generated") == before  # no new file replaced an old one, no temporary left
    again = run_shimgen("generate", cwd=tmp_path)  # and with room, the new set is written
    assert again.returncode == 0 and _snapshot(tmp_path / "generated") != before


def test_directory_where_an_output_goes_is_found_before_anything_is_replaced(write_config, run_cli, tmp_path):
    write_config(SMALL)
    assert run_cli("generate", "-c", tmp_path / "shimgen.toml").code == 0
    before = _snapshot(tmp_path / "generated")
    (tmp_path / "generated" / "shimgen.map").unlink()
    (tmp_path / "generated" / "shimgen.map").mkdir()
    write_config(SMALL.replace('"aoti_torch_a"', '"aoti_torch_a", "aoti_torch_b"'))
    result = run_cli("generate", "-c", tmp_path / "shimgen.toml")
    assert result.code == 2
    line = _one_error_line(result.err)
    assert line == f"shimgen: error: {tmp_path / 'generated' / 'shimgen.map'}: Is a directory"
    after = _snapshot(tmp_path / "generated")
    assert after["export.h"] == before["export.h"] and after["manifest.json"] == before["manifest.json"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_output_directory(write_config, run_cli, tmp_path):
    write_config(SMALL)
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated").chmod(0o555)
    try:
        result = run_cli("generate", "-c", tmp_path / "shimgen.toml")
    finally:
        (tmp_path / "generated").chmod(0o755)
    assert result.code == 2 and "Permission denied" in _one_error_line(result.err)


def test_overlong_output_name_is_one_line(write_config, run_cli, tmp_path):
    name = "h" * 300 + ".h"
    write_config(SMALL + f'[outputs]\nheader = "{name}"\n')
    result = run_cli("generate", "-c", tmp_path / "shimgen.toml")
    assert result.code == 2, result.err
    line = _one_error_line(result.err)
    assert "File name too long" in line or "header" in line, line


def test_nul_in_an_output_name_is_one_line(write_config, run_cli, tmp_path):
    write_config(SMALL + '[outputs]\nheader = "a\\u0000b.h"\n')
    result = run_cli("generate", "-c", tmp_path / "shimgen.toml")
    assert result.code == 2 and "\x00" not in result.err
    _one_error_line(result.err)


@pytest.mark.parametrize("depth", [200_000])
def test_deeply_nested_toml_is_one_line(write_config, run_cli, tmp_path, depth):
    write_config('prefix = "acme_"\nsymbols = ["aoti_torch_a"]\nx = ' + "[" * depth + "]" * depth + "\n")
    result = run_cli("generate", "-c", tmp_path / "shimgen.toml")
    assert result.code == 2
    line = _one_error_line(result.err)
    assert str(tmp_path / "shimgen.toml") in line and "nested too deeply" in line, line


def test_deeply_nested_manifest_json_is_one_line(run_cli, tmp_path):
    manifest = tmp_path / "manifest.json"
    manifest.write_text("[" * 200_000 + "]" * 200_000)
    binary = Path(sys.executable).resolve()
    result = run_cli("check-symbols", binary, "--manifest", manifest)
    assert result.code == 2
    line = _one_error_line(result.err)
    assert "nested too deeply" in line and str(manifest) in line, line


def test_output_that_is_a_directory_is_refused_before_the_work(run_cli, tmp_path):
    (tmp_path / "out").mkdir()
    binary = Path(sys.executable).resolve()
    for argv in (["check-symbols", binary, "--prefix", "acme_", "-o", tmp_path / "out"],
                 ["prefix-imports", tmp_path / "missing.so", "-o", tmp_path / "out"],
                 ["recompile", tmp_path / "missing.pt2", "-o", tmp_path / "out"]):
        result = run_cli(*argv)
        assert result.code == 2, argv
        assert _one_error_line(result.err) == f"shimgen: error: -o {tmp_path / 'out'}: is a directory; name the output file"


# ---- item 12: what comes from input is printed inert ----

@pytest.mark.parametrize("raw, shown", [
    ("plain", "plain"),
    ("a\nb", "a\\nb"),
    ("\x1b[31mred", "\\x1b[31mred"),
    ("bidi\u202eevil", "bidi\\u202eevil"),
    ("tab\there\r", "tab\\there\\r"),
    ("é ü 名前", "é ü 名前"),  # printable non-ASCII stays as it is
])
def test_printable_escapes_only_what_a_terminal_acts_on(raw, shown):
    assert printable(raw) == shown


def test_control_characters_from_a_config_do_not_reach_the_terminal(write_config, run_cli, tmp_path):
    write_config('prefix = "acme_\\n\\u001b[2J"\nsymbols = ["aoti_torch_a"]\n')
    result = run_cli("generate", "-c", tmp_path / "shimgen.toml")
    assert result.code == 2
    assert "\x1b" not in result.err and "\n" not in result.err.rstrip("\n")
    assert "\\x1b" in result.err or "\\n" in result.err, result.err


def test_symbol_with_escape_in_a_binary_is_printed_escaped(tmp_path):
    """An ESC in a symbol name (patched into the string tables: no assembler writes one) is shown
    escaped by check-symbols and symbols, never sent to the terminal."""
    import shutil
    import subprocess

    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    source = tmp_path / "esc.c"
    source.write_text("void aoti_torch_QQQQcleared(void) {}\n")
    library = tmp_path / "libesc.so"
    subprocess.run([gcc, "-shared", "-fPIC", str(source), "-o", str(library)], check=True)
    data = library.read_bytes()
    assert data.count(b"QQQQ") >= 1
    library.write_bytes(data.replace(b"QQQQ", b"\x1b[2J"))
    for argv in (["check-symbols", library, "--prefix", "acme_"], ["symbols", library]):
        done = run_shimgen(*argv, env_extra={"NO_COLOR": "1"})
        assert done.returncode in (0, 1), done.stderr
        assert "\x1b" not in done.stdout + done.stderr, (argv, done.stdout)
        assert "aoti_torch_\\x1b[2Jcleared" in done.stdout, done.stdout


# ---- item 13: special files never block shimgen run ----

@pytest.mark.parametrize("role", ["model", "input"])
def test_fifo_as_model_or_input_is_refused_at_once(tmp_path, role):
    pytest.importorskip("numpy")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    model = tmp_path / "m.pt2"
    model.write_bytes(b"PK")
    argv = ["run", fifo] if role == "model" else ["run", model, "--input", fifo]
    done = run_shimgen(*argv, "--runtime", tmp_path / "no-runtime.so", cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stderr
    assert _one_error_line(done.stderr) == f"shimgen: error: {fifo}: not a regular file (the {'model file' if role == 'model' else 'input .npy file'} must be one)"


@pytest.mark.parametrize("how", ["default -o .", "same dir by another spelling", "-o is a file"])
def test_run_refuses_outputs_over_an_input_or_a_file_before_running(tmp_path, how):
    """'shimgen run m.pt2 -i output_0.npy' wrote its output over the input; '-o FILE' failed only after
    the run. Both are refused before the runtime or the model is even looked at."""
    np = pytest.importorskip("numpy")
    model = tmp_path / "m.pt2"
    model.write_bytes(b"PK")
    given = tmp_path / "output_0.npy"
    np.save(given, np.arange(4, dtype=np.float32))
    before = given.read_bytes()
    (tmp_path / "sub").mkdir()
    out = {"default -o .": [], "same dir by another spelling": ["-o", "sub/.."], "-o is a file": ["-o", "output_0.npy"]}
    done = run_shimgen("run", model, "-i", "output_0.npy", *out[how], "--runtime", tmp_path / "no-runtime.so",
                       cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stderr
    line = _one_error_line(done.stderr)
    assert ("not a directory" if how == "-o is a file" else "would be overwritten by the output") in line, line
    assert given.read_bytes() == before


@pytest.mark.parametrize("planted", ["fifo", "link to /dev/zero"])
def test_a_special_file_at_an_output_path_neither_hangs_nor_fills_memory(tmp_path, planted):
    """generate compares each output with what is there before writing: a FIFO at generated/export.h
    blocked that read forever, and a link to /dev/zero read until MemoryError ('internal error'). The
    output replaces what was planted (the rename replaces a link, never its target)."""
    (tmp_path / "shimgen.toml").write_text('prefix = "acme_"\nsymbols = ["aoti_torch_a"]\n')
    header = tmp_path / "generated" / "export.h"
    header.parent.mkdir()
    if planted == "fifo":
        os.mkfifo(header)
    else:
        header.symlink_to("/dev/zero")
    done = run_shimgen("-q", "generate", cwd=tmp_path, timeout=60,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert header.is_file() and not header.is_symlink() and "aoti_torch_a" in header.read_text()


def test_a_fifo_as_manifest_is_refused_at_once(tmp_path):
    fifo = tmp_path / "manifest.json"
    os.mkfifo(fifo)
    done = run_shimgen("check-symbols", Path(sys.executable).resolve(), "--manifest", fifo, timeout=60)
    assert done.returncode == 2
    assert _one_error_line(done.stderr) == f"shimgen: error: {fifo}: cannot read manifest: not a regular file"


# ---- item 14: the device is checked before a runtime is found or built ----

@pytest.mark.parametrize("device", ["cuda:x", "cuda:", "gpu", "cpu:1", "cuda:٣", "cuda:0:1"])
def test_bad_device_string_fails_before_any_build(run_cli, tmp_path, monkeypatch, device):
    from shimgen.build import runtime_cache

    def no_build(*args, **kwargs):
        raise AssertionError("a runtime was looked for")

    monkeypatch.setattr(runtime_cache, "find_or_build", no_build)
    model = tmp_path / "m.pt2"
    model.write_bytes(b"PK")
    result = run_cli("run", model, "--device", device)
    assert result.code == 2
    assert _one_error_line(result.err) == f"shimgen: error: device '{device}': expected cpu, cuda or cuda:N"


@pytest.mark.parametrize("count, device, expected", [
    (0, "cuda", "device 'cuda': no CUDA device here"),
    (1, "cuda:1", "device 'cuda:1': this machine has 1 CUDA device(s), cuda:0 to cuda:0"),
])
def test_missing_cuda_device_fails_before_any_build(run_cli, tmp_path, monkeypatch, count, device, expected):
    from shimgen.aoti import runner
    from shimgen.build import runtime_cache

    looked = []
    monkeypatch.setattr(runtime_cache, "find_or_build", lambda *a, **k: looked.append(1) or tmp_path / "none.so")
    monkeypatch.setattr(runner, "cuda_device_count", lambda: count)
    model = tmp_path / "m.pt2"
    model.write_bytes(b"PK")
    result = run_cli("run", model, "--device", device)
    assert result.code == 2 and not looked
    assert _one_error_line(result.err).startswith(f"shimgen: error: {expected}")


def test_real_probe_answers_fast_on_this_machine():
    """The probe itself (ctypes, libcuda.so.1's cuDeviceGetCount): an int, in well under a second,
    wherever this runs (0 without a driver)."""
    import time

    from shimgen.aoti.capi import cuda_device_count

    began = time.perf_counter()
    count = cuda_device_count()
    assert isinstance(count, int) and count >= 0
    assert time.perf_counter() - began < 5  # generous: a CUDA runtime build takes about 70 s


def test_failure_summary_shows_cmake_error_block_not_its_last_lines():
    from shimgen.build.process import failure_summary

    output = ("-- The CXX compiler identification is GNU 12.2.0\n-- Found CUDAToolkit\n"
              "CMake Error at cmake/cublas.cmake:12 (message):\n  shimgen_runtime: cuBLAS not found: pip install\n"
              "  nvidia-cublas\nCall Stack (most recent call first):\n  CMakeLists.txt:98 (include)\n\n\n"
              "-- Configuring incomplete, errors occurred!\nSee also \"/b/CMakeFiles/CMakeOutput.log\".\n")
    assert failure_summary(output) == ("CMake Error at cmake/cublas.cmake:12 (message): shimgen_runtime: cuBLAS "
                                       "not found: pip install nvidia-cublas")
    assert failure_summary("a.c: In function 'f':\na.c:3:1: error: expected ';'\nninja: build stopped\n") == \
        "a.c:3:1: error: expected ';'"
    assert failure_summary("line1\nline2\nline3\nline4\n") == "line2 | line3 | line4"


def test_failed_captured_configure_names_the_cause(tmp_path):
    """A real CMake configure, captured as a first-use build runs it: the error says why."""
    from shimgen.build import cmake
    from shimgen.errors import ToolError

    tools = cmake.find_tools()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(p NONE)\n"
        'message(FATAL_ERROR "shimgen_runtime: cuBLAS not found (pip install nvidia-cublas)")\n')
    init, _ = cmake.write_init_cache(tmp_path / "build", {})
    with pytest.raises(ToolError) as raised:
        cmake.configure(tools, tmp_path / "src", tmp_path / "build", init, stream=False)
    (problem,) = raised.value.problems
    assert "cuBLAS not found (pip install nvidia-cublas)" in problem and "Configuring incomplete" not in problem


# ---- item 20: a long streamed step says it is still running ----

def test_streamed_tool_gets_a_heartbeat_line(monkeypatch, caplog):
    import logging

    from shimgen.build import process

    monkeypatch.setattr(process, "HEARTBEAT_SECONDS", 0.2)
    with caplog.at_level(logging.INFO, logger="shimgen"):
        process.run([sys.executable, "-c", "import time; time.sleep(1.1)"], what="the slow step", stream=True)
    beats = [r.getMessage() for r in caplog.records if "still running" in r.getMessage()]
    assert len(beats) >= 2 and all(b.startswith("the slow step: still running after ") for b in beats), beats
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="shimgen"):
        process.run([sys.executable, "-c", "pass"], what="the quick step", stream=True)
    assert not [r for r in caplog.records if "still running" in r.getMessage()]  # the control
