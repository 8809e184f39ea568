"""Issue 22's CUDA fallback ops (cuDNN-path attention, topk, sort_stable, histc, rand, randint_low_out,
_weight_int4pack_mm, new_uninitialized_tensor) against torch's CUDA kernels on the same inputs.

The comparisons run in one child process (tests/gpu/cuda_fallback_cases.py), which imports torch
beside the runtime built by the session's ``cuda`` fixture; each case is asserted here. Every case
also carries its negative control: a refused argument (code 2, outputs untouched) or, for the
random ops, a second call that must differ.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _tensors import run_case_driver  # noqa: E402 (HERE put on sys.path just above)


@pytest.fixture(scope="module")
def results(cuda) -> dict[str, dict]:
    pytest.importorskip("torch")
    return run_case_driver(HERE / "cuda_fallback_cases.py", cuda.rt)


# The int4 mm kernel variants (cuda_fallback_cases.INT4_VARIANTS; the runtime's SHIMGEN_INT4_MM_KERNEL).
INT4_VARIANTS = ("general", "staged1", "staged2", "staged4", "swap8x4", "swap16x2", "swap32x1", "swap16x1",
                 "swapS16x8", "swapS8x8", "swapS32x4", "swapS2p8x8", "swapS2p16x4",
                 "swapS16x8n", "swapS2p16x4n", "swapS8x8m16", "swapS16x8m16",
                 "swapS16x8g", "swapS8x16g")
CASES = [
    *[f"topk-moe-{d}" for d in ("float32", "bfloat16", "float16")],
    "topk-sampling-bf16", "topk-smallest-dim0-strided", "topk-errors",
    *[f"sort-stable-{d}" for d in ("float32", "bfloat16", "float16")],
    "sort-stable-descending-int64-strided",
    *[f"histc-moe-{d}" for d in ("float32", "bfloat16", "float16")], "histc-data-range", "histc-int32-expert-ids",
    *[f"rand-{d}" for d in ("float32", "bfloat16", "float16")], "randint-low-out",
    "new-uninitialized-tensor",
    *[f"cudnn-attention-{d}-hkv{h}-causal" for d in ("float32", "bfloat16", "float16") for h in (8, 2)],
    *[f"cudnn-attention-{d}-bias" for d in ("float32", "bfloat16", "float16")],
    *[f"int4pack-mm-inner{i}-m{m}" for i in (2, 4, 8) for m in (1, 2, 4, 5, 8, 16, 33)],
    *[f"int4pack-mm-group{g}" for g in (32, 64, 256)], "int4pack-mm-strided-a",
    "int4pack-mm-ragged-k", "int4pack-mm-row-pad", "int4pack-mm-row-pad8", "int4pack-mm-ragged-n-m1",
    "int4pack-mm-ragged-n-m6",
    *[f"int4pack-mm-{v}-{shape}" for v in INT4_VARIANTS
      for shape in [*(f"inner{i}-m{m}" for i in (2, 4, 8) for m in ((1, 8, 13, 16) if v.endswith("m16") else (1, 3, 8))),
                    "group32-pad", "group256"]],
]


@pytest.mark.parametrize("case", CASES)
def test_cuda_fallback_matches_torch(results, case):
    row = results.get(case)
    assert row is not None, f"the case runner did not report {case}"
    print(f"{case}: {row['detail']}")
    assert row["ok"], row["detail"]
