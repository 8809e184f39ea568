"""GPU test fixtures: skip without a CUDA device; build the runtime with CUDA once per session."""

from __future__ import annotations

import ctypes
import os
from ctypes import byref, c_int, c_void_p
from dataclasses import dataclass
from pathlib import Path

import pytest

from shimgen.aoti.capi import Runtime, cuda_device_count
from shimgen.builder.builder import BuildOptions, build, find_nvcc
from shimgen.project.config import load_config
from shimgen.resources import default_config

DEVICES = cuda_device_count()


def pytest_collection_modifyitems(config, items):
    skip = pytest.mark.skip(reason="no CUDA device")
    for item in items:
        if item.get_closest_marker("gpu") is not None and DEVICES == 0:
            item.add_marker(skip)


@dataclass
class Cuda:
    rt: Runtime
    kit: ctypes.CDLL
    devices: int
    native_tests: str
    listing: dict[str, str]  # shimgen-tests.txt: the native test programs and libraries, by name

    def stream(self, device: int = 0) -> int:
        out = c_void_p()
        assert self.kit.tk_stream_create(device, byref(out)) == 0
        return out.value

    def attributes(self, pointer: int) -> tuple[int, int]:
        kind, device = c_int(-1), c_int(-1)
        assert self.kit.tk_pointer_attributes(c_void_p(pointer), byref(kind), byref(device)) == 0
        return kind.value, device.value

    def current_device(self) -> int:
        out = c_int(-1)
        assert self.kit.tk_get_device(byref(out)) == 0
        return out.value


@pytest.fixture(scope="session")
def cuda(tmp_path_factory) -> Cuda:
    if DEVICES == 0:
        pytest.skip("no CUDA device")
    # SHIMGEN_GPU_PREBUILT: a CUDA build made elsewhere (with SHIMGEN_RUNTIME_BUILD_TESTS=ON and
    # checked there), used as it is: a GPU machine's time then goes to the tests, not to nvcc.
    # SHIMGEN_GPU_BUILD_DIR: a build directory to (re)use, so one GPU-machine session that built the
    # runtime already (scripts/gpu_issue22.sh) does not build it again.
    prebuilt = os.environ.get("SHIMGEN_GPU_PREBUILT")
    if prebuilt:
        # Its listings name the paths of the machine that built it: map them into this copy.
        build_dir = Path(prebuilt).resolve()
        built_at = Path((build_dir / "shimgen-artifacts.txt").read_text().splitlines()[0]).parent
        relocate = lambda path: str(build_dir / Path(path).relative_to(built_at))  # noqa: E731
        runtime_path = Path(relocate(built_at / "libshimgen_runtime.so"))
    else:
        if find_nvcc() is None:
            pytest.skip("no nvcc to build the CUDA runtime")
        reuse = os.environ.get("SHIMGEN_GPU_BUILD_DIR")
        build_dir = Path(reuse) if reuse else tmp_path_factory.mktemp("runtime-cuda")
        result = build(load_config(default_config()),
                       BuildOptions(build_dir, cuda="on", jobs=8, cache=(("SHIMGEN_RUNTIME_BUILD_TESTS", "ON"),)))
        assert result.cuda and result.check.exit_code == 0, result.check.text
        runtime_path = result.artifacts[0].path
        relocate = str
    listing = {key: relocate(value) for key, value in (
        line.split("=", 1) for line in (build_dir / "shimgen-tests.txt").read_text().splitlines() if "=" in line)}
    rt = Runtime(runtime_path, "executorch_", mode=ctypes.RTLD_GLOBAL)
    kit = ctypes.CDLL(listing["testkit"])
    kit.tk_spin.argtypes = [c_void_p, ctypes.c_uint64]
    kit.tk_stream_query.argtypes = [c_void_p]
    kit.tk_stream_sync.argtypes = [c_void_p]
    kit.tk_stream_destroy.argtypes = [c_void_p]
    return Cuda(rt, kit, DEVICES, listing["native_tests"], listing)
