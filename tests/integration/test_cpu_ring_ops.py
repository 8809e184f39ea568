"""The CPU ops the wider ring of architectures imports (tests/arch_ring.py; src/ops/cpu/): scans
(cumprod, cummax, cummin, logcumsumexp), selections (kthvalue, median), searchsorted/bucketize,
cdist, embedding_bag, baddbmm_out, index_reduce, nonzero, transposed and bfloat16/float16
convolution, and the random sources (randn, normal_functional, randperm), called through ctypes with
torch's exact C-shim signatures on real data (strided inputs where models pass them) and compared
with torch eager: values, dtypes, shapes, strides. Random ops are checked by their distributions."""

from __future__ import annotations

import ctypes
from ctypes import byref, c_bool, c_char_p, c_double, c_int32, c_int64, c_uint32, c_void_p

import pytest

from tests.aoti_helpers import INVALID, UNSUPPORTED, shim
from tests.cpu_shim_tensors import CODES, assert_same, gen, got_, last_error, strided

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow


# ---- scans ----

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int32, torch.bool])
def test_cumprod_matches_torch(rt, hs, dtype):
    base = torch.rand(3, 4, 9, generator=gen()) + 0.5
    x = strided(base.to(dtype) if dtype != torch.bool else base > 1.0)
    for dim in (0, -1):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_cumprod")(hs.of(x), c_int64(dim), None, byref(out)) == 0, last_error(rt)
        atol = {torch.bfloat16: 0.1}.get(dtype, 1e-5)
        assert_same(got_(hs, out), torch.cumprod(x, dim), atol=atol)


@pytest.mark.parametrize("op", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64])
def test_cummax_cummin_match_torch_ties_and_nan(rt, hs, op, dtype):
    x = (torch.randint(-3, 4, (4, 12), generator=gen(1))).to(dtype)  # many ties: the later index wins
    if dtype.is_floating_point:
        x[1, 5] = float("nan")
        x[2, 3] = float("nan")
        x[2, 8] = float("nan")
    for view, dim in ((x, 1), (x.t(), 0), (strided(x), -1)):
        values, indices = c_void_p(), c_void_p()
        assert shim(rt, f"aoti_torch_cpu_{op}")(hs.of(view), c_int64(dim), byref(values), byref(indices)) == 0
        ref = getattr(torch, op)(view, dim)
        assert_same(got_(hs, values), ref.values.contiguous(), strides=False)
        assert_same(got_(hs, indices), ref.indices.contiguous(), strides=False)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_logcumsumexp_matches_torch(rt, hs, dtype):
    x = strided((torch.randn(3, 20, generator=gen(2)) * 30).to(dtype))
    x[0, 4] = float("-inf")
    x[1, 0:3] = float("inf")
    x[2, 7] = float("nan")
    out = c_void_p()
    assert shim(rt, "aoti_torch_cpu_logcumsumexp")(hs.of(x), c_int64(1), byref(out)) == 0, last_error(rt)
    atol = 0.5 if dtype == torch.bfloat16 else 1e-5
    assert_same(got_(hs, out), torch.logcumsumexp(x, 1), atol=atol)
    assert shim(rt, "aoti_torch_cpu_logcumsumexp")(hs.of(torch.ones(3, dtype=torch.int64)), c_int64(0),
                                                   byref(out)) == UNSUPPORTED


# ---- selections ----

@pytest.mark.parametrize("keepdim", [0, 1])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_kthvalue_matches_torch(rt, hs, keepdim, dtype):
    x = torch.randperm(6 * 15, generator=gen(3)).reshape(6, 15).to(dtype)  # distinct: one right index
    for view, dim, k in ((x, 1, 1), (x, 1, 8), (x.t(), 0, 15), (strided(x), -1, 4)):
        values, indices = c_void_p(), c_void_p()
        assert shim(rt, "aoti_torch_cpu_kthvalue")(hs.of(view), c_int64(k), c_int64(dim), c_int32(keepdim),
                                                   byref(values), byref(indices)) == 0, last_error(rt)
        ref = torch.kthvalue(view, k, dim, keepdim=bool(keepdim))
        assert_same(got_(hs, values), ref.values, strides=False)
        assert_same(got_(hs, indices), ref.indices, strides=False)
    values, indices = c_void_p(), c_void_p()
    assert shim(rt, "aoti_torch_cpu_kthvalue")(hs.of(x), c_int64(16), c_int64(1), c_int32(0), byref(values),
                                               byref(indices)) == INVALID
    assert values.value is None  # refused before any output


@pytest.mark.parametrize("width", [2, 5, 15, 40, 200])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_kthvalue_ties_give_torchs_index(rt, hs, width, dtype):
    # Three values over the line (NaNs too in float32): which equal value's index comes back is
    # torch's quickselect's doing; the runtime replays its swaps.
    x = torch.randint(0, 3, (6, width), generator=gen(width)).to(dtype)
    if dtype == torch.float32:
        x[1::2, ::4] = float("nan")
    for k in sorted({1, (width + 1) // 2, width}):
        values, indices = c_void_p(), c_void_p()
        assert shim(rt, "aoti_torch_cpu_kthvalue")(hs.of(x), c_int64(k), c_int64(1), c_int32(0), byref(values),
                                                   byref(indices)) == 0, last_error(rt)
        ref = torch.kthvalue(x, k, 1)
        assert_same(got_(hs, indices), ref.indices, strides=False)
        assert_same(got_(hs, values), ref.values, strides=False)


@pytest.mark.parametrize("width", [2, 5, 15, 40, 200])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64])
def test_median_dim_ties_give_torchs_index(driver, hs, width, dtype):
    # aten::median.dim (no C shim: the proxy executor) among equal values: torch's CPU kernel picks
    # the middle with std::nth_element, so which equal value's index comes back is that algorithm's
    # doing; the runtime calls the same. NaNs in float32 (the first NaN of a line wins), both dims.
    x = torch.randint(0, 3, (6, width), generator=gen(width + 1)).to(dtype)
    if dtype == torch.float32:
        x[1::2, ::4] = float("nan")
    for dim, view in ((1, x), (0, x.t().contiguous())):
        values, indices = driver.call(hs, "aten::median.dim", [("self", view), ("dim", dim), ("keepdim", False)], 2)
        ref = torch.median(view, dim)
        assert_same(indices, ref.indices, strides=False)
        assert_same(values, ref.values, strides=False)


def test_median_of_all_elements_matches_torch(rt, hs):
    for x in (torch.randn(7, 6, generator=gen(4)), strided(torch.randn(5, 8, generator=gen(5))),
              torch.tensor([3, 1, 2, 4], dtype=torch.int32), torch.tensor([1.0, float("nan"), 0.0])):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_median")(hs.of(x), byref(out)) == 0, last_error(rt)
        assert_same(got_(hs, out), torch.median(x))
    assert shim(rt, "aoti_torch_cpu_median")(hs.of(torch.ones(0)), byref(c_void_p())) == INVALID


@pytest.mark.parametrize("right", [0, 1])
@pytest.mark.parametrize("out_int32", [0, 1])
def test_searchsorted_and_bucketize_match_torch(rt, hs, right, out_int32):
    edges = torch.sort(torch.randn(16, generator=gen(6))).values
    edges[3] = edges[4]  # a repeated boundary: left and right differ there
    values = torch.cat([torch.randn(20, generator=gen(7)), edges[:5], torch.tensor([float("nan"), float("inf")])])
    x = strided(values.reshape(3, 9))
    out = c_void_p()
    assert shim(rt, "aoti_torch_cpu_searchsorted_Tensor")(hs.of(edges), hs.of(x), c_int32(out_int32), c_int32(right),
                                                          None, None, byref(out)) == 0, last_error(rt)
    expected = torch.searchsorted(edges, x, out_int32=bool(out_int32), right=bool(right))
    assert_same(got_(hs, out), expected, strides=False)
    assert shim(rt, "aoti_torch_cpu_bucketize_Tensor")(hs.of(x), hs.of(edges), c_int32(out_int32), c_int32(right),
                                                       byref(out)) == 0
    assert_same(got_(hs, out), torch.bucketize(x, edges, out_int32=bool(out_int32), right=bool(right)), strides=False)
    # One sorted row per leading index, through a sorter, with side="right".
    rows = torch.randn(3, 10, generator=gen(8))
    order = torch.argsort(rows, dim=-1)
    side = c_char_p(b"right")
    assert shim(rt, "aoti_torch_cpu_searchsorted_Tensor")(hs.of(rows), hs.of(x), c_int32(out_int32), c_int32(0),
                                                          byref(side), byref(hs.of(order)), byref(out)) == 0
    assert_same(got_(hs, out), torch.searchsorted(rows, x, side="right", sorter=order, out_int32=bool(out_int32)),
                strides=False)
    assert shim(rt, "aoti_torch_cpu_searchsorted_Scalar")(hs.of(edges), c_double(0.1), c_int32(out_int32),
                                                          c_int32(right), None, None, byref(out)) == 0
    assert_same(got_(hs, out), torch.searchsorted(edges, torch.tensor(0.1), out_int32=bool(out_int32),
                                                   right=bool(right)))
    left = c_char_p(b"left")
    assert shim(rt, "aoti_torch_cpu_searchsorted_Tensor")(hs.of(edges), hs.of(x), c_int32(0), c_int32(1), byref(left),
                                                          None, byref(out)) == INVALID


# ---- distances, bags, batched products ----

@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_cdist_matches_torch(rt, hs, p):
    a, b = torch.randn(2, 7, 5, generator=gen(9)), torch.randn(1, 30, 5, generator=gen(10))  # batch broadcast
    a[0, 0, :2] = b[0, 0, :2]  # equal coordinates: p = 0 counts only the differing ones
    for mode in (None, 1, 2):
        out = c_void_p()
        code = shim(rt, "aoti_torch_cpu__cdist_forward")(hs.of(a), hs.of(strided(b)), c_double(p),
                                                         byref(c_int64(mode)) if mode is not None else None, byref(out))
        assert code == 0, last_error(rt)
        assert_same(got_(hs, out), torch.ops.aten._cdist_forward(a, strided(b), p, mode), atol=1e-4)


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_embedding_bag_matches_torch(rt, hs, mode, index_dtype):
    weight = torch.randn(12, 6, generator=gen(11))
    indices = torch.tensor([1, 2, 4, 4, 9, 3, 0, 11], dtype=index_dtype)
    offsets = torch.tensor([0, 3, 3, 6], dtype=index_dtype)  # one empty bag
    psw = torch.rand(8, generator=gen(12)) if mode == 0 else None
    for include_last, padding_idx in ((0, -1), (1, 4), (0, 2)):
        outs = [c_void_p() for _ in range(4)]
        for name in ("aoti_torch_cpu__embedding_bag", "aoti_torch_cpu__embedding_bag_forward_only"):
            code = shim(rt, name)(hs.of(weight), hs.of(indices), hs.of(offsets), c_int32(0), c_int64(mode), c_int32(0),
                                  byref(hs.of(psw)) if psw is not None else None, c_int32(include_last),
                                  c_int64(padding_idx), *(byref(o) for o in outs))
            assert code == 0, last_error(rt)
            expected = getattr(torch.ops.aten, name.removeprefix("aoti_torch_cpu_"))(
                weight, indices, offsets, False, mode, False, psw, bool(include_last), padding_idx)
            for got, want in zip(outs, expected):
                assert_same(got_(hs, got), want, atol=1e-5, strides=False)
    bad = torch.tensor([1, 12], dtype=index_dtype)
    assert shim(rt, "aoti_torch_cpu__embedding_bag")(hs.of(weight), hs.of(bad), hs.of(offsets[:1]), c_int32(0),
                                                     c_int64(mode), c_int32(0), None, c_int32(0), c_int64(-1),
                                                     *(byref(c_void_p()) for _ in range(4))) == INVALID


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_baddbmm_out_matches_torch(rt, hs, dtype):
    b1, b2 = torch.randn(3, 5, 7, generator=gen(13)).to(dtype), torch.randn(3, 7, 4, generator=gen(14)).to(dtype)
    atol = 0.1 if dtype == torch.bfloat16 else 1e-5
    for self_ in (torch.randn(3, 5, 4, generator=gen(15)).to(dtype), torch.randn(4, generator=gen(16)).to(dtype)):
        out = torch.empty(3, 4, 5, dtype=dtype).transpose(1, 2)  # a strided out, as inductor may pass
        assert shim(rt, "aoti_torch_cpu_baddbmm_out")(hs.of(out), hs.of(self_), hs.of(b1), hs.of(b2.transpose(1, 2)
                                                      .contiguous().transpose(1, 2)), c_double(0.5),
                                                      c_double(2.0)) == 0, last_error(rt)
        assert torch.allclose(out.double(), torch.baddbmm(self_, b1, b2, beta=0.5, alpha=2.0).double(), atol=atol)
    nan_self = torch.full((3, 5, 4), float("nan"), dtype=dtype)
    out = torch.empty(3, 5, 4, dtype=dtype)
    assert shim(rt, "aoti_torch_cpu_baddbmm_out")(hs.of(out), hs.of(nan_self), hs.of(b1), hs.of(b2), c_double(0.0),
                                                  c_double(1.0)) == 0
    assert torch.allclose(out.double(), torch.bmm(b1, b2).double(), atol=atol)  # beta 0: self never read
    assert shim(rt, "aoti_torch_cpu_baddbmm_out")(hs.of(out), hs.of(nan_self), hs.of(b2), hs.of(b1), c_double(1.0),
                                                  c_double(1.0)) == INVALID


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [0, 1])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_index_reduce_matches_torch(rt, hs, reduce, include_self, dtype):
    self_ = (torch.randn(6, 5, generator=gen(17)) * 4).to(dtype)
    index = torch.tensor([4, 0, 4, 2, 0, 4, 1])
    source = (torch.randn(7, 5, generator=gen(18)) * 4).to(dtype)
    for view, src, dim in ((self_, source, 0), (self_.t(), source.t(), 1)):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_index_reduce")(hs.of(view), c_int64(dim), hs.of(index), hs.of(src),
                                                       reduce.encode(), c_int32(include_self), byref(out)) == 0, \
            last_error(rt)
        assert_same(got_(hs, out), view.index_reduce(dim, index, src, reduce, include_self=bool(include_self)),
                    atol=1e-4)
    assert shim(rt, "aoti_torch_cpu_index_reduce")(hs.of(self_), c_int64(0), hs.of(index), hs.of(source), b"sum",
                                                   c_int32(1), byref(c_void_p())) == INVALID


@pytest.mark.parametrize("dtype", [torch.float32, torch.bool, torch.int32])
def test_nonzero_matches_torch_with_its_strides(rt, hs, dtype):
    for x in (torch.randn(4, 6, generator=gen(19)) > 0.3, torch.zeros(3, 2), torch.tensor([0.0, float("nan"), 2.0]),
              strided(torch.randn(2, 3, 4, generator=gen(20)) > 0)):
        x = x.to(dtype)
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_nonzero")(hs.of(x), byref(out)) == 0, last_error(rt)
        assert_same(got_(hs, out), torch.nonzero(x))  # strides (1, n): the generated code checks them


# ---- convolution: transposed, half precision ----

@pytest.mark.parametrize("case", [
    # (dims, C_in, C_out, kernel, stride, padding, output_padding, dilation, groups, bias)
    (1, 8, 4, 4, 2, 1, 0, 1, 1, True),
    (2, 4, 6, 3, 2, 1, 1, 1, 2, True),
    (2, 6, 3, 2, 2, 0, 0, 1, 1, False),
    (2, 4, 4, 3, 1, 2, 0, 2, 4, True),
    (3, 2, 4, 3, 2, 1, 1, 1, 1, True),
])
def test_transposed_convolution_matches_torch(rt, hs, case):
    dims, cin, cout, k, s, p, op, d, g, with_bias = case
    spatial = (5, 6, 4)[:dims]
    x = torch.randn(2, cin, *spatial, generator=gen(21))
    w = torch.randn(cin, cout // g, *([k] * dims), generator=gen(22))
    b = torch.randn(cout, generator=gen(23)) if with_bias else None
    ints = lambda v: (c_int64 * dims)(*([v] * dims))  # noqa: E731
    out = c_void_p()
    code = shim(rt, "aoti_torch_cpu_convolution")(hs.of(x), hs.of(w), byref(hs.of(b)) if b is not None else None,
                                                  ints(s), c_int64(dims), ints(p), c_int64(dims), ints(d), c_int64(dims),
                                                  c_int32(1), ints(op), c_int64(dims), c_int64(g), byref(out))
    assert code == 0, last_error(rt)
    expected = torch.ops.aten.convolution(x, w, b, [s] * dims, [p] * dims, [d] * dims, True, [op] * dims, g)
    assert_same(got_(hs, out), expected, atol=1e-4)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("transposed", [0, 1])
def test_half_convolution_matches_torch(rt, hs, dtype, transposed):
    x = torch.randn(2, 4, 7, 7, generator=gen(24)).to(dtype)
    w = torch.randn(4, 4, 3, 3, generator=gen(25)).to(dtype)
    b = torch.randn(4, generator=gen(26)).to(dtype)
    two = lambda v: (c_int64 * 2)(v, v)  # noqa: E731
    for view in (x, x.to(memory_format=torch.channels_last)):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_convolution")(hs.of(view), hs.of(w), byref(hs.of(b)), two(2), c_int64(2),
                                                      two(1), c_int64(2), two(1), c_int64(2), c_int32(transposed),
                                                      two(0), c_int64(2), c_int64(1), byref(out)) == 0, last_error(rt)
        expected = torch.ops.aten.convolution(view.float(), w.float(), b.float(), [2, 2], [1, 1], [1, 1],
                                              bool(transposed), [0, 0], 1)
        got = got_(hs, out)
        assert got.dtype == dtype and got.shape == expected.shape
        # One rounding of a float32 result: within a unit of the 16-bit type's last place.
        assert torch.allclose(got.float(), expected, atol=0.05, rtol=0.01)
    int_x = torch.ones(1, 1, 3, 3, dtype=torch.int32)
    assert shim(rt, "aoti_torch_cpu_convolution")(hs.of(int_x), hs.of(int_x), None, two(1), c_int64(2), two(0),
                                                  c_int64(2), two(1), c_int64(2), c_int32(0), two(0), c_int64(2),
                                                  c_int64(1), byref(c_void_p())) == UNSUPPORTED


# ---- random sources ----

def test_randn_normal_and_randperm_draw_the_right_distributions(rt, hs):
    for dtype in (torch.float32, torch.float64, torch.bfloat16):
        out = c_void_p()
        size = (c_int64 * 2)(100, 100)
        assert shim(rt, "aoti_torch_cpu_randn")(size, c_int64(2), byref(c_int32(CODES[dtype])), None, None, c_int32(0),
                                                None, byref(out)) == 0, last_error(rt)
        got = got_(hs, out).double()
        assert got.shape == (100, 100) and abs(got.mean()) < 0.05 and abs(got.std() - 1) < 0.05
    like = strided(torch.zeros(50, 100))
    out = c_void_p()
    assert shim(rt, "aoti_torch_cpu_normal_functional")(hs.of(like), c_double(3.0), c_double(0.5), None,
                                                        byref(out)) == 0, last_error(rt)
    got = got_(hs, out)
    assert got.shape == like.shape and abs(got.mean() - 3.0) < 0.05 and abs(got.std() - 0.5) < 0.05
    assert shim(rt, "aoti_torch_cpu_normal_functional")(hs.of(like), c_double(0.0), c_double(-1.0), None,
                                                        byref(out)) == INVALID
    for n in (0, 1, 1000):
        assert shim(rt, "aoti_torch_cpu_randperm")(c_int64(n), None, None, None, c_int32(0), None, byref(out)) == 0
        perm = got_(hs, out)
        assert perm.dtype == torch.int64 and torch.equal(perm.sort().values, torch.arange(n))
    assert not torch.equal(perm, torch.arange(1000))  # shuffled
    assert shim(rt, "aoti_torch_cpu_randperm")(c_int64(-1), None, None, None, c_int32(0), None, byref(out)) == INVALID


@pytest.mark.parametrize("dtype", [None, torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_hann_window_matches_torch(rt, hs, dtype):
    # torch.hann_window(L) (periodic): 0.5 - 0.5 cos(2 pi n / L); L = 1: [1]; L = 0: empty. The shim
    # rounds a double once; torch computes in the dtype step by step, a few of its ulps away.
    atol = {torch.float16: 5e-3, torch.bfloat16: 3e-2, torch.float64: 1e-12}.get(dtype, 1e-6)
    for length in (0, 1, 2, 7, 64):
        out = c_void_p()
        code = None if dtype is None else byref(c_int32(CODES[dtype]))
        assert shim(rt, "aoti_torch_cpu_hann_window")(c_int64(length), code, None, None, c_int32(0), None,
                                                      byref(out)) == 0, last_error(rt)
        got, expected = got_(hs, out), torch.hann_window(length, dtype=dtype)
        assert_same(got, expected, atol=atol)
        # against the double formula too: rounded once, not step by step as torch does
        assert_same(got, torch.hann_window(length, dtype=torch.float64).to(expected.dtype), atol=0.0)
    out = c_void_p()
    assert shim(rt, "aoti_torch_cpu_hann_window")(c_int64(-1), None, None, None, c_int32(0), None,
                                                  byref(out)) == INVALID
    assert shim(rt, "aoti_torch_cpu_hann_window")(c_int64(4), byref(c_int32(CODES[torch.int64])), None, None,
                                                  c_int32(0), None, byref(out)) == UNSUPPORTED
    assert out.value is None


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_addbmm_matches_torch(rt, hs, dtype):
    b1, b2 = torch.randn(3, 5, 7, generator=gen(27)).to(dtype), torch.randn(3, 7, 4, generator=gen(28)).to(dtype)
    atol = 0.2 if dtype == torch.bfloat16 else 1e-5
    for self_ in (torch.randn(5, 4, generator=gen(29)).to(dtype), torch.randn(4, generator=gen(30)).to(dtype)):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_addbmm")(hs.of(self_), hs.of(b1), hs.of(strided(b2)), c_double(0.5),
                                                 c_double(2.0), byref(out)) == 0, last_error(rt)
        assert_same(got_(hs, out), torch.addbmm(self_, b1, b2, beta=0.5, alpha=2.0), atol=atol)
    assert shim(rt, "aoti_torch_cpu_addbmm")(hs.of(b1[0]), hs.of(b2), hs.of(b1), c_double(1.0), c_double(1.0),
                                             byref(c_void_p())) == INVALID


def test_masked_select_matches_torch(rt, hs):
    x = torch.randn(4, 6, generator=gen(31))
    for values, mask in ((x, x > 0), (strided(x), torch.randn(6, generator=gen(32)) > 0), (x[:, :1], x > 0.5),
                         (x.to(torch.int64), torch.zeros(4, 6, dtype=torch.bool))):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_masked_select")(hs.of(values), hs.of(mask), byref(out)) == 0, last_error(rt)
        assert_same(got_(hs, out), torch.masked_select(values, mask))
    assert shim(rt, "aoti_torch_cpu_masked_select")(hs.of(x), hs.of(torch.ones(3) > 0), byref(c_void_p())) == INVALID


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("length", [3, 16])
def test_sdpa_with_grouped_query_heads_matches_torch(rt, hs, dtype, length):
    # enable_gqa: 8 query heads over 2 key/value heads (each key/value head serves 4 query heads).
    q = torch.randn(2, 8, length, 16, generator=gen(33)).to(dtype)
    k, v = (torch.randn(2, 2, length, 16, generator=gen(s)).to(dtype) for s in (34, 35))
    for causal in (0, 1):
        out, lse = c_void_p(), c_void_p()
        assert shim(rt, "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu")(
            hs.of(q), hs.of(k), hs.of(v), c_double(0.0), c_int32(causal), None, None, byref(out), byref(lse)) == 0, \
            last_error(rt)
        want = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=bool(causal), enable_gqa=True)
        got = got_(hs, out)
        assert got.shape == want.shape and got.dtype == dtype
        assert torch.allclose(got.float(), want.float(), atol=2e-2 if dtype == torch.bfloat16 else 1e-5)
    bad = torch.randn(2, 3, length, 16).to(dtype)  # 8 query heads over 3: no grouping
    assert shim(rt, "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu")(
        hs.of(q), hs.of(bad), hs.of(bad), c_double(0.0), c_int32(0), None, None, byref(c_void_p()),
        byref(c_void_p())) == INVALID


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_repeat_interleave_matches_torch(rt, hs, dtype):
    repeats = torch.tensor([2, 0, 3, 1, 0], dtype=dtype)
    for view, size in ((repeats, None), (strided(repeats.unsqueeze(0))[0], c_int64(6))):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_repeat_interleave_Tensor")(hs.of(view), byref(size) if size is not None else None,
                                                                   byref(out)) == 0, last_error(rt)
        assert_same(got_(hs, out), torch.repeat_interleave(view))
    assert shim(rt, "aoti_torch_cpu_repeat_interleave_Tensor")(hs.of(repeats), byref(c_int64(5)),
                                                               byref(c_void_p())) == INVALID
    assert shim(rt, "aoti_torch_cpu_repeat_interleave_Tensor")(hs.of(-repeats - 1), None, byref(c_void_p())) == INVALID


def test_nanmedian_and_pdist_match_torch(rt, hs):
    nan = float("nan")
    for x in (torch.tensor([1.0, nan, 3.0, 2.0]), torch.tensor([nan, nan]), strided(torch.randn(5, 6, generator=gen(36))),
              torch.tensor([4, 1, 3], dtype=torch.int64)):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_nanmedian")(hs.of(x), byref(out)) == 0, last_error(rt)
        assert_same(got_(hs, out), torch.nanmedian(x))
    x = strided(torch.randn(7, 5, generator=gen(37)))
    for p in (0.0, 1.0, 2.0, 3.5, float("inf")):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu__pdist_forward")(hs.of(x), c_double(p), byref(out)) == 0, last_error(rt)
        assert_same(got_(hs, out), torch.ops.aten._pdist_forward(x.contiguous(), p), atol=1e-5)  # torch: contiguous only
    assert shim(rt, "aoti_torch_cpu__pdist_forward")(hs.of(x[0]), c_double(2.0), byref(c_void_p())) == INVALID


# ---- index_put_ (aoti_torch_index_put_out, the device-free shim inductor calls) ----

def _index_put(rt, hs, out, self_, indices, values, accumulate):
    handles = (c_void_p * max(len(indices), 1))(*[None if i is None else hs.of(i).value for i in indices])
    return shim(rt, "aoti_torch_index_put_out")(hs.of(out), hs.of(self_), handles, c_uint32(len(indices)),
                                                hs.of(values), c_bool(accumulate))


def _index_put_cases(dtype):
    base = (torch.randn(5, 6, 4, generator=gen(31)) * 3)
    x = base.to(dtype) if dtype != torch.bool else base > 0
    mask = base[:, :, 0] > 0.5
    rows = torch.tensor([4, -1, 0, 4, 2])  # repeated and negative: accumulation must add every one
    cols = torch.tensor([[1], [5]])        # broadcast against rows: a [2, 5] index shape
    mid = torch.tensor([3, 0, 3])
    def vals(shape, seed):
        v = torch.randn(*shape, generator=gen(seed)) * 2
        return v.to(dtype) if dtype != torch.bool else v > 0
    return x, [
        ([mask], vals((int(mask.sum()), 4), 32)),          # x[mask] = v (a 2-d mask over dims 0, 1)
        ([mask], vals((4,), 33)),                          # values broadcast over the masked rows
        ([None, None, base[0, 0] > 0], vals((1,), 34)),    # x[:, :, m]: None entries keep dims
        ([rows, cols], vals((2, 5, 4), 35)),               # index tensors broadcast together
        ([rows], vals((5, 6, 4), 36)),                     # one index tensor
        ([None, mid], vals((5, 3, 4), 37)),                # x[:, idx]
        ([rows[:3], None, mid], vals((3, 6), 38)),         # split indices: their shape goes in front
    ]


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16, torch.bool])
def test_index_put_out_matches_torch(rt, hs, dtype, accumulate):
    x, cases = _index_put_cases(dtype)
    for indices, values in cases:
        if not accumulate and any(i is not None and i.dtype == torch.int64 and i.numel() != i.unique().numel()
                                  for i in indices):
            continue  # assignment to a repeated position: torch leaves which write wins unspecified
        for out in (x.clone(), strided(x.clone())):  # in place, as the generated code calls it
            assert _index_put(rt, hs, out, out, indices, values, accumulate) == 0, last_error(rt)
            want = torch.ops.aten.index_put_(x.clone(), indices, values, accumulate)
            atol = 0.1 if dtype == torch.bfloat16 else 1e-5
            assert_same(out.contiguous(), want, atol=atol, strides=False)


def test_index_put_out_copies_self_into_a_distinct_out_and_refuses_bad_arguments(rt, hs):
    x = torch.randn(4, 5, generator=gen(40))
    mask, values = x > 0, torch.full((1,), 7.0)
    out = torch.zeros(4, 5)
    assert _index_put(rt, hs, out, x, [mask], values, True) == 0, last_error(rt)
    assert_same(out, x.clone().index_put_((mask,), values, accumulate=True))
    # Negative controls: each refused before the first write, out untouched.
    for indices, vals, code in (([torch.tensor([0, 4])], values, INVALID),          # index past the dim
                                ([mask], values.double(), INVALID),                 # values of another dtype
                                ([mask], torch.ones(3), INVALID),                   # values that do not broadcast
                                ([mask[:3]], values, INVALID),                      # mask of the wrong shape
                                ([torch.tensor([0.5])], values, UNSUPPORTED)):      # float indices
        before = out.clone()
        assert _index_put(rt, hs, out, x, indices, vals, False) == code, last_error(rt)
        assert torch.equal(out, before)


# ---- grid_sampler_3d, histogram ----

@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("padding", [0, 1, 2])
@pytest.mark.parametrize("align", [0, 1])
def test_grid_sampler_3d_matches_torch(rt, hs, mode, padding, align):
    x = torch.randn(2, 3, 4, 5, 6, generator=gen(50))
    grid = strided(torch.rand(2, 3, 4, 2, 3, generator=gen(51)) * 2.6 - 1.3)  # past the edges too
    grid[0, 0, 0, 0] = torch.tensor([1.0, -1.0, 0.0])  # exactly on the corners
    out = c_void_p()
    assert shim(rt, "aoti_torch_cpu_grid_sampler_3d")(hs.of(x), hs.of(grid), c_int64(mode), c_int64(padding),
                                                      c_int32(align), byref(out)) == 0, last_error(rt)
    want = torch.nn.functional.grid_sample(x, grid, mode=("bilinear", "nearest")[mode],
                                           padding_mode=("zeros", "border", "reflection")[padding],
                                           align_corners=bool(align))
    assert_same(got_(hs, out), want, atol=1e-5)


def test_grid_sampler_3d_refuses_bad_arguments(rt, hs):
    x, grid = torch.randn(1, 2, 3, 3, 3), torch.zeros(1, 2, 2, 2, 3)
    for args, code in (((hs.of(x[0]), hs.of(grid), 0, 0), INVALID),          # a 4-d input
                       ((hs.of(x), hs.of(grid[..., :2]), 0, 0), INVALID),    # grid of 2-d points
                       ((hs.of(x), hs.of(grid.double()), 0, 0), INVALID),    # dtypes differ
                       ((hs.of(x), hs.of(grid), 0, 3), INVALID),             # no padding mode 3
                       ((hs.of(x), hs.of(grid), 2, 0), UNSUPPORTED)):        # bicubic is 2-d only
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_grid_sampler_3d")(args[0], args[1], c_int64(args[2]), c_int64(args[3]),
                                                          c_int32(0), byref(out)) == code
        assert out.value is None


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize(("bins", "range_", "weighted", "density"),
                         [(8, (-2.0, 2.0), False, False), (5, None, False, False), (7, (-1.0, 1.5), True, True),
                          (1, None, True, False), (10, (0.0, 0.0), False, True)])
def test_histogram_bin_ct_matches_torch(rt, hs, dtype, bins, range_, weighted, density):
    x = strided((torch.randn(6, 9, generator=gen(52)) * 1.5).to(dtype))
    x[1, 2], x[3, 4] = float("nan"), 2.0  # NaN skipped; an element on the last edge counts in the last bin
    weight = strided(torch.rand(6, 9, generator=gen(53)).to(dtype)) if weighted else None
    if range_ is None:
        x = x.nan_to_num(0.0)  # torch refuses a NaN-derived range
    hist, edges = c_void_p(), c_void_p()
    rng = (c_double * 2)(*range_) if range_ is not None else None
    range_ptr = byref(ctypes.cast(rng, ctypes.POINTER(c_double))) if rng is not None else None
    w = byref(hs.of(weight)) if weighted else None
    assert shim(rt, "aoti_torch_cpu_histogram_bin_ct")(hs.of(x), c_int64(bins), range_ptr, c_int64(2), w,
                                                       c_int32(density), byref(hist), byref(edges)) == 0, last_error(rt)
    want = torch.histogram(x, bins=bins, range=range_, weight=weight, density=density)
    assert_same(got_(hs, edges), want.bin_edges, atol=1e-6)
    assert_same(got_(hs, hist), want.hist, atol=1e-5)


def test_histogram_bin_ct_refuses_bad_arguments(rt, hs):
    x = torch.randn(10, generator=gen(54))
    f = shim(rt, "aoti_torch_cpu_histogram_bin_ct")
    backwards = (c_double * 2)(1.0, -1.0)
    ptr = ctypes.cast(backwards, ctypes.POINTER(c_double))
    for args, code in (((hs.of(x), 0, None, None), INVALID),                                 # no bins
                       ((hs.of(x), 4, byref(ptr), None), INVALID),                           # min > max
                       ((hs.of(x), 4, None, byref(hs.of(torch.ones(3)))), INVALID),          # weight's shape
                       ((hs.of(x.long()), 4, None, None), UNSUPPORTED)):                     # integers
        hist, edges = c_void_p(), c_void_p()
        assert f(args[0], c_int64(args[1]), args[2], c_int64(2), args[3], c_int32(0), byref(hist), byref(edges)) == code
        assert hist.value is None and edges.value is None
