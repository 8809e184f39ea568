"""Models whose compiled code goes through AOTInductor's proxy executor (ops without a C shim).

    python tests/proxy_models.py OUT_DIR [--device cpu|cuda] [NAME...]

Writes OUT_DIR/<name>/{model.pt2, in<i>.npy, out<i>.npy} for each model below (compiled by stock
torch, link_libtorch=False) and skips a model whose directory is already complete for this torch.
  grouped_mm:  transformers' MoE fallback op (transformers::grouped_mm_fallback), which the runtime
               serves by its mm_out shims: a Mixtral-style expert GEMM over token groups.
  custom_op:   an op of this file's own library (shimgen_test::twice), which no runtime serves: the
               package must be refused with a message that names the op.
  index_add:   bfloat16 index_add (aten::index_add: inductor leaves it to the proxy), with alpha given
               and at its default, beside bincount at its default minlength: arguments torch.export
               leaves out of the JSON that the generated call still passes as ints.
  special:     the elementwise special functions torch has no Triton code for (digamma, polygamma,
               special_ndtri, ...; SPECIAL below), forced to aten fallbacks on CPU too, so the CPU
               model takes the proxy path a CUDA model takes; inputs sweep each function's domain with
               its edge values (0, poles, +-inf, NaN). float64 inputs: the second half of the outputs.
  linalg_checks: torch.linalg.cholesky and inv, whose generated code checks LAPACK's info through
               aten::_linalg_check_errors: run on a matrix that is not positive-definite, the model
               must fail with torch's own message.
  linalg_shapes: the linalg proxy targets in float64 where the ring's float32 models do not reach:
               batch dims that broadcast (a [2, 3, 4, 4] against B [4, 2]), vector right-hand sides,
               left=False, wide matrices (qr complete, svd, lu, pinv with atol/rtol tensors),
               transposed (strided) inputs, matrix_exp. Every output (out<i>.npy) is compared.
  grid_sampler: F.grid_sample of a volume (aten::grid_sampler_3d, forced onto the proxy as torch 2.11
               on CUDA calls it: grid_sampler_fallbacks()) and aten::cudnn_grid_sampler (what torch
               on CUDA runs for 4-D bilinear / zeros / align_corners=True; given a CPU kernel and a
               meta kernel here, the 2-D sampler's, so the CPU model takes the CUDA model's path).
  embedding_renorm: F.embedding with max_norm (aten::embedding_renorm, the functional form of the
               in-place renorm): norm types 2, 1, inf, 3 and 0, repeated indices, rows never named, rows
               already within max_norm, int32 indices, a float64 transposed (strided) weight, bfloat16.
               Each renormed weight is returned beside the lookup, so untouched rows are compared too.
  histogramdd: torch.histogramdd's bin edges (aten::_histogramdd_bin_edges) and counts (the
               _histogramdd_from_bin_cts C shim): ranges from the data (a coordinate with one value
               widened by 0.5), given ranges, weights with density, float64, 3 coordinates.
  complex_arith: complex subtraction (alpha given), division (by a complex and a real; by a Python
               number torch 2.13's inductor cannot compile: AssertionError "got <class 'int'>"),
               exp and conjugation (aten::sub.Tensor, div.Tensor, exp, _conj_physical through the proxy
               on CPU), complex64 with broadcasting and complex128.
  unique_rows: torch.unique(dim=) (aten::unique_dim) over rows and over the middle dim of a 3-d
               tensor (values laid out with that dim outermost), unique_consecutive with a dim, and
               nanmedian along a dim (aten::nanmedian.dim) with NaN in rows, keepdim, float64.
  upsample_aa: F.interpolate with antialias=True (aten::_upsample_bilinear2d_aa / _bicubic2d_aa):
               downsampling by integer and fractional factors, upsampling, align_corners, a given
               scale_factor, a transposed (strided) input, float64 (torch's CPU kernel has no bfloat16).
"""

from __future__ import annotations

import contextlib
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


class IndexAdd(torch.nn.Module):
    def forward(self, x: torch.Tensor, i: torch.Tensor) -> torch.Tensor:
        h = torch.zeros(4, 6, dtype=torch.bfloat16, device=x.device).index_add(1, i, x.to(torch.bfloat16), alpha=2)
        g = torch.ones(5, 4, dtype=torch.bfloat16, device=x.device).index_add(0, i[:3].clamp(max=4),
                                                                            x.t()[:3].to(torch.bfloat16))
        return torch.cat([h.float().flatten(), g.float().flatten(), torch.bincount(i).float()])


class EmbeddingRenorm(torch.nn.Module):
    def forward(self, w: torch.Tensor, i: torch.Tensor, w64: torch.Tensor, j: torch.Tensor) -> tuple[torch.Tensor, ...]:
        F = torch.nn.functional
        a, b, c, d = w * 1.0, w * 2.0, w * 3.0, w64.mT * 1.0
        e, z = (w * 2.0).to(torch.bfloat16), w * 0.5
        return (F.embedding(i, a, max_norm=1.0), a, F.embedding(i, b, max_norm=2.0, norm_type=1.0), b,
                F.embedding(i, c, max_norm=1.5, norm_type=float("inf")), c, F.embedding(j, d, max_norm=0.5, norm_type=3.0),
                d, F.embedding(i, e, max_norm=1.0).float(), e.float(), F.embedding(i, z, max_norm=4.0, norm_type=0.0), z)


class Histogramdd(torch.nn.Module):
    def forward(self, x: torch.Tensor, x64: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, ...]:
        a = torch.histogramdd(x, bins=[4, 3, 2])
        b = torch.histogramdd(x[:, :2], bins=[5, 2], range=[-1.0, 1.5, -2.0, 2.0], weight=w, density=True)
        c = torch.histogramdd(x64, bins=[3, 3])
        return (a.hist, *a.bin_edges, b.hist, *b.bin_edges, c.hist, *c.bin_edges)


class ComplexArith(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, ...]:
        a, b = torch.complex(x, y), torch.complex(y[:1], x[:1])
        c = torch.complex(z, z.flip(-1))
        return tuple(torch.view_as_real(t) for t in (
            torch.sub(a, b, alpha=2), a / b, a / (y.abs() + 1), torch.exp(a), a.conj_physical(),
            torch.exp(c) - c.conj_physical() / (c + 1)))


class UniqueRows(torch.nn.Module):
    def forward(self, i: torch.Tensor, x: torch.Tensor, x64: torch.Tensor) -> tuple[torch.Tensor, ...]:
        u, inv, cnt = torch.unique(i, dim=0, return_inverse=True, return_counts=True)
        m = torch.unique(i.view(2, 4, 3), dim=1)
        c, cinv, ccnt = torch.unique_consecutive(i, dim=0, return_inverse=True, return_counts=True)
        q = x.masked_fill(x > 0.8, float("nan"))
        v, k = torch.nanmedian(q, dim=1)
        w, j = torch.nanmedian(x64.masked_fill(x64 < -1.0, float("nan")), dim=0, keepdim=True)
        return u, inv, cnt, m, c, cinv, ccnt, v, k, w, j


class UpsampleAA(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 4, stride=4)  # a patch stem: inductor lays its output channels-last

    def forward(self, x: torch.Tensor, x64: torch.Tensor) -> tuple[torch.Tensor, ...]:
        def aa(t, mode, **kw):
            return torch.nn.functional.interpolate(t, mode=mode, antialias=True, **kw)

        return (aa(x, "bilinear", size=(5, 7)), aa(x, "bicubic", size=(6, 5)), aa(x, "bilinear", size=(4, 4)),
                aa(x, "bicubic", size=(21, 30)), aa(x, "bilinear", size=(7, 9), align_corners=True),
                aa(x, "bicubic", size=(5, 8), align_corners=True), aa(x, "bilinear", scale_factor=0.4),
                aa(x.transpose(2, 3), "bicubic", size=(9, 4)), aa(x64, "bicubic", size=(5, 3)),
                # a channels-last input (a conv stem's output, as in timm's NaFlexViT and SAM ViT) gives a
                # channels-last result, whose strides the generated code checks
                aa(self.stem(x), "bicubic", size=(5, 6)) + 1)


aten = torch.ops.aten
# (op, operands): "x" any real, "p" a probability in [0, 1], "a" positive, "n" a polynomial degree.
SPECIAL = [
    (aten.digamma, "x"), (aten.special_ndtri, "p"), (aten.special_ndtr, "x"), (aten.special_log_ndtr, "x"),
    (aten.special_i0e, "x"), (aten.special_i1e, "x"), (aten.special_airy_ai, "x"),
    (aten.special_modified_bessel_k0, "a"), (aten.special_modified_bessel_k1, "a"),
    (aten.special_scaled_modified_bessel_k0, "a"), (aten.special_scaled_modified_bessel_k1, "a"),
    (aten.special_spherical_bessel_j0, "x"),
    (aten.igamma, "aa"), (aten.igammac, "aa"), (aten.special_gammainc, "aa"), (aten.special_gammaincc, "aa"),
    (aten.special_zeta, "aa"),
    *((getattr(aten, f"special_{k}"), "tn") for k in (
        "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
        "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w", "legendre_polynomial_p")),
    *((getattr(aten, f"special_{k}"), "xn") for k in ("hermite_polynomial_h", "hermite_polynomial_he",
                                                      "laguerre_polynomial_l")),
]
POLYGAMMA_ORDERS = (0, 1, 2, 3, 5)
# Decomposed by torch before inductor sees them (erf / log forms, the aliases of igamma and igammac):
# computed by the model's own code, never through the proxy, on CPU and CUDA alike.
DECOMPOSED = {"special_ndtr", "special_log_ndtr", "special_gammainc", "special_gammaincc"}


@contextlib.contextmanager
def special_fallbacks():
    """Inductor lowers these ops to its own C++ on CPU; make them aten fallbacks (the proxy executor),
    as they are on CUDA, while the model compiles."""
    from torch._inductor import lowering

    ops = [op.default for op, _ in SPECIAL] + [aten.polygamma.default]
    saved = {op: lowering.lowerings.get(op) for op in ops}
    for op in ops:
        lowering.lowerings[op] = lowering.fallback_handler(op, add_to_fallback_set=False)
    try:
        yield
    finally:
        for op, lowered in saved.items():
            lowering.lowerings[op] = lowered


class Special(torch.nn.Module):
    def forward(self, x, p, a, b, t, n, x64, p64, a64, b64, t64, n64):
        out = []
        for x_, p_, a_, b_, t_, n_ in ((x, p, a, b, t, n), (x64, p64, a64, b64, t64, n64)):
            operands = {"x": (x_,), "p": (p_,), "a": (a_,), "aa": (a_, b_), "tn": (t_, n_), "xn": (x_, n_)}
            out += [op(*operands[kind]) for op, kind in SPECIAL]
            out += [aten.polygamma(k, a_) for k in POLYGAMMA_ORDERS]
            out.append(aten.digamma(x_.t()))  # a strided operand
            out.append(aten.special_zeta(a_.t(), b_[:1, :40]))  # broadcast
        return tuple(out)


def _special_inputs() -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(1)
    inf, nan = float("inf"), float("nan")
    edges = torch.tensor([0.0, -0.0, -1.0, -2.0, -3.0, 0.5, -0.5, 1e-30, 1e-8, 1.0, 2.0, 30.0, 100.0, 1e30, inf,
                          -inf, nan, 7.5, -7.5, 12.0])
    x = torch.cat([torch.linspace(-12, 12, 2380), edges]).reshape(40, 60)
    p = torch.cat([torch.linspace(0, 1, 2390), torch.tensor([1e-30, 1e-10, 1 - 1e-7, 0.5, nan, -0.1, 1.1, 0.0, 1.0,
                                                             0.975])]).reshape(40, 60)
    a = torch.cat([torch.rand(2380, generator=g) * 20 + 1e-3, torch.tensor([1e-30, 1e-5, 0.5, 1.0, 2.0, 30.0, 200.0,
                                                                            inf, nan, 0.0, -1.0, 1e4] + [3.0] * 8)])
    b = torch.cat([torch.rand(2380, generator=g) * 20, torch.tensor([0.0, 1e-5, 0.5, 1.0, 2.0, 30.0, 200.0, inf,
                                                                     nan, 3.0, 3.0, 1e4] + [1.0] * 8)])
    t = torch.cat([torch.rand(2380, generator=g) * 2.2 - 1.1, torch.tensor([-1.0, 1.0, 0.0, 0.5, inf, nan] + [0.3] * 14)])
    n = torch.cat([torch.randint(0, 12, (2380,), generator=g).double(),
                   torch.tensor([-1.0, 0.0, 1.0, 2.0, 60.0, 200.0, nan, inf, 3.0, 4.0] + [5.0] * 10)])
    shaped = [v.reshape(40, 60) for v in (x, p, a, b, t, n)]
    return (*(v.float() for v in shaped), *(v.double() for v in shaped))


_ATEN_IMPL = torch.library.Library("aten", "IMPL")  # test-only kernels, this process only


def _cudnn_grid_sampler(x: torch.Tensor, grid: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.grid_sampler_2d(x, grid, 0, 0, True)


for _key in ("CPU", "Meta"):
    with contextlib.suppress(RuntimeError):  # a kernel already registered (a torch that has one): keep it
        _ATEN_IMPL.impl("cudnn_grid_sampler", _cudnn_grid_sampler, _key)


@contextlib.contextmanager
def grid_sampler_fallbacks():
    """torch 2.13 has a C shim for grid_sampler_3d; torch 2.11 (on CUDA) calls it through the proxy
    executor. Leave it out of the C-shim list while the model compiles: the proxy path."""
    from torchgen.aoti.fallback_ops import inductor_fallback_ops

    saved = inductor_fallback_ops.pop("aten.grid_sampler_3d.default", None)
    try:
        yield
    finally:
        if saved is not None:
            inductor_fallback_ops["aten.grid_sampler_3d.default"] = saved


class GridSampler(torch.nn.Module):
    def forward(self, v: torch.Tensor, g3: torch.Tensor, x: torch.Tensor, g2: torch.Tensor) -> tuple[torch.Tensor, ...]:
        border = torch.nn.functional.grid_sample(v, g3, mode="bilinear", padding_mode="border", align_corners=False)
        nearest = torch.nn.functional.grid_sample(v, g3, mode="nearest", padding_mode="zeros", align_corners=True)
        cudnn = torch.ops.aten.cudnn_grid_sampler(x, g2)
        strided = torch.ops.aten.cudnn_grid_sampler(x.transpose(2, 3), g2[:, :, :3])  # a strided self
        return border, nearest, cudnn, strided


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
    if name == "special":
        return tuple(v.to(device) for v in _special_inputs())
    g = torch.Generator().manual_seed(0)
    if name == "linalg_checks":  # positive-definite: the run that compiles it passes the checks
        x = torch.randn(2, 4, 4, generator=g)
        return ((x @ x.mT + 4 * torch.eye(4)).to(device),)
    if name == "linalg_shapes":
        return tuple(torch.randn(*shape, generator=g, dtype=torch.float64).to(device)
                     for shape in ((2, 3, 4, 4), (4, 2), (3, 5)))
    if name == "grid_sampler":  # grid points past the edges (-1.3 .. 1.3): zeros and border padding
        return (torch.randn(2, 3, 4, 5, 6, generator=g).to(device),
                (torch.rand(2, 3, 4, 5, 3, generator=g) * 2.6 - 1.3).to(device),
                torch.randn(2, 3, 7, 6, generator=g).to(device),
                (torch.rand(2, 4, 5, 2, generator=g) * 2.6 - 1.3).to(device))
    if name == "grouped_mm":
        # 12 tokens sorted by expert: 3, 0, 5, 4 tokens (an empty group and a ragged split).
        return (torch.randn(12, 32, generator=g).to(device), torch.tensor([3, 3, 8, 12], dtype=torch.int64).to(device))
    if name == "histogramdd":
        x = torch.randn(50, 3, generator=g)
        x[:, 2] = 0.25  # one value: its range widened to [-0.25, 0.75]
        return (x.to(device), torch.randn(30, 2, generator=g, dtype=torch.float64).to(device),
                torch.rand(50, generator=g).to(device))
    if name == "complex_arith":
        return (torch.randn(3, 6, generator=g).to(device), torch.randn(3, 6, generator=g).to(device),
                torch.randn(4, 5, generator=g, dtype=torch.float64).to(device))
    if name == "unique_rows":  # rows 0, 1 and 5 repeat; rows 1, 2 run; values drawn from three
        i = torch.tensor([[1, 0, 2], [0, 0, 1], [0, 0, 1], [2, 2, 0], [1, 1, 1], [1, 0, 2], [0, 2, 2], [1, 1, 1]])
        return (i.to(device), torch.randn(5, 7, generator=g).to(device),
                torch.randn(6, 3, generator=g, dtype=torch.float64).to(device))
    if name == "upsample_aa":
        return (torch.randn(2, 3, 12, 16, generator=g).to(device),
                torch.randn(1, 2, 11, 7, generator=g, dtype=torch.float64).to(device))
    if name == "embedding_renorm":  # rows 8 and 9 never named; 3 and 5 named more than once
        i = torch.tensor([[3, 0, 5, 3], [7, 5, 1, 2], [6, 4, 3, 0]])
        return (torch.randn(10, 6, generator=g).to(device), i.to(device),
                torch.randn(6, 10, generator=g, dtype=torch.float64).to(device), i[:2].to(torch.int32).to(device))
    if name == "index_add":  # repeated targets: the sums must round in torch's order
        return (torch.randn(4, 5, generator=g).to(device), torch.tensor([5, 0, 3, 5, 1]).to(device))
    return (torch.randn(6, 5, generator=g).to(device),)


MODELS = {"grouped_mm": GroupedMM, "custom_op": CustomOp, "special": Special, "index_add": IndexAdd,
          "linalg_checks": LinalgChecks, "linalg_shapes": LinalgShapes, "grid_sampler": GridSampler,
          "embedding_renorm": EmbeddingRenorm, "upsample_aa": UpsampleAA, "histogramdd": Histogramdd,
          "complex_arith": ComplexArith, "unique_rows": UniqueRows}


def compile_one(out: Path, name: str, device: str) -> None:
    directory = out / name
    stamp = directory / "meta.json"
    # The model's source is part of the key: an edited model (linalg_shapes grows) is compiled again.
    source = hashlib.sha256(inspect.getsource(MODELS[name]).encode()).hexdigest()[:16]
    # The special model's reference is torch's CPU kernels on every device: its CUDA kernels are
    # jiterated (NVRTC-compiled on first call), and eager CUDA spent over 240 s in that on the H200.
    reference = "cpu" if name == "special" else device
    key = {"torch": torch.__version__, "device": device, "reference": reference, "format": 2, "source": source}
    if stamp.is_file() and json.loads(stamp.read_text()) == key:
        return
    directory.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    model = MODELS[name]().to(device).eval()
    inputs = _inputs(name, device)
    with torch.no_grad():
        expected = model.to(reference)(*(t.to(reference) for t in inputs))
    model.to(device)
    exported = torch.export.export(model, inputs)
    forced = {"special": special_fallbacks, "grid_sampler": grid_sampler_fallbacks}.get(name)
    with forced() if forced is not None and (name == "grid_sampler" or device == "cpu") else contextlib.nullcontext():
        torch._inductor.aoti_compile_and_package(exported, package_path=str(directory / "model.pt2"),
                                                 inductor_configs={"aot_inductor.link_libtorch": False})
    for i, tensor in enumerate(inputs):
        np.save(directory / f"in{i}.npy", tensor.cpu().numpy())
    for i, tensor in enumerate(expected if isinstance(expected, tuple) else (expected,)):
        np.save(directory / f"out{i}.npy", tensor.cpu().numpy())
    stamp.write_text(json.dumps(key))


def special_names() -> list[str]:
    """The special model's outputs per dtype, in order (float32's, then the same for float64)."""
    return ([op.__name__ for op, _ in SPECIAL] + [f"polygamma({k})" for k in POLYGAMMA_ORDERS]
            + ["digamma (strided)", "special_zeta (broadcast)"])


def assert_special_matches(got_dir: Path, model_dir: Path, tolerance: dict) -> None:
    """Each output_<i>.npy of got_dir against model_dir's out<i>.npy: |got - want| <= atol + rtol |want|
    with (rtol, atol) = tolerance[(dtype, name)] where given, else tolerance[(dtype, "polynomial" or
    "function")], NaN where want is NaN (or +-inf for a float32 polynomial, below), equal infinities.
    Prints one line per output (with its largest relative and absolute difference); fails naming every
    function outside its tolerance."""
    names = special_names()
    lines, failures = [], []
    for i in range(2 * len(names)):
        got, want = np.load(got_dir / f"output_{i}.npy"), np.load(model_dir / f"out{i}.npy")
        name = names[i % len(names)]
        assert got.shape == want.shape and got.dtype == want.dtype, name
        kind = "polynomial" if "polynomial" in name else "function"
        rtol, atol = tolerance.get((str(want.dtype), name), tolerance[(str(want.dtype), kind)])
        same = (got == want) | (np.isnan(got) & np.isnan(want))
        if kind == "polynomial" and want.dtype == np.float32:
            # torch's float32 recurrence overflows to inf - inf = NaN where the value (computed in double
            # here, then rounded) is beyond float's range: +-inf is the right float32 answer.
            same |= np.isinf(got) & np.isnan(want)
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            diff = np.abs(got.astype(np.float64) - want)
            near = diff <= atol + rtol * np.abs(want.astype(np.float64))
            finite = ~same & np.isfinite(diff)
            rel = np.where(finite & (np.abs(want) > np.finfo(want.dtype).tiny), diff / np.abs(want), 0)
        off = ~same & ~near
        worst = f"max rel {rel.max(initial=0):.1e}, max abs {np.where(finite, diff, 0).max(initial=0):.1e}"
        lines.append(f"{want.dtype} {name}: {int((~same).sum())} of {want.size} not bit-equal ({worst}),"
                     f" {int(off.sum())} outside")
        if off.any():
            failures.append(f"{want.dtype} {name}: {int(off.sum())} elements, e.g. got {got[off][:3]} want {want[off][:3]}")
    print("\n".join(lines))
    assert not failures, "\n".join(failures)


def main(argv: list[str]) -> int:
    device = "cpu"
    if "--device" in argv:
        device = argv[argv.index("--device") + 1]
        argv = [a for a in argv if a not in ("--device", device)]
    for name in argv[1:] or MODELS:
        compile_one(Path(argv[0]), name, device)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
