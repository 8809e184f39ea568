"""Fixtures of the native-op tests (test_cpu_*_ops.py): the CPU runtime loaded with the shared prefix
(`rt`, per module), a tensor-handle bridge that frees what a test made (`hs`, per test) and a
proxy-executor driver that calls one proxy target at a time (`driver`, per module;
tests/proxy_driver.py). A module that needs another runtime defines its own `rt`.

SHIMGEN_GPU_PREBUILT (a CUDA build made elsewhere, as tests/gpu/conftest.py takes it) serves the CPU
ops too: on the GPU machine these tests then run against real torchvision and torch 2.11 without a
second, CPU-only build of the whole runtime."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.aoti_helpers import PREFIX


@pytest.fixture(scope="module")
def rt(request):
    from shimgen.aoti.runner import Runtime

    prebuilt = os.environ.get("SHIMGEN_GPU_PREBUILT")
    library = (Path(prebuilt) / "libshimgen_runtime.so" if prebuilt
               else request.getfixturevalue("cpu_runtime").library)
    return Runtime(library, PREFIX)


@pytest.fixture
def hs(rt):
    from tests.cpu_shim_tensors import Handles

    handles = Handles(rt)
    yield handles
    handles.close()


@pytest.fixture(scope="module")
def driver(rt, tmp_path_factory):
    from tests.proxy_driver import ProxyDriver

    return ProxyDriver(rt, tmp_path_factory.mktemp("proxy-driver"))
