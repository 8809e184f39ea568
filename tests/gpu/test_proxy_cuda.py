"""The proxy executor's special functions on the GPU: tests/proxy_models.py's `special` model compiled
for CUDA by stock torch (its special functions have no Triton code, so inductor leaves them to aten
and the compiled code calls them through the proxy executor), rewritten by `shimgen prefix-imports`,
run by `shimgen run --device cuda:0` beside libtorch, against eager torch. The runtime computes them
on the host (special_math.h, in double). The special model's reference is torch's CPU kernels
(tests/proxy_models.py: torch's CUDA ones are jiterated, and compiling them on first call took over
240 s on the H200); the functions inductor writes in Triton compute in float on the device: hence
wider tolerances than the CPU test's (tests/integration/test_proxy_executor.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.aoti_helpers import prefix_imports_cli, run_on_cuda_beside_libtorch, torch_lib_dir

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import proxy_models  # noqa: E402 (tests/ put on sys.path just above)

pytestmark = [pytest.mark.gpu, pytest.mark.slow]
# The per-function entries are torch's own float64 error where its kernel is the less accurate one
# (checked against mpmath: tests/integration/test_proxy_executor.py's SPECIAL_TOLERANCE says where).
CUDA_SPECIAL_TOLERANCE = {  # (dtype, kind or output name) -> (rtol, atol)
    ("float32", "function"): (1e-4, 1e-6), ("float32", "polynomial"): (2e-3, 1e-4),
    ("float64", "function"): (1e-12, 1e-13), ("float64", "polynomial"): (1e-10, 1e-12),
    ("float32", "special_airy_ai"): (1e-4, 5e-6), ("float64", "special_airy_ai"): (1e-12, 5e-6),
    ("float64", "polygamma(1)"): (1e-9, 1e-13),
    **{("float64", name): (1e-12, 1e-9) for name in ("igamma", "igammac", "special_gammainc", "special_gammaincc")},
}


def _compile_and_run_on_cuda(name: str, cuda, tmp_path: Path) -> Path:
    """tests/proxy_models.py's model `name` compiled for CUDA (cached), prefixed, run beside libtorch;
    its outputs land in tmp_path. Returns the model's folder (inputs and eager outputs)."""
    torch_lib_dir()
    import aoti_zoo

    out = aoti_zoo.cache_root() / "proxy-models-cuda"
    completed = subprocess.run([sys.executable, str(REPO / "tests" / "proxy_models.py"), str(out), "--device", "cuda",
                                name], capture_output=True, text=True, timeout=1800, check=False)
    assert completed.returncode == 0, completed.stderr[-3000:]
    directory = out / name
    target = tmp_path / "model.pt2"
    prefix_imports_cli(directory / "model.pt2", target)
    inputs = sorted(directory.glob("in*.npy"), key=lambda p: int(p.stem[2:]))
    completed = run_on_cuda_beside_libtorch(target, inputs, cuda.rt.path, tmp_path, timeout=600)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return directory


def test_special_functions_through_the_proxy_on_cuda(cuda, tmp_path):
    directory = _compile_and_run_on_cuda("special", cuda, tmp_path)
    proxy_models.assert_special_matches(tmp_path, directory, CUDA_SPECIAL_TOLERANCE)


def test_grid_samplers_through_the_proxy_on_cuda(cuda, tmp_path):
    """tests/proxy_models.py's `grid_sampler` model compiled for CUDA: grid_sampler_3d forced onto the
    proxy (torch 2.11's CUDA path) and cudnn_grid_sampler (torch's cuDNN route for 4-D bilinear /
    zeros / align_corners=True), served by the runtime's grid_sampler_3d shim, against eager CUDA."""
    import numpy as np

    directory = _compile_and_run_on_cuda("grid_sampler", cuda, tmp_path)
    for i in range(4):
        got, want = np.load(tmp_path / f"output_{i}.npy"), np.load(directory / f"out{i}.npy")
        assert got.shape == want.shape and got.dtype == want.dtype, i
        assert np.allclose(got, want, atol=1e-4, rtol=0), (i, float(np.abs(got - want).max()))
