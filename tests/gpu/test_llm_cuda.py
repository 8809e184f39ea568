"""Issue 22 on the H200: transformers' decoders (Llama, Qwen2, Gemma3, a Mixtral-style MoE) and
encoders (BERT, ViT) from small random configs, in bfloat16, compiled by torch on CUDA
(tests/hf_models.py, link_libtorch=False), rewritten by `shimgen prefix-imports` and run by
`shimgen run --device cuda:0` in a process that has libtorch loaded first; every output is compared
with eager torch's on the same inputs.

bfloat16 decoders on Hopper import aoti_torch_cuda__scaled_dot_product_cudnn_attention; the MoE
imports topk, histc, _grouped_mm (or the proxy executor for transformers' fallback op) and
new_uninitialized_tensor. The negative control of each comparison: eager's output for the batch
reversed differs from eager's by more than the tolerance, so the tolerance can tell models apart.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.aoti_helpers import prefix_imports_cli, torch_lib_dir

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import hf_models  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.slow]
# Every model in bfloat16 (how decoders are served on Hopper); the MoE in float32 too, where
# transformers routes its experts through its own op (transformers::grouped_mm_fallback), which
# the generated code hands to the proxy executor.
CASES = [(name, "bfloat16") for name in hf_models.MODELS] + [("mixtral", "float32")]


def tolerance(expected: np.ndarray, dtype: str) -> float:
    if dtype == "float32":  # no TF32 on either side; summation order only
        return 2e-3 * max(1.0, float(np.abs(expected).max()))
    # bfloat16 keeps 8 significant bits; two layers of GEMMs, attention and norms in another
    # summation order than torch's kernels drift by a few units of the last place of the largest values.
    return 0.04 * max(1.0, float(np.abs(expected).max()))


@pytest.fixture(scope="module")
def compiled(cuda) -> dict[tuple[str, str], Path | str]:
    torch_lib_dir()
    pytest.importorskip("transformers")
    import aoti_zoo

    out = Path(os.environ.get("SHIMGEN_HF_CACHE") or aoti_zoo.cache_root() / "hf-models")
    result: dict[tuple[str, str], Path | str] = {}
    for dtype in sorted({d for _, d in CASES}):
        names = [n for n, d in CASES if d == dtype]
        result.update({(n, dtype): v for n, v in hf_models.ensure_compiled(out, names, "cuda", dtype).items()})
    return result


@pytest.mark.parametrize(("name", "dtype"), CASES)
def test_hf_model_matches_eager_on_the_runtime(cuda, compiled, name, dtype, tmp_path):
    directory = compiled[(name, dtype)]
    if not isinstance(directory, Path):
        # torch's own compiler failed (measured: the bf16 Mixtral on torch 2.11 + transformers 5.17,
        # an error in inductor's generated C++), before the runtime is involved: reported, not hidden.
        pytest.xfail(f"torch could not compile {name} ({dtype}): {directory}")
    meta = json.loads((directory / "meta.json").read_text())
    print(f"{name}: imports {[s for s in meta['imports'] if '_cuda_' in s or 'proxy' in s or 'uninit' in s]}")
    target = tmp_path / "model.pt2"
    prefix_imports_cli(directory / "model.pt2", target)
    lib = torch_lib_dir()
    env = {**os.environ, "LD_PRELOAD": f"{lib / 'libtorch_cpu.so'}:{lib / 'libtorch_cuda.so'}"}
    command = [sys.executable, "-m", "shimgen", "run", str(target), "-o", str(tmp_path), "--runtime", str(cuda.rt.path),
               "--device", "cuda:0", "--input", str(directory / "in0.npy")]
    completed = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=300, check=False)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    expected = np.load(directory / "out0.npy")
    got = np.load(tmp_path / "output_0.npy")
    assert got.shape == expected.shape and got.dtype == expected.dtype
    error = float(np.abs(got.astype(np.float64) - expected).max())
    limit = tolerance(expected, dtype)
    control = float(np.abs(expected - expected[::-1]).max())
    print(f"{name} ({dtype}): max |shimgen - eager| = {error:.3g} (tolerance {limit:.3g}; "
          f"eager vs its reversed batch: {control:.3g})")
    assert control > limit, "the tolerance cannot tell two different outputs apart"
    assert error <= limit
