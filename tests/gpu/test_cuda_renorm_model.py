"""The model of torch's CUDA embedding_renorm_ kernel (tests/cuda_renorm_model.py), which the runtime's
CUDA rule is tested against on CPU (tests/integration/test_runtime.py), against torch's own CUDA kernel.
Control: the CPU kernel's results differ from the CUDA kernel's on some rows (else this proves nothing)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.cuda_renorm_model import cpu_rule, rows, torch_cuda_renorm

pytestmark = [pytest.mark.gpu]


def test_the_renorm_model_is_torchs_cuda_kernel():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    differs_from_cpu = 0
    for p, max_norm, row in rows():
        weight = torch.tensor([row], dtype=torch.float32, device="cuda")
        with torch.no_grad():
            torch.embedding_renorm_(weight, torch.zeros(1, dtype=torch.long, device="cuda"), max_norm, p)
        got = weight[0].cpu().numpy()
        want = torch_cuda_renorm(row, p, max_norm)
        assert np.allclose(got, want, rtol=2e-6, atol=1e-7), (p, max_norm, row, got.tolist(), want.tolist())
        differs_from_cpu += not np.allclose(got, cpu_rule(row, p, max_norm), rtol=1e-5, atol=1e-6)
    print(f"{len(rows())} rows: torch's CUDA kernel equals the model; {differs_from_cpu} differ from the CPU rule")
    assert differs_from_cpu >= 10
