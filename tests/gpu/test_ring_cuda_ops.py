"""The CUDA ops of the wider ring (tests/arch_ring.py; src/ops/cuda/: scatter, the scans, pdist and the
complex elementwise ops on the device, views as metadata, the others host-staged through the CPU ops,
index_put_out and grid_sampler_3d among them) against torch's CUDA kernels on the same inputs, in one child process
(tests/gpu/ring_cuda_cases.py, torch beside the runtime the session's ``cuda`` fixture built); each
case asserted here, each with a refused argument as its negative control."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _tensors import run_case_driver  # noqa: E402 (HERE put on sys.path just above)

CASES = ["scans-float32", "scans-bfloat16", "scans-device-float32", "scans-device-float16", "scans-device-bfloat16",
         "pdist-float32", "pdist-bfloat16",
         *(f"scatter-reduce-{d}{s}" for d in ("float32", "float16", "bfloat16", "float64", "int64", "int32")
           for s in ("", "-inplace")),
         *(f"scatter-assign-{d}" for d in ("int64", "bool", "float32", "bfloat16")),
         *(f"scatter-duplicates-{d}" for d in ("float32", "int64", "bfloat16")),
         "scatter-complex", "scatter-slices-float32", "scatter-slices-bfloat16",
         *(f"fused-cells-{d}" for d in ("float32", "float64", "float16", "bfloat16")),
         "kthvalue-median", "searchsorted-int64", "searchsorted-int32", "cdist",
         "embedding-bag-sum", "embedding-bag-mean", "embedding-bag-max", "baddbmm-float32", "baddbmm-bfloat16",
         "index-reduce-prod", "index-reduce-mean", "index-reduce-amax", "index-reduce-amin", "nonzero",
         "conv-transposed-float32", "conv-transposed-bfloat16", "conv-layouts-float32", "conv-layouts-bfloat16", "host-staged-generated",
         "addbmm-masked-select", "segments-stats",
         "random-sources",
         # issue 22, real architectures (FNet, fft, mode_counts, DeepSeek-V2): views, complex elementwise
         # and index_Tensor's gather on the device, host-staged FFTs (cuFFT's layouts) and mode, copy_ into complex
         *(f"views-{d}" for d in ("complex64", "complex128")),
         # complex layers (FNO spectral convolutions): slice_Tensor and reshape, views or a device copy
         *(f"slice-reshape-{d}" for d in ("complex64", "complex128")),
         *(f"complex-elementwise-{d}" for d in ("complex64", "complex128")),
         # torch.cat of complex tensors on CUDA (Qwen-Image's rotary table; the CPU shim's rules)
         *(f"cat-{d}" for d in ("complex64", "complex128", "bfloat16")),
         *(f"fft-c2c-{d}" for d in ("complex64", "complex128")), *(f"fft-r2c-{d}" for d in ("float32", "float64")),
         *(f"mode-{d}" for d in ("float32", "bfloat16", "float16", "int64")),
         *(f"index-tensor-{d}" for d in ("float32", "bfloat16", "float16")), "copy-to-complex",
         *(f"index-put-{d}{a}" for d in ("float32", "int64", "bfloat16") for a in ("", "-accumulate")), "index-put-bool",
         *(f"grid-sampler-3d-{m}-{p}" for m in ("bilinear", "nearest") for p in ("zeros", "border", "reflection")),
         "linalg-float32", "linalg-float64", "hann-window",
         # float8 linears on Hopper: _scaled_mm (out and functional), host-staged
         "scaled-mm"]


@pytest.fixture(scope="module")
def results(cuda) -> dict[str, dict]:
    pytest.importorskip("torch")
    return run_case_driver(HERE / "ring_cuda_cases.py", cuda.rt)


@pytest.mark.parametrize("case", CASES)
def test_ring_cuda_op_matches_torch(results, case):
    row = results.get(case)
    assert row is not None, f"the case runner did not report {case}"
    print(f"{case}: {row['detail']}")
    assert row["ok"], row["detail"]

