"""The runtime and its native tests under AddressSanitizer + UBSan, and under ThreadSanitizer.

Built with the opt-in `shimgen build --sanitize` option (CMake cache entry SHIMGEN_RUNTIME_SANITIZE).
The compiled test programs run directly: preloading libasan into a Python process that then loads
the library through ctypes does not mix well, so no ctypes here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from shimgen.builder.builder import BuildOptions, build
from shimgen.errors import UsageError
from shimgen.project.config import load_config
from shimgen.resources import default_config

# heavy: two more whole-runtime builds (ASan+UBSan, TSan; about 4.5 minutes on 2 cores), out of CI's
# default run; `python -m pytest -m heavy` runs them.
pytestmark = [pytest.mark.heavy,
              pytest.mark.skipif(shutil.which("c++") is None and shutil.which("g++") is None, reason="no C++ compiler")]

NATIVE_CASES = ["no_guard", "null_is_selection", "nesting", "per_thread", "stress", "prefixed_calls", "tensors"]
# Any report fails the process (-fno-sanitize-recover=all, halt_on_error); leaks are errors too.
SANITIZER_ENV = {
    "ASAN_OPTIONS": "detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=86",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    "TSAN_OPTIONS": "halt_on_error=1:exitcode=86",
}


def _require_sanitizer(tmp_path: Path, sanitizers: tuple[str, ...]) -> None:
    """Skip (with the reason) where this toolchain or kernel cannot run the sanitizer at all: no
    runtime library installed, or TSan refusing the kernel's address-space layout."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    source, program = tmp_path / "probe.c", tmp_path / "probe"
    source.write_text("int main(void){return 0;}\n")
    built = subprocess.run([compiler, f"-fsanitize={','.join(sanitizers)}", str(source), "-o", str(program)],
                           capture_output=True, text=True)
    if built.returncode != 0:
        pytest.skip(f"-fsanitize={','.join(sanitizers)} does not link here: {built.stderr.strip()[:200]}")
    ran = _run(str(program))
    if ran.returncode != 0:
        pytest.skip(f"a trivial -fsanitize={','.join(sanitizers)} program fails here: {ran.stderr.strip()[:200]}")


def _sanitized_build(tmp_path_factory, sanitizers: tuple[str, ...]) -> dict[str, str]:
    _require_sanitizer(tmp_path_factory.mktemp("probe"), sanitizers)
    build_dir = tmp_path_factory.mktemp("sanitize-" + "-".join(sanitizers))
    result = build(load_config(default_config()),
                   BuildOptions(build_dir, cuda="off", jobs=2, build_type="Debug", sanitize=sanitizers,
                                cache=(("SHIMGEN_RUNTIME_BUILD_TESTS", "ON"),)))
    assert result.check.exit_code == 0, result.check.text
    listing = dict(line.split("=", 1) for line in (build_dir / "shimgen-tests.txt").read_text().splitlines() if "=" in line)
    listing["library"] = str(result.artifacts[0].path)
    return listing


def _imports(path: str) -> str:
    if shutil.which("nm") is None:
        pytest.skip("nm not installed")
    return subprocess.run(["nm", "-D", "--undefined-only", path], capture_output=True, text=True, check=True).stdout


def _run(program: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([program, *args], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **SANITIZER_ENV})


@pytest.fixture(scope="module")
def asan(tmp_path_factory):
    return _sanitized_build(tmp_path_factory, ("address", "undefined"))


@pytest.fixture(scope="module")
def tsan(tmp_path_factory):
    return _sanitized_build(tmp_path_factory, ("thread",))


def test_asan_ubsan_build_is_instrumented(asan):
    """The flags reached the library and the test programs (else a clean run would prove nothing)."""
    for path in (asan["library"], asan["native_tests"], asan["c_consumer"]):
        imports = _imports(path)
        assert "__asan_" in imports, path
    assert "__ubsan_handle_" in _imports(asan["library"])


@pytest.mark.parametrize("case", NATIVE_CASES)
def test_native_cases_clean_under_asan_ubsan(asan, case):
    completed = _run(asan["native_tests"], case)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "runtime error" not in completed.stderr and "Sanitizer" not in completed.stderr, completed.stderr


@pytest.mark.parametrize("case", ["loader_errors", "guard_errors", "handle_misuse"])
def test_error_paths_clean_under_asan_lsan(asan, case, tmp_path):
    """The loader's and the guards' refusals (shimgen/runtime/tests/leak_tests.cpp) with LeakSanitizer on:
    malloc'd memory too, not only the C++ allocations the program counts itself."""
    from tests.support import write_loader_inputs

    args = {"loader_errors": [str(write_loader_inputs(tmp_path / "in", Path(asan["not_a_model"])))],
            "handle_misuse": [asan["fake_model"]]}.get(case, [])
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    completed = subprocess.run([asan["leak_tests"], case, *args], capture_output=True, text=True, timeout=300,
                               env={**os.environ, **SANITIZER_ENV, "TMPDIR": str(scratch)}, check=False)
    assert completed.returncode == 0 and f"{case}: ok" in completed.stdout, completed.stdout + completed.stderr[-4000:]
    assert "Sanitizer" not in completed.stderr and "runtime error" not in completed.stderr, completed.stderr[-4000:]


@pytest.mark.parametrize("case", ["packed_weight_cache", "small_attention", "free_lists"])
def test_cpu_fast_paths_clean_under_asan_ubsan(asan, case):
    """The small GEMM's weight cache, the small-shape attention (masked loads and stores at every
    16-lane edge) and the tensor paths without free lists (kept nothing: ASan sees every free)."""
    completed = _run(asan["internal_tests"], case)
    assert completed.returncode == 0 and f"{case}: ok" in completed.stdout, completed.stdout + completed.stderr
    assert "runtime error" not in completed.stderr and "Sanitizer" not in completed.stderr, completed.stderr


@pytest.mark.slow
def test_free_lists_clean_under_tsan(tsan):
    """Tensor handles made on one thread and freed on another, each thread's lists emptied at exit."""
    completed = _run(tsan["internal_tests"], "free_lists")
    assert completed.returncode == 0 and "free_lists: ok" in completed.stdout, completed.stdout + completed.stderr
    assert "WARNING: ThreadSanitizer" not in completed.stderr, completed.stderr


def test_c_consumer_clean_under_asan_ubsan(asan):
    completed = _run(asan["c_consumer"])
    assert completed.returncode == 0 and "c_consumer: ok" in completed.stdout, completed.stdout + completed.stderr
    assert "Sanitizer" not in completed.stderr and "runtime error" not in completed.stderr


@pytest.mark.slow
@pytest.mark.parametrize("case", ["stress", "per_thread", "nesting"])
def test_thread_cases_clean_under_tsan(tsan, case):
    assert "__tsan_" in _imports(tsan["library"]) and "__tsan_" in _imports(tsan["native_tests"])
    completed = _run(tsan["native_tests"], case)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "WARNING: ThreadSanitizer" not in completed.stderr, completed.stderr
    if case == "stress":
        assert "32 threads x 10000 nested iterations, 0 wrong observations" in completed.stdout


CONTROLS = {
    # The same flags the CMake option adds catch a real bug of each kind: the clean runs above are
    # not clean because the sanitizer is silent.
    ("address", "undefined"): "#include <stdlib.h>\nint main(int c, char** v){int* p = malloc(4 * sizeof(int));"
                              "int r = p[c + 3]; free(p); return r;}\n",
    ("thread",): "#include <pthread.h>\nint shared;\nvoid* bump(void* a){(void)a; for (int i = 0; i < 100000; ++i) "
                 "shared++; return 0;}\nint main(void){pthread_t t; pthread_create(&t, 0, bump, 0); bump(0); "
                 "pthread_join(t, 0); return shared == -1;}\n",
}


@pytest.mark.parametrize("sanitizers", list(CONTROLS), ids=lambda s: "+".join(s))
def test_control_bug_is_reported_with_the_same_flags(tmp_path, sanitizers):
    _require_sanitizer(tmp_path, sanitizers)
    compiler = shutil.which("cc") or shutil.which("gcc")
    source = tmp_path / "bug.c"
    source.write_text(CONTROLS[sanitizers])
    program = tmp_path / "bug"
    flags = [f"-fsanitize={','.join(sanitizers)}", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all", "-g"]
    subprocess.run([compiler, *flags, str(source), "-o", str(program), "-pthread"], check=True, capture_output=True)
    completed = _run(str(program))
    assert completed.returncode != 0 and "Sanitizer" in completed.stderr, completed.stderr


@pytest.mark.parametrize("sanitize, message", [
    (("memory",), "unknown sanitizer 'memory'"),
    (("thread", "address"), "thread cannot be combined"),
])
def test_bad_sanitizer_lists_are_usage_errors(tmp_path, sanitize, message):
    with pytest.raises(UsageError, match=message):
        build(load_config(default_config()), BuildOptions(tmp_path / "b", sanitize=sanitize))
    assert not (tmp_path / "b").exists()  # refused before touching the build directory


def test_cli_parses_the_sanitize_list(monkeypatch, tmp_path):
    from shimgen.builder import builder as build_module
    from shimgen.cli import main

    seen = {}

    def fake_build(config, options, **progress):
        seen["options"] = options
        raise UsageError("stop here")

    monkeypatch.setattr(build_module, "build", fake_build)
    assert main(["build", "-B", str(tmp_path / "b"), "--sanitize", "address, undefined", "--no-wait"]) == 2
    assert seen["options"].sanitize == ("address", "undefined") and seen["options"].wait is False


def test_cmake_rejects_an_unknown_sanitizer_itself(tmp_path):
    """Plain CMake users get the same check (the option is a cache entry, not only a CLI flag)."""
    from shimgen.builder import cmake as cmake_driver
    from shimgen.generate.render import render, write
    from shimgen.project.config import with_overrides
    from shimgen.project.shims import resolve_shims
    from shimgen.resources import runtime_dir

    config = load_config(default_config())
    generated = with_overrides(config, output_dir=tmp_path / "generated")
    write(render(generated, resolve_shims(config)))
    tools = cmake_driver.find_tools()
    completed = subprocess.run([str(tools.cmake), "-S", str(runtime_dir()), "-B", str(tmp_path / "b"), "-G", "Ninja",
                                f"-DCMAKE_MAKE_PROGRAM={tools.ninja}", f"-DSHIMGEN_GENERATED_DIR={tmp_path / 'generated'}",
                                "-DSHIMGEN_RUNTIME_CUDA=OFF", "-DSHIMGEN_RUNTIME_SANITIZE=address,memory"],
                               capture_output=True, text=True)
    assert completed.returncode != 0 and "unknown sanitizer 'memory'" in completed.stderr, completed.stderr
