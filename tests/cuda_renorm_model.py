"""torch's CUDA ``embedding_renorm_`` kernel (renorm_kernel in aten/src/ATen/native/cuda/Embedding.cu, as
published) on one float32 row, in its float arithmetic: norm types 1 and 2 sum |x| and x*x, any other
sums pow(x, p) without |x| (so negative entries subtract, and a non-integer p gives NaN, which never
renorms); the norm is pow(sum, 1/p); a row above max_norm is scaled by max_norm / (norm + 1e-7).

The runtime implements the same rule for a CUDA weight (shimgen/runtime/src/ops/cpu/embedding_renorm.cpp);
tests/integration/test_runtime.py runs both on ROWS, and tests/gpu/test_cuda_renorm_model.py checks this
model against torch's own CUDA kernel on the GPU machine.
"""

from __future__ import annotations

import random

import numpy as np


def torch_cuda_renorm(row: list[float], p: float, max_norm: float) -> np.ndarray:
    x, q = np.asarray(row, dtype=np.float32), np.float32(p)
    with np.errstate(all="ignore"):
        acc = np.abs(x).sum(dtype=np.float32) if q == 1 else (x * x).sum(dtype=np.float32) if q == 2 else \
            np.power(x, q).sum(dtype=np.float32)
        norm = np.power(acc, np.float32(1) / q)
        if not norm > np.float32(max_norm):
            return x
        return x * np.float32(float(np.float32(max_norm)) / (float(norm) + 1e-7))


def cpu_rule(row: list[float], p: float, max_norm: float) -> np.ndarray:
    """torch's CPU kernel: the true p-norm of |x| (p = 0 counts nonzeros, inf takes the largest)."""
    x = np.abs(np.asarray(row, dtype=np.float64))
    norm = (x > 0).sum() if p == 0 else x.max() if p == float("inf") else (x ** p).sum() ** (1 / p)
    return np.float32(row) * (np.float32(max_norm / (norm + 1e-7)) if norm > max_norm else np.float32(1))


def rows(seed: int = 22) -> list[tuple[float, float, list[float]]]:
    """(norm_type, max_norm, row): every norm type F.embedding takes, signs mixed, lengths 1 to 33."""
    generator = random.Random(seed)
    out = []
    for p in (1.0, 2.0, 3.0, 0.5, 4.0, 0.0, float("inf")):
        for max_norm in (0.5, 1.5, 3.0):
            for _ in range(4):
                out.append((p, max_norm, [round(generator.uniform(-2, 2), 3)
                                          for _ in range(generator.choice([1, 3, 8, 33]))]))
        out.append((p, 1.0, [0.5, 1.5, 2.0, 0.25]))  # all positive: both rules agree
    return out
