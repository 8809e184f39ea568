"""Fixtures of the native-op tests (test_cpu_*_ops.py): the CPU runtime loaded with the shared prefix
(`rt`, per module), a tensor-handle bridge that frees what a test made (`hs`, per test) and a
proxy-executor driver that calls one proxy target at a time (`driver`, per module;
tests/proxy_driver.py). A module that needs another runtime defines its own `rt`."""

from __future__ import annotations

import pytest

from tests.aoti_helpers import PREFIX


@pytest.fixture(scope="module")
def rt(cpu_runtime):
    from shimgen.aoti.runner import Runtime

    return Runtime(cpu_runtime.library, PREFIX)


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
