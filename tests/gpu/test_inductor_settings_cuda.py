"""Inductor's own CUDA settings (the CPU sweep: docs/aoti.md "Inductor's own settings"): a transformer
block (layer norm, causal SDPA, GELU MLP, weights as parameters) compiled by torch for CUDA under each
setting a user might turn on, rewritten by `shimgen prefix-imports`, run by `shimgen run --device
cuda:0` beside libtorch_cpu.so and libtorch_cuda.so, and compared with eager CUDA (TF32 off on both
sides). A setting this torch does not know is skipped with its name; a setting whose compile fails in
torch is skipped with torch's reason (nothing of shimgen's ran).

Settings: the defaults; ``max_autotune`` (Triton GEMM templates instead of cuBLAS), with Hopper's
persistent TMA matmul; ``coordinate_descent_tuning``; ``triton.autotune_at_compile_time``;
``combo_kernels``; ``aot_inductor.embed_kernel_binary`` (cubins inside the .so), with
``emit_multi_arch_kernel`` (a fatbin); ``aot_inductor.use_runtime_constant_folding``; ``freezing``;
``aot_inductor.debug_compile``; ``size_asserts`` off; and the block in bfloat16 (default and
max-autotune).

    python tests/gpu/test_inductor_settings_cuda.py compile OUT NAME    (one package; the test's child)
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

pytestmark = [pytest.mark.gpu, pytest.mark.slow]

# name -> (inductor settings, dtype, tolerance against eager CUDA)
SETTINGS: dict[str, tuple[dict[str, object], str, float]] = {
    "default": ({}, "float32", 5e-5),
    "max_autotune": ({"max_autotune": True}, "float32", 5e-5),
    "persistent_tma": ({"max_autotune": True, "triton.enable_persistent_tma_matmul": True}, "float32", 5e-5),
    "coordinate_descent": ({"coordinate_descent_tuning": True}, "float32", 5e-5),
    "autotune_at_compile_time": ({"triton.autotune_at_compile_time": True}, "float32", 5e-5),
    "combo_kernels": ({"combo_kernels": True}, "float32", 5e-5),
    "embed_kernel_binary": ({"aot_inductor.embed_kernel_binary": True}, "float32", 5e-5),
    "multi_arch": ({"aot_inductor.embed_kernel_binary": True, "aot_inductor.emit_multi_arch_kernel": True},
                   "float32", 5e-5),
    "constant_folding": ({"aot_inductor.use_runtime_constant_folding": True}, "float32", 5e-5),
    "freezing": ({"freezing": True}, "float32", 5e-5),
    "debug_compile": ({"aot_inductor.debug_compile": True}, "float32", 5e-5),
    "size_asserts_off": ({"size_asserts": False}, "float32", 5e-5),
    "bf16": ({}, "bfloat16", 0.05),
    "bf16_max_autotune": ({"max_autotune": True}, "bfloat16", 0.05),
}
BATCH, SEQ, WIDTH = 2, 16, 64


def block(dtype):
    import torch

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.norm2 = torch.nn.LayerNorm(WIDTH), torch.nn.LayerNorm(WIDTH)
            self.qkv, self.proj = torch.nn.Linear(WIDTH, 3 * WIDTH), torch.nn.Linear(WIDTH, WIDTH)
            self.up, self.down = torch.nn.Linear(WIDTH, 4 * WIDTH), torch.nn.Linear(4 * WIDTH, WIDTH)

        def forward(self, x):  # a float32 input, computed in the block's dtype, a float32 output
            x = x.to(self.qkv.weight.dtype)
            q, k, v = self.qkv(self.norm1(x)).view(BATCH, SEQ, 3, 4, WIDTH // 4).permute(2, 0, 3, 1, 4)
            a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(BATCH, SEQ, WIDTH))
            return (x + self.down(torch.nn.functional.gelu(self.up(self.norm2(x))))).float()

    torch.manual_seed(0)
    return Block().to("cuda", getattr(torch, dtype)).eval()


def compile_one(out: Path, name: str) -> None:
    """One package (out/NAME.pt2), its input and eager output, or out/NAME.skip with the reason."""
    import torch
    import torch._inductor.config as inductor_config

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    settings, dtype, _ = SETTINGS[name]
    known = inductor_config.get_config_copy()
    unknown = [key for key in settings if key not in known]
    if unknown:
        (out / f"{name}.skip").write_text(f"this torch has no inductor setting {', '.join(unknown)}")
        return
    model = block(dtype)
    x = torch.randn(BATCH, SEQ, WIDTH, device="cuda")
    with torch.no_grad():
        expected = model(x)
        try:
            torch._inductor.aoti_compile_and_package(
                torch.export.export(model, (x,)), package_path=str(out / f"{name}.pt2"),
                inductor_configs={"aot_inductor.link_libtorch": False, **settings})
        except Exception as error:  # torch's own failure: the case is skipped with its reason
            (out / f"{name}.skip").write_text(f"torch could not compile it: {type(error).__name__}: "
                                              f"{str(error).strip().splitlines()[0][:400]}")
            return
    np.save(out / f"{name}.in.npy", x.cpu().numpy())
    np.save(out / f"{name}.expected.npy", expected.cpu().numpy())


@pytest.fixture(scope="module")
def compiled(cuda, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("inductor-settings-cuda")

    def child(name: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(out / "cache" / name)}
        return subprocess.run([sys.executable, __file__, "compile", str(out), name], capture_output=True, text=True,
                              env=env, timeout=900)

    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        for name, done in zip(SETTINGS, pool.map(child, SETTINGS)):
            if done.returncode != 0 and not (out / f"{name}.skip").exists():
                (out / f"{name}.skip").write_text(f"the compiling child failed: {done.stderr.strip()[-600:]}")
    return out


@pytest.mark.parametrize("name", list(SETTINGS))
def test_block_under_setting_matches_eager_beside_libtorch(cuda, compiled, name, tmp_path):
    import torch

    from tests.aoti_helpers import prefix_imports_cli, run_on_cuda_beside_libtorch

    skip = compiled / f"{name}.skip"
    if skip.exists():
        pytest.skip(skip.read_text())
    target = tmp_path / f"{name}.prefixed.pt2"
    prefix_imports_cli(compiled / f"{name}.pt2", target)
    done = run_on_cuda_beside_libtorch(target, [compiled / f"{name}.in.npy"], cuda.rt.path, tmp_path / "out")
    assert done.returncode == 0, done.stderr[-3000:]
    got, expected = np.load(tmp_path / "out" / "output_0.npy"), np.load(compiled / f"{name}.expected.npy")
    assert got.shape == expected.shape and got.dtype == expected.dtype
    tolerance = SETTINGS[name][2]
    assert np.allclose(got, expected, atol=tolerance, rtol=0), f"{name}: max diff {np.abs(got - expected).max()}"
    assert np.abs(expected).max() > 0.1 and torch.isfinite(torch.from_numpy(got)).all()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "compile":
        compile_one(Path(sys.argv[2]), sys.argv[3])
    else:
        sys.exit(pytest.main([__file__, "-q", "-s"]))
