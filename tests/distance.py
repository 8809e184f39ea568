"""How far a model's outputs are from eager's, one definition for every table's checks (scripts/zoo_cpu.py,
scripts/ring_sensitivity.py, scripts/cuda_arbiter.py, tests/gpu/test_ring_cuda.py): elementwise
|got - expected| in float64, where equal values (infinities included) and NaN against NaN count 0 and
any other NaN counts as infinite."""

from __future__ import annotations

import numpy as np


def differences(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """|got - expected| elementwise, by the rule above."""
    g, e = got.astype(np.float64), expected.astype(np.float64)
    with np.errstate(invalid="ignore"):
        diff = np.where((g == e) | (np.isnan(g) & np.isnan(e)), 0.0, np.abs(g - e))
    return np.nan_to_num(diff, nan=np.inf, posinf=np.inf)


def max_difference(got: np.ndarray, expected: np.ndarray, rtol: float = 0.0) -> float:
    """Largest difference less rtol * |expected| (what exceeds the relative part of a tolerance; it can be
    negative), equal elements counting 0; 0 for empty arrays."""
    diff = differences(got, expected)
    if rtol:
        with np.errstate(invalid="ignore"):
            scale = np.abs(np.nan_to_num(expected.astype(np.float64)))
            diff = np.where(diff == 0.0, 0.0, diff - rtol * scale)
    return float(diff.max()) if diff.size else 0.0
