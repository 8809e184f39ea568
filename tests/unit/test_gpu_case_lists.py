"""The GPU case drivers and the tests that check them name the same cases.

tests/gpu/test_ring_cuda_ops.py and test_cuda_fallbacks.py assert one row per name in their CASES;
their drivers (ring_cuda_cases.py, cuda_fallback_cases.py) run every case of their own CASES. A case
added to a driver alone would run on the GPU with its result never checked (it happened: the
scatter-complex case of 2026-12-07). Checked here, on any machine, before a GPU call is spent.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

GPU_TESTS = Path(__file__).resolve().parents[1] / "gpu"


@pytest.mark.parametrize(("driver", "test"), [("ring_cuda_cases", "test_ring_cuda_ops"),
                                              ("cuda_fallback_cases", "test_cuda_fallbacks")])
def test_every_case_a_driver_runs_is_checked(driver, test, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.syspath_prepend(str(GPU_TESTS))
    ran = set(importlib.import_module(driver).CASES)
    checked = set(importlib.import_module(test).CASES)
    assert sorted(ran - checked) == [], f"{driver}.py runs cases that {test}.py never checks"
    assert sorted(checked - ran) == [], f"{test}.py checks cases that {driver}.py does not run"
    for name in (driver, test):
        sys.modules.pop(name, None)


def test_every_cuda_tolerance_names_a_model(monkeypatch):
    """tests/gpu/test_ring_cuda.py's per-model CUDA tolerances are looked up by name: a misspelt key would
    leave its model at the default without a word."""
    pytest.importorskip("torch")
    monkeypatch.syspath_prepend(str(GPU_TESTS))
    monkeypatch.syspath_prepend(str(GPU_TESTS.parent))
    import aoti_zoo

    ring_cuda = importlib.import_module("test_ring_cuda")
    try:
        assert sorted(set(ring_cuda.CUDA_TOLERANCE) - set(aoti_zoo.models())) == []
    finally:
        sys.modules.pop("test_ring_cuda", None)
