"""The collision proof: a plugin compiled against the prefixed shims binds to them even when a
library exporting the plain names was loaded first, with RTLD_GLOBAL; the same plugin compiled
without the prefix binds to that other library (the negative control: this test can fail).

Each load happens in a fresh subprocess (collision_probe.py), so a wrong binding cannot take
pytest down. The shim layer is examples/cmake-consumer, built with the CMake package.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e._native import EXAMPLE, build_example, c_compiler, run

if not sys.platform.startswith("linux"):
    pytest.skip("the probe uses ELF dynamic-linking semantics", allow_module_level=True)

PROBE = Path(__file__).with_name("collision_probe.py")

# The impostor returns values that differ from the real shims (6, 4, 0), so behaviour tells the two
# apart as well as dladdr() does.
IMPOSTOR_SOURCE = """
#include <stdint.h>
int32_t aoti_torch_dtype_float32(void) { return 1006; }
int32_t aoti_torch_dtype_int64(void) { return 1004; }
int32_t aoti_torch_device_type_cpu(void) { return 1000; }
"""
SHIM_RESULT = 6 * 100 + 4 * 10 + 0
IMPOSTOR_RESULT = 1006 * 100 + 1004 * 10 + 1000


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_example(tmp_path_factory.mktemp("cmake-consumer"))


@pytest.fixture(scope="module")
def shim_library(example: Path) -> Path:
    return example / "libacme_shims.so"


@pytest.fixture(scope="module")
def prefixed_plugin(example: Path) -> Path:
    return example / "libacme_model.so"


@pytest.fixture(scope="module")
def plain_plugin(example: Path) -> Path:
    """The same plugin source, compiled without the prefix definition (what a dependent gets when
    the definition does not reach it). It still links: a shared object may leave names undefined."""
    output = example / "plain" / "libacme_model_plain.so"
    output.parent.mkdir(exist_ok=True)
    generated = example / "shimgen" / "shimgen_prefix"
    run([c_compiler(), "-shared", "-fPIC", "-O1", EXAMPLE / "plugin" / "model.c",
         f"-I{EXAMPLE / 'include'}", f"-I{generated}", f"-L{example}", "-lacme_shims",
         f"-Wl,-rpath,{example}", "-o", output])
    return output


@pytest.fixture(scope="module")
def impostor(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("impostor")
    source = directory / "impostor.c"
    source.write_text(IMPOSTOR_SOURCE)
    output = directory / "libimpostor.so"
    run([c_compiler(), "-shared", "-fPIC", source, "-o", output])
    return output


def probe(plugin: Path, *, global_libs: tuple[Path, ...] = (), local_libs: tuple[Path, ...] = ()) -> dict:
    command = [sys.executable, str(PROBE)]
    command += [arg for lib in global_libs for arg in ("--global", str(lib))]
    command += [arg for lib in local_libs for arg in ("--local", str(lib))]
    command.append(str(plugin))
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"probe crashed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return json.loads(result.stdout.strip().splitlines()[-1])


def same_file(a: str, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def test_prefixed_plugin_binds_to_the_shim_library_despite_the_impostor(
    impostor: Path, shim_library: Path, prefixed_plugin: Path
) -> None:
    result = probe(prefixed_plugin, global_libs=(impostor,), local_libs=(shim_library,))
    assert same_file(result["file"], shim_library), result
    assert result["symbol"] == "acme_aoti_torch_dtype_float32"
    assert result["value"] == SHIM_RESULT


def test_negative_control_plain_plugin_binds_to_the_impostor(
    impostor: Path, shim_library: Path, plain_plugin: Path
) -> None:
    result = probe(plain_plugin, global_libs=(impostor,), local_libs=(shim_library,))
    assert same_file(result["file"], impostor), result
    assert result["symbol"] == "aoti_torch_dtype_float32"
    assert result["value"] == IMPOSTOR_RESULT


def test_plain_plugin_alone_cannot_reach_the_prefixed_library(shim_library: Path, plain_plugin: Path) -> None:
    # Without anyone exporting the plain names, the unprefixed plugin does not load at all: the
    # shim library exports only acme_* names, so nothing of it answers to the plain name.
    result = probe(plain_plugin, local_libs=(shim_library,))
    assert "load_error" in result and "aoti_torch_" in result["load_error"], result


def _libtorch_cpu() -> Path | None:
    spec = importlib.util.find_spec("torch")  # no import: only the library file is needed
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / "lib" / "libtorch_cpu.so"
    return path if path.is_file() else None


@pytest.fixture(scope="module")
def libtorch_cpu() -> Path:
    path = _libtorch_cpu()
    if path is None:
        pytest.skip("torch is not installed (libtorch_cpu.so exports the plain aoti_torch_* names)")
    return path


def test_prefixed_plugin_binds_to_the_shim_library_beside_real_libtorch(
    libtorch_cpu: Path, shim_library: Path, prefixed_plugin: Path
) -> None:
    result = probe(prefixed_plugin, global_libs=(libtorch_cpu,), local_libs=(shim_library,))
    assert same_file(result["file"], shim_library), result
    assert result["symbol"] == "acme_aoti_torch_dtype_float32"


def test_negative_control_plain_plugin_binds_to_real_libtorch(
    libtorch_cpu: Path, shim_library: Path, plain_plugin: Path
) -> None:
    result = probe(plain_plugin, global_libs=(libtorch_cpu,), local_libs=(shim_library,))
    assert same_file(result["file"], libtorch_cpu), result
    assert result["symbol"] == "aoti_torch_dtype_float32"
