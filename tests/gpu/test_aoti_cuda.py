"""Issue 8 on the GPU: a CUDA AOTInductor model, rewritten, runs on the CUDA runtime (scripts/gpu_aoti_cuda.sh)."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.gpu
@pytest.mark.slow
def test_cuda_model_on_the_prefixed_runtime(tmp_path):
    if importlib.util.find_spec("torch") is None:
        pytest.skip("needs torch with CUDA")
    completed = subprocess.run(["bash", str(REPO / "scripts" / "gpu_aoti_cuda.sh"), str(tmp_path)], cwd=REPO,
                               capture_output=True, text=True, timeout=1500)
    print(completed.stdout)  # the imported CUDA shims and the latencies, for the closing note
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-4000:]
    assert completed.stdout.count("[PASS]") == 8  # pointwise, reduction and the six zoo models
