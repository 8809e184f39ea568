"""The collision proof against the real shim runtime (libshimgen_runtime.so, prefix executorch_,
built CPU-only with `shimgen build`): a plugin calling aoti_torch_dtype_float32 through the
runtime's headers binds to executorch_aoti_torch_dtype_float32 in the runtime, beside an impostor
and beside real libtorch_cpu.so; built without the prefix, it binds to them instead."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tests.e2e._collision import IMPOSTOR_SOURCE, libtorch_cpu_path, probe, same_file
from tests.e2e._native import REPO, c_compiler, run

if importlib.util.find_spec("shimgen.builder.builder") is None or not (REPO / "shimgen" / "runtime" / "CMakeLists.txt").is_file():
    pytest.skip("the shim runtime and `shimgen build` are not in this checkout yet", allow_module_level=True)

PLUGIN_SOURCE = """
#include <shimgen_runtime/shim.h>
__attribute__((visibility("default"))) int32_t model_run(void) { return aoti_torch_dtype_float32(); }
__attribute__((visibility("default"))) const void *model_float32_shim(void) {
  return (const void *)&aoti_torch_dtype_float32;
}
"""


@pytest.fixture(scope="module")
def runtime(cpu_runtime):
    c_compiler()
    return cpu_runtime


@pytest.fixture(scope="module")
def runtime_library(runtime) -> Path:
    return runtime.library


def plugin(runtime, directory: Path, *, prefixed: bool) -> Path:
    source = directory / "model.c"
    source.write_text(PLUGIN_SOURCE)
    output = directory / ("libmodel_prefixed.so" if prefixed else "libmodel_plain.so")
    library = runtime.library
    definition = ["-DAOTI_SHIM_SYMBOL_PREFIX=executorch_"] if prefixed else []
    run([c_compiler(), "-shared", "-fPIC", *definition, f"-I{REPO / 'shimgen' / 'runtime' / 'include'}",
         f"-I{runtime.build_dir / 'generated'}", source, library, f"-Wl,-rpath,{library.parent}", "-o", output])
    return output


@pytest.fixture(scope="module")
def plugins(runtime, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("runtime-plugins")
    return {"prefixed": plugin(runtime, directory, prefixed=True), "plain": plugin(runtime, directory, prefixed=False)}


@pytest.fixture(scope="module")
def impostor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("runtime-impostor")
    (directory / "impostor.c").write_text(IMPOSTOR_SOURCE)
    run([c_compiler(), "-shared", "-fPIC", directory / "impostor.c", "-o", directory / "libimpostor.so"])
    return directory / "libimpostor.so"


def test_runtime_wins_over_the_impostor(impostor: Path, runtime_library: Path, plugins: dict) -> None:
    result = probe(plugins["prefixed"], global_libs=(impostor,), local_libs=(runtime_library,))
    assert same_file(result["file"], runtime_library), result
    assert result["symbol"] == "executorch_aoti_torch_dtype_float32"
    assert result["value"] == 6  # torch's code for float32, from the runtime (the impostor says 1006)


def test_negative_control_plain_plugin_reaches_the_impostor(impostor: Path, runtime_library: Path,
                                                            plugins: dict) -> None:
    result = probe(plugins["plain"], global_libs=(impostor,), local_libs=(runtime_library,))
    assert same_file(result["file"], impostor), result
    assert result["value"] == 1006


def test_runtime_wins_over_real_libtorch(runtime_library: Path, plugins: dict) -> None:
    libtorch = libtorch_cpu_path()
    if libtorch is None:
        pytest.skip("torch is not installed")
    result = probe(plugins["prefixed"], global_libs=(libtorch,), local_libs=(runtime_library,))
    assert same_file(result["file"], runtime_library), result
    plain = probe(plugins["plain"], global_libs=(libtorch,), local_libs=(runtime_library,))
    assert same_file(plain["file"], libtorch), plain
