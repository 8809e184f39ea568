"""The runtime's direct kernel for tiny float32 GEMMs (shimgen/runtime/src/cpu_small_gemm.cpp) and the
attention that runs on it, called through ctypes and compared with numpy (float64 references).

Products up to 64x128x128 with c rows contiguous (or columns: the product is transposed) and b
transposed (x @ W^T) take the direct kernel on an AVX-512 CPU; every other size or layout takes
OpenBLAS. The shapes here straddle
that bound, the 16-lane vector width (1, 15, 16, 17, 33 ...) and every layout, so a wrong mask, a
wrong reduction lane or a missed stride in either path fails a comparison."""

from __future__ import annotations

import itertools
from ctypes import byref, c_double, c_int32, c_void_p

import numpy as np
import pytest

from shimgen.aoti.runner import Runtime

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow
PREFIX = "executorch_"


def call(rt: Runtime, name: str, *arrays: np.ndarray, scalars: tuple[float, ...] = ()) -> None:
    """Run one op on handles over `arrays` (the first is out, written in place)."""
    handles = [rt.tensor_from_array(x) for x in arrays]
    try:
        function = getattr(rt.lib, PREFIX + name)
        function.restype = c_int32
        code = function(*(c_void_p(x.value) for x in handles), *(c_double(s) for s in scalars))
        assert code == 0, rt.lib.shimgen_runtime_last_error().decode()
    finally:
        for x in handles:
            rt.delete(x)


def laid_out(rng: np.random.Generator, rows: int, cols: int, layout: str) -> np.ndarray:
    """A float32 [rows, cols] matrix: row-major, transposed (column-major), either with its lines
    further apart than their length, or gapped columns (no unit stride at all)."""
    if layout == "row":
        return rng.standard_normal((rows, cols)).astype(np.float32)
    if layout == "col":
        return rng.standard_normal((cols, rows)).astype(np.float32).T
    if layout == "padded":
        return rng.standard_normal((rows, cols + 5)).astype(np.float32)[:, :cols]
    if layout == "colpadded":
        return rng.standard_normal((cols, rows + 3)).astype(np.float32)[:, :rows].T
    return rng.standard_normal((rows, 2 * cols)).astype(np.float32)[:, ::2]


def out_like(rows: int, cols: int, layout: str, fill: float) -> np.ndarray:
    if layout == "col":
        return np.full((cols, rows), fill, np.float32).T
    if layout == "padded":
        return np.full((rows, cols + 3), fill, np.float32)[:, :cols]
    return np.full((rows, cols), fill, np.float32)


def close(got: np.ndarray, want: np.ndarray, k: int) -> bool:
    return bool(np.allclose(got, want, rtol=1e-5, atol=2e-6 * max(1, k) ** 0.5 * max(1.0, np.abs(want).max())))


# (m, n, k): lane-width edges, 1-sized dimensions, the transformer block's shapes, the direct
# kernel's bound (64x128x128) and just past it (OpenBLAS again).
SHAPES = [(1, 1, 1), (1, 17, 3), (5, 1, 9), (3, 15, 16), (4, 16, 17), (7, 33, 31), (16, 16, 8), (16, 8, 16),
          (32, 96, 32), (32, 32, 128), (13, 47, 65), (64, 128, 128), (65, 128, 128)]
LAYOUTS = ["row", "col", "padded", "colpadded", "gapped"]


@pytest.mark.parametrize("m, n, k", SHAPES)
def test_mm_every_layout_matches_numpy(rt, m, n, k):
    rng = np.random.default_rng(m * 10007 + n * 101 + k)
    for la, lb, lo in itertools.product(LAYOUTS, LAYOUTS, ["row", "col", "padded"]):
        a, b = laid_out(rng, m, k, la), laid_out(rng, k, n, lb)
        out = out_like(m, n, lo, np.nan)  # mm never reads out: NaN there must not leak through
        call(rt, "aoti_torch_cpu_mm_out", out, a, b)
        want = a.astype(np.float64) @ b.astype(np.float64)
        assert close(out, want, k), (la, lb, lo)


@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (3, 17, 16), (32, 96, 32), (9, 33, 130), (64, 128, 128)])
def test_addmm_beta_alpha_and_bias_broadcasts_match_numpy(rt, m, n, k):
    rng = np.random.default_rng(m + n + k)
    biases = [rng.standard_normal(n), rng.standard_normal((1, n)), rng.standard_normal((m, 1)),
              rng.standard_normal((m, n)), rng.standard_normal((m, 2 * n))[:, ::2]]
    for bias, (beta, alpha), lb, lo in itertools.product(biases, [(1.0, 1.0), (0.5, 2.0), (0.0, -1.5), (-2.0, 0.0)],
                                                          ["row", "col", "colpadded"], ["row", "col", "padded"]):
        bias = bias.astype(np.float32)
        a, b = laid_out(rng, m, k, "row"), laid_out(rng, k, n, lb)
        out = out_like(m, n, lo, np.nan if beta == 0 else 3.0)
        call(rt, "aoti_torch_cpu_addmm_out", out, bias, a, b, scalars=(beta, alpha))
        want = beta * bias.astype(np.float64) + alpha * (a.astype(np.float64) @ b.astype(np.float64))
        assert close(out, want, k), (bias.shape, beta, alpha, lb, lo)


@pytest.mark.parametrize("batch, m, n, k", [(1, 1, 1, 1), (3, 16, 16, 8), (2, 17, 9, 33), (4, 64, 128, 128)])
def test_bmm_with_transposed_batches_matches_numpy(rt, batch, m, n, k):
    rng = np.random.default_rng(batch * 7 + m)
    a = rng.standard_normal((batch, m, k)).astype(np.float32)
    for b in (rng.standard_normal((batch, k, n)).astype(np.float32),
              rng.standard_normal((batch, n, k)).astype(np.float32).transpose(0, 2, 1),
              rng.standard_normal((n, batch, k)).astype(np.float32).transpose(1, 2, 0)):
        out = np.full((batch, m, n), np.nan, np.float32)
        call(rt, "aoti_torch_cpu_bmm_out", out, a, b)
        assert close(out, a.astype(np.float64) @ b.astype(np.float64), k)


@pytest.mark.parametrize("heads, length, keys, dim", [(4, 16, 16, 8), (3, 7, 19, 5), (2, 33, 33, 17), (1, 1, 1, 1)])
@pytest.mark.parametrize("causal", [True, False])
def test_sdpa_on_views_of_one_qkv_tensor_matches_torch(rt, heads, length, keys, dim, causal):
    # As the transformer block calls it: q, k, v are head-split, transposed views of one Linear's
    # output, rows 3 * heads * dim apart, so the scores run on the direct kernel in place.
    gen = torch.Generator().manual_seed(heads * 100 + dim)
    c = heads * dim
    qkv_q = torch.randn(2, length, 3 * c, generator=gen)
    qkv_kv = torch.randn(2, keys, 3 * c, generator=gen)
    q = qkv_q[..., :c].view(2, length, heads, dim).transpose(1, 2)
    k = qkv_kv[..., c:2 * c].view(2, keys, heads, dim).transpose(1, 2)
    v = qkv_kv[..., 2 * c:].view(2, keys, heads, dim).transpose(1, 2)
    out, lse = c_void_p(), c_void_p()
    handles = [rt.tensor_from_array(x.numpy()) for x in (q, k, v)]
    try:
        function = getattr(rt.lib, PREFIX + "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu")
        function.restype = c_int32
        code = function(*(c_void_p(x.value) for x in handles), c_double(0.0), c_int32(int(causal)), None, None,
                        byref(out), byref(lse))
        assert code == 0, rt.lib.shimgen_runtime_last_error().decode()
        ref, ref_lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q.double(), k.double(), v.double(),
                                                                                    is_causal=causal)
        assert np.allclose(rt.array_from_tensor(out), ref.numpy(), atol=2e-5, rtol=1e-5)
        assert np.allclose(rt.array_from_tensor(lse), ref_lse.numpy(), atol=2e-5, rtol=1e-5)
    finally:
        for x in (*handles, out, lse):
            rt.delete(x)


@pytest.mark.parametrize("n, k, gap", [(96, 32, 0), (33, 17, 5)])
def test_weight_changed_in_place_is_repacked(rt, n, k, gap):
    """addmm/mm on x @ W^T, the packed-weight cache's case: one W buffer (a view over it, as a Linear
    passes its weight), changed in place between calls, gives the new product every time, and a
    change in the gap between W's rows (not part of W) changes nothing. Negative control: each
    change moves the expected product, so a stale packed copy would fail the next comparison."""
    rng = np.random.default_rng(n + k)
    x = rng.standard_normal((32, k)).astype(np.float32)
    storage = rng.standard_normal((n, k + gap)).astype(np.float32)
    w = storage[:, :k]  # W's rows k + gap floats apart
    bias = rng.standard_normal(n).astype(np.float32)
    previous = None
    for step in range(4):
        for name, args, scalars in (("aoti_torch_cpu_addmm_out", (bias, x, w.T), (1.0, 1.0)),
                                    ("aoti_torch_cpu_mm_out", (x, w.T), ())):
            out = np.full((32, n), np.nan, np.float32)
            call(rt, name, out, *args, scalars=scalars)
            want = x.astype(np.float64) @ w.T.astype(np.float64) + (bias if scalars else 0.0)
            assert close(out, want, k), (step, name)
            if previous is not None and name == "aoti_torch_cpu_mm_out":
                assert not close(previous, want, k)  # the change is visible: a stale copy would fail
            if name == "aoti_torch_cpu_mm_out":
                previous = out
        w[(7 * step) % n, step % k] += 3.0  # in place, through the caller's buffer
        if gap:
            storage[step, k:] = 1e6  # the gap: never read
