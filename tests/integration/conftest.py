"""Fixtures of the native-op tests (test_cpu_*_ops.py): the CPU runtime loaded with the shared prefix
(`rt`, per module) and a tensor-handle bridge that frees what a test made (`hs`, per test). A module
that needs another runtime defines its own `rt`."""

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
