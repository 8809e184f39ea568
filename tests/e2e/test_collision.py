"""The collision proof: a plugin compiled against the prefixed shims binds to them even when a
library exporting the plain names was loaded first, with RTLD_GLOBAL; the same plugin compiled
without the prefix binds to that other library (the negative control: this test can fail).

Each load happens in a fresh subprocess (collision_probe.py), so a wrong binding cannot take
pytest down. The shim layer is examples/cmake-consumer, built with the CMake package.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.e2e._collision import IMPOSTOR_RESULT, IMPOSTOR_SOURCE, SHIM_RESULT, libtorch_cpu_path, probe, same_file
from tests.e2e._native import EXAMPLE, build_example, c_compiler, run

if not sys.platform.startswith("linux"):
    pytest.skip("the probe uses ELF dynamic-linking semantics", allow_module_level=True)


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


@pytest.fixture(scope="module")
def libtorch_cpu() -> Path:
    path = libtorch_cpu_path()
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
