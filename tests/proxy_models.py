"""Models whose compiled code goes through AOTInductor's proxy executor (ops without a C shim).

    python tests/proxy_models.py OUT_DIR [--device cpu|cuda]

Writes OUT_DIR/<name>/{model.pt2, in<i>.npy, out<i>.npy} for each model below (compiled by stock
torch, link_libtorch=False) and skips a model whose directory is already complete for this torch.
  grouped_mm:  transformers' MoE fallback op (transformers::grouped_mm_fallback), which the runtime
               serves by its mm_out shims: a Mixtral-style expert GEMM over token groups.
  custom_op:   an op of this file's own library (shimgen_test::twice), which no runtime serves: the
               package must be refused with a message that names the op.
  linalg_checks: torch.linalg.cholesky and inv, whose generated code checks LAPACK's info through
               aten::_linalg_check_errors: run on a matrix that is not positive-definite, the model
               must fail with torch's own message.
  linalg_shapes: the linalg proxy targets in float64 where the ring's float32 models do not reach:
               batch dims that broadcast (a [2, 3, 4, 4] against B [4, 2]), vector right-hand sides,
               left=False, wide matrices (qr complete, svd, lu, pinv with atol/rtol tensors),
               transposed (strided) inputs, matrix_exp. Every output (out<i>.npy) is compared.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import sys
from pathlib import Path

import numpy as np
import torch


@torch.library.custom_op("shimgen_test::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2


@twice.register_fake
def _(x: torch.Tensor) -> torch.Tensor:
    return torch.empty_like(x)


class GroupedMM(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        import transformers.integrations.moe  # noqa: F401 - registers torch.ops.transformers.grouped_mm_fallback

        self.weight = torch.nn.Parameter(torch.randn(4, 32, 24))

    def forward(self, x: torch.Tensor, offs: torch.Tensor) -> torch.Tensor:
        y = torch.ops.transformers.grouped_mm_fallback(torch.nn.functional.silu(x), self.weight, offs)
        return y + 1.0


class CustomOp(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.shimgen_test.twice(x + 1.0) * 3.0


class LinalgChecks(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.linalg.cholesky(x) + torch.linalg.inv(x)


class LinalgShapes(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
        a = x @ x.mT + 4 * torch.eye(4, dtype=x.dtype, device=x.device)
        lu, piv = torch.linalg.lu_factor(a)
        q, r = torch.linalg.qr(w, mode="complete")
        u, s, vh = torch.linalg.svd(w, full_matrices=False)
        p, lo, up = torch.linalg.lu(w)
        tol = torch.tensor(0.1, dtype=w.dtype, device=w.device)
        return (torch.linalg.solve(a, y), torch.linalg.solve(a, y[:, 0]), torch.linalg.solve(a[0, 0], y.mT, left=False),
                torch.linalg.lu_solve(lu, piv, y), torch.linalg.lu_solve(lu, piv, y.mT, left=False),
                torch.linalg.solve_triangular(torch.triu(a), y, upper=True), q @ r, r.abs(), (u * s.unsqueeze(-2)) @ vh,
                torch.linalg.svdvals(w.mT), p @ lo @ up, torch.linalg.pinv(w, atol=tol, rtol=tol / 10),
                torch.linalg.pinv(w), torch.linalg.eigh(a.mT).eigenvalues, torch.linalg.cholesky(a.mT),
                torch.linalg.det(a), torch.linalg.slogdet(a).logabsdet, torch.linalg.inv(a.mT),
                torch.linalg.householder_product(*torch.geqrf(w.mT)).abs(), torch.linalg.eigvals(a[0]).real,
                torch.linalg.matrix_exp(x.mT))


def _inputs(name: str, device: str) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(0)
    if name == "linalg_checks":  # positive-definite: the run that compiles it passes the checks
        x = torch.randn(2, 4, 4, generator=g)
        return ((x @ x.mT + 4 * torch.eye(4)).to(device),)
    if name == "linalg_shapes":
        return tuple(torch.randn(*shape, generator=g, dtype=torch.float64).to(device)
                     for shape in ((2, 3, 4, 4), (4, 2), (3, 5)))
    if name == "grouped_mm":
        # 12 tokens sorted by expert: 3, 0, 5, 4 tokens (an empty group and a ragged split).
        return (torch.randn(12, 32, generator=g).to(device), torch.tensor([3, 3, 8, 12], dtype=torch.int64).to(device))
    return (torch.randn(6, 5, generator=g).to(device),)


MODELS = {"grouped_mm": GroupedMM, "custom_op": CustomOp, "linalg_checks": LinalgChecks, "linalg_shapes": LinalgShapes}


def compile_one(out: Path, name: str, device: str) -> None:
    directory = out / name
    stamp = directory / "meta.json"
    # The model's source is part of the key: an edited model (linalg_shapes grows) is compiled again.
    source = hashlib.sha256(inspect.getsource(MODELS[name]).encode()).hexdigest()[:16]
    key = {"torch": torch.__version__, "device": device, "format": 1, "source": source}
    if stamp.is_file() and json.loads(stamp.read_text()) == key:
        return
    directory.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    model = MODELS[name]().to(device).eval()
    inputs = _inputs(name, device)
    with torch.no_grad():
        expected = model(*inputs)
    exported = torch.export.export(model, inputs)
    torch._inductor.aoti_compile_and_package(exported, package_path=str(directory / "model.pt2"),
                                             inductor_configs={"aot_inductor.link_libtorch": False})
    for i, tensor in enumerate(inputs):
        np.save(directory / f"in{i}.npy", tensor.cpu().numpy())
    for i, tensor in enumerate(expected if isinstance(expected, tuple) else (expected,)):
        np.save(directory / f"out{i}.npy", tensor.cpu().numpy())
    stamp.write_text(json.dumps(key))


def main(argv: list[str]) -> int:
    device = "cpu"
    if "--device" in argv:
        device = argv[argv.index("--device") + 1]
        argv = [a for a in argv if a not in ("--device", device)]
    for name in MODELS:
        compile_one(Path(argv[0]), name, device)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
