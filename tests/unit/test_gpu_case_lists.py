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


@pytest.fixture
def ring_cuda(monkeypatch):
    """tests/gpu/test_ring_cuda.py as a module (it imports on any machine; its tests skip without a GPU)."""
    pytest.importorskip("torch")
    monkeypatch.syspath_prepend(str(GPU_TESTS))
    monkeypatch.syspath_prepend(str(GPU_TESTS.parent))
    yield importlib.import_module("test_ring_cuda")
    sys.modules.pop("test_ring_cuda", None)


def test_every_cuda_tolerance_names_a_model(ring_cuda):
    """tests/gpu/test_ring_cuda.py's per-model CUDA tolerances are looked up by name: a misspelt key would
    leave its model at the default without a word."""
    import aoti_zoo

    assert sorted(set(ring_cuda.CUDA_TOLERANCE) - set(aoti_zoo.models())) == []


def test_a_mismatch_is_upstream_only_where_torchs_loader_gives_shimgens_outputs(ring_cuda):
    """tests/gpu/test_ring_cuda.py's arbitration, on plain arrays: an expected failure only where torch's
    own loader also misses eager and shimgen is within the tolerance of the loader, or far nearer to it
    than it is to eager (a model that amplifies rounding); a failure otherwise."""
    import numpy as np

    differs = ring_cuda.compiled_model_differs
    eager = [np.zeros(4, np.float32)]
    far = [np.full(4, 1e4, np.float32)]
    assert differs(far, far, eager, 1e-3, 0.0)  # shimgen equals the loader, both far from eager
    assert differs([far[0] + 50], far, eager, 1e-3, 0.0)  # 50 apart, 200x nearer the loader than eager
    assert not differs([far[0] + 500], far, eager, 1e-3, 0.0)  # only 20x nearer: shimgen's difference
    assert not differs(far, eager, eager, 1e-3, 0.0)  # the loader matches eager
    assert not differs([np.full(4, np.nan, np.float32)], far, eager, 1e-3, 0.0)  # NaN where the loader is not
    assert not differs([far[0][:2]], far, eager, 1e-3, 0.0)  # another shape
