"""The CPU ops real architectures import (src/ops/cpu/): cumsum, topk, sort_stable, histc,
scatter_reduce, the LSTM layer, rand and randint_low_out, called through ctypes with torch's exact
C-shim signatures on real data, and compared with torch eager (values, dtypes, shapes, strides)."""

from __future__ import annotations

from ctypes import byref, c_char_p, c_double, c_int32, c_int64, c_void_p

import pytest

from tests.aoti_helpers import INVALID, UNSUPPORTED, shim
from tests.cpu_shim_tensors import CODES, assert_same, last_error, strided

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow


# ---- cumsum ----

@pytest.mark.parametrize("dtype, out_dtype", [(torch.float32, None), (torch.bfloat16, None), (torch.float16, None),
                                              (torch.int64, None), (torch.int32, None), (torch.bool, None),
                                              (torch.int32, torch.float32), (torch.float32, torch.float64)])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_matches_torch(rt, hs, dtype, out_dtype, dim):
    gen = torch.Generator().manual_seed(0)
    base = torch.randn(3, 5, 40, generator=gen) * 4
    x = strided(base.to(dtype) if dtype != torch.bool else base > 0)
    out = c_void_p()
    code_ptr = byref(c_int32(CODES[out_dtype])) if out_dtype is not None else None
    assert shim(rt, "aoti_torch_cpu_cumsum")(hs.of(x), c_int64(dim), code_ptr, byref(out)) == 0, last_error(rt)
    expected = torch.cumsum(x, dim, dtype=out_dtype)
    atol = {torch.bfloat16: 0.5, torch.float16: 0.05}.get(dtype, 1e-4)
    assert_same(hs.tensor(out), expected, atol=atol)


def test_cumsum_of_a_scalar_and_bad_dims(rt, hs):
    out = c_void_p()
    assert shim(rt, "aoti_torch_cpu_cumsum")(hs.of(torch.tensor(2.5)), c_int64(-1), None, byref(out)) == 0
    assert_same(hs.tensor(out), torch.cumsum(torch.tensor(2.5), -1))
    assert shim(rt, "aoti_torch_cpu_cumsum")(hs.of(torch.ones(2, 3)), c_int64(2), None, byref(out)) == INVALID
    assert "out of range" in last_error(rt)
    assert shim(rt, "aoti_torch_cpu_cumsum")(hs.of(torch.ones(2)),
                                             c_int64(0), None, None) == INVALID


# ---- topk and sort ----

@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.float64, torch.int64])
@pytest.mark.parametrize("largest", [1, 0])
def test_topk_matches_torch(rt, hs, dtype, largest):
    gen = torch.Generator().manual_seed(1)
    x = torch.randperm(4 * 64, generator=gen).reshape(4, 64).to(dtype)  # distinct values: one right answer
    for view, dim in ((x, -1), (x.t(), 0), (strided(x), 1)):
        values, indices = c_void_p(), c_void_p()
        assert shim(rt, "aoti_torch_cpu_topk")(hs.of(view), c_int64(8), c_int64(dim), c_int32(largest), c_int32(1),
                                               byref(values), byref(indices)) == 0, last_error(rt)
        ref_v, ref_i = torch.topk(view, 8, dim=dim, largest=bool(largest))
        assert_same(hs.tensor(values), ref_v.contiguous())
        assert_same(hs.tensor(indices), ref_i.contiguous())


@pytest.mark.parametrize("n, k", [(4, 2), (8, 2), (16, 4), (64, 8), (128, 2), (256, 4), (40, 40)])
@pytest.mark.parametrize("largest, sorted_", [(1, 1), (0, 1), (1, 0), (0, 0)])
@pytest.mark.parametrize("values", ["equal", "few", "nan"])
def test_topk_ties_come_in_torchs_order(rt, hs, n, k, largest, sorted_, values):
    # A zero-initialised MoE router (AFMoE's) scores every expert 0.5: which equal values topk returns,
    # and in what order, then decides the routing. Both of torch's paths (partial sort when
    # k * 64 <= n, else nth_element and a sort of the first k - 1) and sorted=0's order.
    gen = torch.Generator().manual_seed(n * 7 + k)
    x = {"equal": torch.full((6, n), 0.5),
         "few": torch.randint(0, 3, (6, n), generator=gen).float(),
         "nan": torch.randint(0, 2, (6, n), generator=gen).float().masked_fill(
             torch.rand(6, n, generator=gen) < 0.2, float("nan"))}[values]
    got_v, got_i = c_void_p(), c_void_p()
    assert shim(rt, "aoti_torch_cpu_topk")(hs.of(x), c_int64(k), c_int64(-1), c_int32(largest), c_int32(sorted_),
                                           byref(got_v), byref(got_i)) == 0, last_error(rt)
    ref_v, ref_i = torch.topk(x, k, dim=-1, largest=bool(largest), sorted=bool(sorted_))
    assert_same(hs.tensor(got_i), ref_i)
    assert_same(hs.tensor(got_v), ref_v)


def test_topk_nan_is_largest_and_bad_k_changes_nothing(rt, hs):
    x = torch.tensor([[1.0, float("nan"), 3.0, -2.0]])
    values, indices = c_void_p(), c_void_p()
    assert shim(rt, "aoti_torch_cpu_topk")(hs.of(x), c_int64(2), c_int64(-1), c_int32(1), c_int32(1),
                                           byref(values), byref(indices)) == 0
    ref_v, ref_i = torch.topk(x, 2)
    assert_same(hs.tensor(values), ref_v)
    assert_same(hs.tensor(indices), ref_i)
    untouched = c_void_p(0x1234)
    assert shim(rt, "aoti_torch_cpu_topk")(hs.of(x), c_int64(5), c_int64(-1), c_int32(1), c_int32(1),
                                           byref(untouched), byref(untouched)) == INVALID
    assert untouched.value == 0x1234 and "out of range" in last_error(rt)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int64, torch.int32, torch.bool])
@pytest.mark.parametrize("descending", [0, 1])
def test_sort_stable_matches_torch(rt, hs, dtype, descending):
    gen = torch.Generator().manual_seed(2)
    x = torch.randint(0, 6, (5, 33), generator=gen).to(dtype)  # many ties: stability decides the indices
    if dtype.is_floating_point:
        x[0, 3] = float("nan")
    for view, dim in ((x, -1), (x.t(), 0), (strided(x), 1), (x.t(), 1)):
        values, indices = c_void_p(), c_void_p()
        stable = c_int32(1)
        assert shim(rt, "aoti_torch_cpu_sort_stable")(hs.of(view), byref(stable), c_int64(dim), c_int32(descending),
                                                      byref(values), byref(indices)) == 0, last_error(rt)
        ref_v, ref_i = torch.sort(view, dim=dim, descending=bool(descending), stable=True)
        assert_same(hs.tensor(values), ref_v)   # strides too: self's when dense, else dense in its order
        assert_same(hs.tensor(indices), ref_i)


@pytest.mark.parametrize("dtype", [torch.int64, torch.uint8, torch.bool, torch.float32, torch.bfloat16])
@pytest.mark.parametrize("stable", [None, 0])
def test_unstable_sort_orders_ties_as_torch_does(rt, hs, dtype, stable):
    """torch.sort's default (stable False, or null as inductor passes it) reorders equal keys in lines
    longer than 16 (torch's CPU kernel runs std::sort); a 1-d ascending integer line of 32768 or more
    goes through its radix sort, which keeps them. MoE token grouping sorts expert ids this way."""
    gen = torch.Generator().manual_seed(5)
    for n in (17, 300, 40000):
        x = torch.randint(0, 2 if dtype == torch.bool else 4, (2, n), generator=gen).to(dtype)
        if dtype.is_floating_point:
            x[0, ::5] = float("nan")
        for view, dim, descending in ((x[1], 0, 0), (x[1], 0, 1), (x, 1, 0), (x.t(), 0, 1), (strided(x), 1, 0)):
            values, indices = c_void_p(), c_void_p()
            flag = byref(c_int32(stable)) if stable is not None else None
            assert shim(rt, "aoti_torch_cpu_sort_stable")(hs.of(view), flag, c_int64(dim), c_int32(descending),
                                                          byref(values), byref(indices)) == 0, last_error(rt)
            ref_v, ref_i = torch.sort(view, dim=dim, descending=bool(descending))
            assert_same(hs.tensor(values), ref_v)
            assert_same(hs.tensor(indices), ref_i)
            # The control: where torch's kernel reorders ties, the stable order is another answer.
            radix = view.dim() == 1 and n >= 32768 and not descending and not dtype.is_floating_point and dtype != torch.bool
            stable_i = torch.sort(view, dim=dim, descending=bool(descending), stable=True).indices
            assert torch.equal(stable_i, ref_i) == radix, (n, dim, descending)


# ---- histc ----

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("bins, lo, hi", [(10, 0.0, 0.0), (7, -1.0, 1.5), (4, 0.0, 3.0)])
def test_histc_matches_torch(rt, hs, dtype, bins, lo, hi):
    gen = torch.Generator().manual_seed(3)
    x = strided(torch.randn(6, 50, generator=gen).to(dtype))
    if (lo, hi) == (0.0, 3.0):
        x = strided(torch.randint(0, 4, (6, 50), generator=gen).to(dtype))  # MoE expert ids: edges hit exactly
    out = c_void_p()
    assert shim(rt, "aoti_torch_cpu_histc")(hs.of(x), c_int64(bins), c_double(lo), c_double(hi), byref(out)) == 0, \
        last_error(rt)
    assert_same(hs.tensor(out), torch.histc(x, bins=bins, min=lo, max=hi))


def test_histc_refuses_bad_arguments(rt, hs):
    out = c_void_p(0x77)
    x = hs.of(torch.ones(3))
    assert shim(rt, "aoti_torch_cpu_histc")(x, c_int64(0), c_double(0), c_double(1), byref(out)) == INVALID
    assert shim(rt, "aoti_torch_cpu_histc")(x, c_int64(3), c_double(2), c_double(1), byref(out)) == INVALID
    assert shim(rt, "aoti_torch_cpu_histc")(hs.of(torch.ones(3, dtype=torch.int64)), c_int64(3), c_double(0),
                                            c_double(1), byref(out)) == UNSUPPORTED
    assert out.value == 0x77


# ---- scatter_reduce ----

@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [1, 0])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.int32])
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_scatter_reduce_matches_torch(rt, hs, reduce, include_self, dtype, index_dtype):
    """An int32 index as torch takes it: inductor computes glm5_next_text's scatter_add index in int32."""
    gen = torch.Generator().manual_seed(4)
    for dim in (0, 1):
        self_t = (torch.randn(6, 7, generator=gen) * 5).to(dtype)
        src = (torch.randn(8, 9, generator=gen) * 5).to(dtype)
        index = torch.randint(0, self_t.shape[dim], (5, 6) if dim == 0 else (6, 5), generator=gen).to(index_dtype)
        out = torch.empty_like(self_t)
        code = shim(rt, "aoti_torch_cpu_scatter_reduce_two_out")(
            hs.of(out), hs.of(strided(self_t)), c_int64(dim), hs.of(index), hs.of(src), c_char_p(reduce.encode()),
            c_int32(include_self))
        assert code == 0, last_error(rt)
        expected = strided(self_t).scatter_reduce(dim, index, src, reduce, include_self=bool(include_self))
        assert_same(out, expected, atol=1e-4, strides=False)


def test_scatter_add_with_an_expanded_index_and_errors(rt, hs):
    """scatter_add's shape in MoE code: an index expanded (stride 0) over the hidden dim."""
    gen = torch.Generator().manual_seed(5)
    src = torch.randn(16, 8, generator=gen)
    index = torch.randint(0, 4, (16, 1), generator=gen).expand(-1, 8)
    base = torch.zeros(4, 8)
    out = torch.empty(4, 8)
    assert shim(rt, "aoti_torch_cpu_scatter_reduce_two_out")(
        hs.of(out), hs.of(base), c_int64(0), hs.of(index), hs.of(src), c_char_p(b"sum"), c_int32(1)) == 0
    assert_same(out, base.scatter_add(0, index, src), atol=1e-5)
    bad = index.clone()
    bad[3, 0] = 4
    before = out.clone()
    assert shim(rt, "aoti_torch_cpu_scatter_reduce_two_out")(
        hs.of(out), hs.of(base), c_int64(0), hs.of(bad), hs.of(src), c_char_p(b"sum"), c_int32(1)) == INVALID
    assert "out of bounds" in last_error(rt) and torch.equal(out, before)
    assert shim(rt, "aoti_torch_cpu_scatter_reduce_two_out")(
        hs.of(out), hs.of(base), c_int64(0), hs.of(index), hs.of(src), c_char_p(b"max"), c_int32(1)) == INVALID
    assert shim(rt, "aoti_torch_cpu_scatter_reduce_two_out")(  # torch takes int32 and int64 indices only
        hs.of(out), hs.of(base), c_int64(0), hs.of(index.to(torch.int16)), hs.of(src), c_char_p(b"sum"),
        c_int32(1)) == INVALID
    assert "int32 or int64" in last_error(rt) and torch.equal(out, before)


# ---- the LSTM layer ----

@pytest.mark.parametrize("reverse", [0, 1])
@pytest.mark.parametrize("has_biases", [1, 0])
def test_lstm_layer_matches_torch(rt, hs, reverse, has_biases):
    gen = torch.Generator().manual_seed(6)
    T, B, In, H = 7, 3, 5, 6
    x = torch.randn(T, B, In, generator=gen)
    w0, w1 = torch.randn(4 * H, In, generator=gen) * 0.3, torch.randn(4 * H, H, generator=gen) * 0.3
    b0, b1 = torch.randn(4 * H, generator=gen), torch.randn(4 * H, generator=gen)
    hx, cx = torch.randn(1, B, H, generator=gen), torch.randn(1, B, H, generator=gen)
    rets = [c_void_p() for _ in range(4)]
    code = shim(rt, "aoti_torch_cpu_mkldnn_rnn_layer")(
        hs.of(x), hs.of(w0), hs.of(w1), hs.of(b0), hs.of(b1), hs.of(hx), hs.of(cx), c_int32(reverse), None,
        c_int64(0), c_int64(2), c_int64(H), c_int64(1), c_int32(has_biases), c_int32(0), c_int32(0), c_int32(0),
        *map(byref, rets))
    assert code == 0, last_error(rt)
    expected = torch.ops.aten.mkldnn_rnn_layer(x, w0, w1, b0, b1, hx, cx, bool(reverse), [], 2, H, 1,
                                               bool(has_biases), False, False, False)
    for got, ref in zip(rets[:3], expected[:3]):
        assert_same(hs.tensor(got), ref, atol=2e-6)
    assert hs.tensor(rets[3]).dtype == torch.uint8


def test_lstm_layer_in_bfloat16_matches_torch(rt, hs):
    """A bfloat16 nn.LSTM on the CPU: the runtime computes in float32 from the bf16 operands and rounds
    each output once; torch's oneDNN kernel keeps gates and cell in float32 too. Within 2 bf16 ulps of
    torch's outputs (|h| < 1, |c| a few); one dtype for all operands."""
    gen = torch.Generator().manual_seed(7)
    T, B, In, H = 6, 2, 5, 4
    x = torch.randn(T, B, In, generator=gen).bfloat16()
    w0, w1 = (torch.randn(4 * H, In, generator=gen) * 0.3).bfloat16(), (torch.randn(4 * H, H, generator=gen) * 0.3).bfloat16()
    b0, b1 = torch.randn(4 * H, generator=gen).bfloat16(), torch.randn(4 * H, generator=gen).bfloat16()
    hx, cx = torch.randn(1, B, H, generator=gen).bfloat16(), torch.randn(1, B, H, generator=gen).bfloat16()
    try:
        expected = torch.ops.aten.mkldnn_rnn_layer(x, w0, w1, b0, b1, hx, cx, False, [], 2, H, 1, True, False, False,
                                                   False)
    except RuntimeError as reason:  # oneDNN without bf16 support on this CPU
        pytest.skip(f"torch's bf16 LSTM layer is unavailable here: {reason}")

    def call(*tensors):
        rets = [c_void_p() for _ in range(4)]
        code = shim(rt, "aoti_torch_cpu_mkldnn_rnn_layer")(
            *map(hs.of, tensors), c_int32(0), None, c_int64(0), c_int64(2), c_int64(H), c_int64(1), c_int32(1),
            c_int32(0), c_int32(0), c_int32(0), *map(byref, rets))
        return code, rets

    code, rets = call(x, w0, w1, b0, b1, hx, cx)
    assert code == 0, last_error(rt)
    for got, ref in zip(rets[:3], expected[:3]):
        got = hs.tensor(got)
        assert got.dtype == torch.bfloat16 and got.shape == ref.shape
        ulp = 2.0 ** -7 * ref.float().abs().clamp(min=2.0**-6)
        assert bool(((got.float() - ref.float()).abs() <= 2 * ulp + 1e-6).all()), (got - ref).abs().max()
    code, _ = call(x, w0.float(), w1, b0, b1, hx, cx)
    assert code == INVALID and "one dtype" in last_error(rt)


def test_lstm_layer_refuses_training_and_other_modes(rt, hs):
    x, w0, w1 = torch.zeros(2, 1, 3), torch.zeros(8, 3), torch.zeros(8, 2)
    b, hx = torch.zeros(8), torch.zeros(1, 1, 2)
    rets = [c_void_p(0x5) for _ in range(4)]
    for mode, train in ((2, 1), (1, 0)):
        assert shim(rt, "aoti_torch_cpu_mkldnn_rnn_layer")(
            hs.of(x), hs.of(w0), hs.of(w1), hs.of(b), hs.of(b), hs.of(hx), hs.of(hx), c_int32(0), None, c_int64(0),
            c_int64(mode), c_int64(2), c_int64(1), c_int32(1), c_int32(0), c_int32(0), c_int32(train),
            *map(byref, rets)) == INVALID
    assert all(r.value == 0x5 for r in rets)


# ---- random ----

def test_rand_and_randint_low_out_draw_the_right_distributions(rt, hs):
    for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
        out = c_void_p()
        size = (c_int64 * 2)(200, 50)
        code = shim(rt, "aoti_torch_cpu_rand")(size, c_int64(2), byref(c_int32(CODES[dtype])), None, None, c_int32(0),
                                               None, byref(out))
        assert code == 0, last_error(rt)
        got = hs.tensor(out)
        assert got.dtype == dtype and got.shape == (200, 50) and got.is_contiguous()
        values = got.double()
        assert values.min() >= 0 and values.max() < 1 and abs(values.mean().item() - 0.5) < 0.02
        assert values.unique().numel() > 50  # not a constant fill
    seeds = torch.zeros(1000, dtype=torch.int64)
    size = (c_int64 * 1)(1000)
    assert shim(rt, "aoti_torch_cpu_randint_low_out")(hs.of(seeds), c_int64(-3), c_int64(5), size, c_int64(1)) == 0
    assert seeds.min() == -3 and seeds.max() == 4 and set(seeds.tolist()) == set(range(-3, 5))
    again = torch.zeros(1000, dtype=torch.int64)
    assert shim(rt, "aoti_torch_cpu_randint_low_out")(hs.of(again), c_int64(0), c_int64(2 ** 62), size, c_int64(1)) == 0
    assert again.unique().numel() == 1000  # 62-bit seeds: distinct
    assert shim(rt, "aoti_torch_cpu_randint_low_out")(hs.of(again), c_int64(5), c_int64(5), size, c_int64(1)) == INVALID


# ---- bfloat16 / float16 GEMM and attention (a decoder served in bfloat16) ----

@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_gemm_matches_torch(rt, hs, dtype):
    gen = torch.Generator().manual_seed(7)
    a = torch.randn(9, 40, generator=gen).to(dtype)
    w = torch.randn(24, 40, generator=gen).to(dtype)  # x @ W^T: a transposed operand, as Linear
    bias = torch.randn(24, generator=gen).to(dtype)
    out = torch.empty(9, 24, dtype=dtype)
    assert shim(rt, "aoti_torch_cpu_mm_out")(hs.of(out), hs.of(a), hs.of(w.t())) == 0, last_error(rt)
    assert_same(out, a @ w.t(), atol=0.1, strides=False)
    assert shim(rt, "aoti_torch_cpu_addmm_out")(hs.of(out), hs.of(bias), hs.of(a), hs.of(w.t()), c_double(1.0),
                                                c_double(1.0)) == 0, last_error(rt)
    assert_same(out, torch.addmm(bias, a, w.t()), atol=0.1, strides=False)
    b3, m3 = torch.randn(3, 5, 8, generator=gen).to(dtype), torch.randn(3, 8, 6, generator=gen).to(dtype)
    out3 = torch.empty(3, 5, 6, dtype=dtype)
    assert shim(rt, "aoti_torch_cpu_bmm_out")(hs.of(out3), hs.of(b3), hs.of(m3)) == 0, last_error(rt)
    # float32 accumulation, one rounding: within one unit in the last place of torch's result
    assert_same(out3, torch.bmm(b3, m3), atol=0.05, strides=False)


@pytest.mark.parametrize("causal", [True, False])
def test_bf16_sdpa_matches_torch(rt, hs, causal):
    gen = torch.Generator().manual_seed(8)
    q, k, v = (torch.randn(2, 4, 9, 16, generator=gen).to(torch.bfloat16) for _ in range(3))
    out, lse = c_void_p(), c_void_p()
    code = shim(rt, "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu")(
        hs.of(q), hs.of(k), hs.of(v), c_double(0.0), c_int32(int(causal)), None, None, byref(out), byref(lse))
    assert code == 0, last_error(rt)
    ref_out, ref_lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=causal)
    assert_same(hs.tensor(out), ref_out, atol=0.02)
    assert_same(hs.tensor(lse), ref_lse, atol=1e-3)
