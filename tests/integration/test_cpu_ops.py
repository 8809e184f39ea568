"""The runtime's CPU op fallbacks (BLAS GEMM, convolution, SDPA, check/item/assign) and tensor
layout fixes, called through ctypes on real data and compared with torch and numpy."""

from __future__ import annotations

import ctypes
from ctypes import byref, c_double, c_int32, c_int64, c_void_p

import numpy as np
import pytest

from tests.aoti_helpers import INVALID, PREFIX, UNSUPPORTED, shim
from tests.cpu_shim_tensors import last_error

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow


def h(handle) -> c_void_p:
    return c_void_p(handle.value if hasattr(handle, "value") else handle)


def i64s(values):
    return (c_int64 * len(values))(*values)


def test_gemm_through_blas_on_views_and_float64(rt):
    rng = np.random.default_rng(0)
    for dtype, tol in ((np.float32, 1e-4), (np.float64, 1e-11)):
        a = rng.standard_normal((70, 50)).astype(dtype)
        b = rng.standard_normal((30, 50)).astype(dtype).T          # transposed view
        c = rng.standard_normal((70, 90)).astype(dtype)[:, ::3]    # gapped: no BLAS layout, packed
        bias = rng.standard_normal(30).astype(dtype)
        out = np.zeros((70, 30), dtype)
        handles = [rt.tensor_from_array(x) for x in (out, a, b, bias, c)]
        ho, ha, hb, hbias, hc = map(h, handles)
        assert shim(rt, "aoti_torch_cpu_mm_out")(ho, ha, hb) == 0
        assert np.allclose(out, a @ b, atol=tol, rtol=0)
        assert shim(rt, "aoti_torch_cpu_addmm_out")(ho, hbias, ha, hb, c_double(0.5), c_double(2.0)) == 0
        assert np.allclose(out, 0.5 * bias + 2.0 * (a @ b), atol=tol, rtol=0)
        out_t = np.zeros((30, 70), dtype).T                          # column-major out
        hot = rt.tensor_from_array(out_t)
        assert shim(rt, "aoti_torch_cpu_mm_out")(h(hot), ha, hb) == 0
        assert np.allclose(out_t, a @ b, atol=tol, rtol=0)
        gapped_out = np.zeros((30, 60), dtype)[:, ::2]
        hgo = rt.tensor_from_array(gapped_out)
        left = rng.standard_normal((30, 70)).astype(dtype)
        hl = rt.tensor_from_array(left)
        assert shim(rt, "aoti_torch_cpu_mm_out")(h(hgo), h(hl), hc) == 0   # gapped operand and gapped out
        assert np.allclose(gapped_out, left @ c, atol=tol, rtol=0)
        for x in (*handles, hot, hgo, hl):
            rt.delete(x)


def test_gemm_errors_leave_out_untouched(rt):
    a, b = np.ones((4, 5), np.float32), np.ones((6, 3), np.float32)
    out = np.full((4, 3), 7, np.float32)
    ho, ha, hb = (rt.tensor_from_array(x) for x in (out, a, b))
    assert shim(rt, "aoti_torch_cpu_mm_out")(h(ho), h(ha), h(hb)) == INVALID
    assert "shapes do not multiply" in rt.lib.shimgen_runtime_last_error().decode()
    assert shim(rt, "aoti_torch_cpu_mm_out")(h(ho), h(ho), h(hb)) == INVALID  # 2x? shapes and overlap
    i = rt.tensor_from_array(np.ones((4, 5), np.int64))
    assert shim(rt, "aoti_torch_cpu_mm_out")(h(ho), h(i), h(hb)) == INVALID  # integer GEMMs exist; mixed ones not
    assert "one dtype" in rt.lib.shimgen_runtime_last_error().decode()
    flags = rt.tensor_from_array(np.ones((4, 5), np.bool_))
    assert shim(rt, "aoti_torch_cpu_mm_out")(h(ho), h(flags), h(hb)) == UNSUPPORTED  # torch has no bool GEMM
    assert shim(rt, "aoti_torch_cpu_mm_out")(h(ho), c_void_p(0), h(hb)) == INVALID
    assert (out == 7).all()


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8])
def test_integer_gemm_matches_torch_with_its_wraparound(rt, hs, dtype):
    """mm/addmm/bmm of integers (index arithmetic in models: i @ i.T): torch's CPU kernel sums in the
    dtype's own arithmetic, so large values wrap; exact equality, strided operands, integer alpha/beta."""
    gen = torch.Generator().manual_seed(3)
    info = torch.iinfo(dtype)
    big = torch.randint(max(info.min, -(2**40)), min(info.max, 2**40), (9, 7), generator=gen).to(dtype)
    small = torch.randint(max(info.min, -50), min(info.max, 50), (7, 12), generator=gen).to(dtype)
    for a, b in ((big, small[:, ::2]), (big[::2], small.T.contiguous().T[:, :5]), (small.T, small)):
        out = torch.empty(a.shape[0], b.shape[1], dtype=dtype)
        assert shim(rt, "aoti_torch_cpu_mm_out")(hs.of(out), hs.of(a), hs.of(b)) == 0, last_error(rt)
        assert torch.equal(out, torch.mm(a, b)), (dtype, out, torch.mm(a, b))
        bias = torch.arange(b.shape[1], dtype=dtype)
        assert shim(rt, "aoti_torch_cpu_addmm_out")(hs.of(out), hs.of(bias), hs.of(a), hs.of(b), c_double(3.0),
                                                    c_double(2.0)) == 0, last_error(rt)
        assert torch.equal(out, torch.addmm(bias, a, b, beta=3, alpha=2))
    batch = torch.stack([big[:4, :7], big[4:8, :7]])
    out = torch.empty(2, 4, 12, dtype=dtype)
    assert shim(rt, "aoti_torch_cpu_bmm_out")(hs.of(out), hs.of(batch), hs.of(small.expand(2, 7, 12))) == 0
    assert torch.equal(out, torch.bmm(batch, small.expand(2, 7, 12)))


def test_bmm_into_an_empty_out_with_zero_strides(rt, hs):
    """An out with no elements overlaps nothing, whatever its strides: inductor gives a buffer of a
    data-dependent size u the strides that size makes ({24, 32, u} strides {32 u, u, 1}: all zero but
    the last at u = 0; glm5_next_text's sparse attention selects no block of a short prompt). torch
    takes it; a non-empty out with a zero stride is still refused."""
    a, b = torch.randn(24, 32, 16), torch.randn(24, 16, 0)
    out = torch.empty_strided((24, 32, 0), (0, 0, 1))
    assert shim(rt, "aoti_torch_cpu_bmm_out")(hs.of(out), hs.of(a), hs.of(b)) == 0, last_error(rt)
    assert torch.bmm(a, b, out=torch.empty_strided((24, 32, 0), (0, 0, 1))).shape == (24, 32, 0)
    out2 = torch.empty_strided((24, 32, 4), (0, 4, 1))
    assert shim(rt, "aoti_torch_cpu_bmm_out")(hs.of(out2), hs.of(a), hs.of(torch.randn(24, 16, 4))) == INVALID
    assert "internally overlapping" in last_error(rt)


def conv(rt, x, w, b, stride, padding, dilation, groups):
    out = c_void_p()
    bias = c_void_p(rt.tensor_from_array(b).value) if b is not None else None
    code = shim(rt, "aoti_torch_cpu_convolution")(
        h(rt.tensor_from_array(x)), h(rt.tensor_from_array(w)), byref(bias) if bias is not None else None,
        i64s(stride), c_int64(len(stride)), i64s(padding), c_int64(len(padding)), i64s(dilation), c_int64(len(dilation)),
        c_int32(0), i64s([0] * len(stride)), c_int64(len(stride)), c_int64(groups), byref(out))
    return code, out


@pytest.mark.parametrize("case", [
    {"x": (2, 4, 9, 11), "w": (6, 2, 3, 3), "stride": [2, 1], "padding": [1, 2], "dilation": [1, 2], "groups": 2, "bias": True},
    {"x": (1, 3, 8, 8), "w": (5, 3, 1, 1), "stride": [1], "padding": [0], "dilation": [1], "groups": 1, "bias": False},
    {"x": (2, 4, 20), "w": (4, 1, 5), "stride": [3], "padding": [2], "dilation": [2], "groups": 4, "bias": True},
])
def test_convolution_matches_torch(rt, case):
    gen = torch.Generator().manual_seed(0)
    x, w = torch.randn(*case["x"], generator=gen), torch.randn(*case["w"], generator=gen)
    b = torch.randn(case["w"][0], generator=gen) if case["bias"] else None
    code, out = conv(rt, x.numpy(), w.numpy(), b.numpy() if b is not None else None, case["stride"], case["padding"],
                     case["dilation"], case["groups"])
    assert code == 0, rt.lib.shimgen_runtime_last_error()
    expected = torch.ops.aten.convolution(x, w, b, case["stride"], case["padding"], case["dilation"], False,
                                          [0] * len(case["stride"]), case["groups"])
    got = rt.array_from_tensor(out)
    assert got.shape == tuple(expected.shape)
    assert np.allclose(got, expected.numpy(), atol=1e-4, rtol=0)


def test_convolution_channels_last_layout_and_errors(rt):
    x = torch.randn(2, 3, 6, 6).to(memory_format=torch.channels_last)
    w = torch.randn(4, 3, 3, 3)
    xa = np.lib.stride_tricks.as_strided(x.numpy(), x.shape, [s * 4 for s in x.stride()])
    code, out = conv(rt, xa, w.numpy(), None, [1, 1], [1, 1], [1, 1], 1)
    assert code == 0
    expected = torch.nn.functional.conv2d(x, w, padding=1)
    strides = (ctypes.POINTER(c_int64))()
    shim(rt, "aoti_torch_get_strides")(h(out), byref(strides))
    assert [strides[i] for i in range(4)] == list(expected.stride())  # channels-last, like torch
    assert np.allclose(rt.array_from_tensor(out), expected.numpy(), atol=1e-4)
    code, _ = conv(rt, xa, np.ones((4, 2, 3, 3), np.float32), None, [1, 1], [0, 0], [1, 1], 1)
    assert code == INVALID and "does not fit" in rt.lib.shimgen_runtime_last_error().decode()
    code, _ = conv(rt, xa, w.numpy(), None, [0, 1], [0, 0], [1, 1], 1)
    assert code == INVALID and "stride" in rt.lib.shimgen_runtime_last_error().decode()
    code, _ = conv(rt, np.ones((1, 3, 2, 2), np.float32), w.numpy(), None, [1, 1], [0, 0], [1, 1], 1)
    assert code == INVALID and "larger than the padded input" in rt.lib.shimgen_runtime_last_error().decode()


def _strided_array(t: torch.Tensor) -> np.ndarray:
    """t's values as a numpy array with t's own strides (what the runtime's tensor then carries)."""
    return np.lib.stride_tricks.as_strided(t.numpy(), t.shape, [s * t.element_size() for s in t.stride()])


def _channels_last_like(t: torch.Tensor) -> torch.Tensor:
    """t with its channels innermost, any rank ([N, C, L] too, which torch has no memory format for)."""
    order = (0, *range(2, t.dim()), 1)
    return t.permute(order).contiguous().permute(0, t.dim() - 1, *range(1, t.dim() - 1))


@pytest.mark.parametrize("spatial", [1, 2, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("x_last, w_last", [(False, False), (True, False), (False, True), (True, True)])
def test_convolution_layout_is_torchs_fake_kernels(rt, spatial, dtype, x_last, w_last):
    # The generated code checks a fallback's result against the strides torch's fake kernel gives. For
    # a 1-d convolution only the weight decides (WavLM's x-vector TDNN: a transposed Linear weight
    # made a channels-last one, its output [N, F, L] strided (F*L, 1, F)); a 3-d one of float64 stays
    # contiguous. The old rule (input or weight, 4-d and 5-d only) failed 1-d with a channels-last
    # weight and 3-d float64 with either.
    from torch._subclasses.fake_tensor import FakeTensorMode

    gen = torch.Generator().manual_seed(spatial)
    x = torch.randn(2, 6, *[7] * spatial, generator=gen, dtype=dtype)
    w = torch.randn(4, 6, *[3] * spatial, generator=gen, dtype=dtype)
    x, w = (_channels_last_like(x) if x_last else x), (_channels_last_like(w) if w_last else w)
    args = ([1] * spatial, [1] * spatial, [2] * spatial, False, [0] * spatial, 1)
    with FakeTensorMode() as mode:
        predicted = torch.ops.aten.convolution(mode.from_tensor(x), mode.from_tensor(w), None, *args).stride()
    code, out = conv(rt, _strided_array(x), _strided_array(w), None, *args[:3], 1)
    assert code == 0, rt.lib.shimgen_runtime_last_error()
    strides = (ctypes.POINTER(c_int64))()
    shim(rt, "aoti_torch_get_strides")(h(out), byref(strides))
    assert tuple(strides[i] for i in range(spatial + 2)) == predicted
    expected = torch.ops.aten.convolution(x, w, None, *args)
    assert np.allclose(rt.array_from_tensor(out), expected.numpy(), atol=1e-4, rtol=0)


def sdpa(rt, q, k, v, causal, scale=None, mask=None, dropout=0.0):
    out, lse = c_void_p(), c_void_p()
    m = c_void_p(rt.tensor_from_array(mask).value) if mask is not None else None
    s = c_double(scale) if scale is not None else None
    code = shim(rt, "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu")(
        h(rt.tensor_from_array(q)), h(rt.tensor_from_array(k)), h(rt.tensor_from_array(v)), c_double(dropout),
        c_int32(int(causal)), byref(m) if m is not None else None, byref(s) if s is not None else None, byref(out), byref(lse))
    return code, out, lse


@pytest.mark.parametrize("causal, scale, masked", [(True, None, False), (False, 0.3, False), (False, None, True)])
def test_sdpa_matches_torch(rt, causal, scale, masked):
    gen = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, 3, 7, 8, generator=gen) for _ in range(3))
    mask = torch.randn(7, 7, generator=gen) if masked else None
    code, out, lse = sdpa(rt, q.numpy(), k.numpy(), v.numpy(), causal, scale, mask.numpy() if masked else None)
    assert code == 0, rt.lib.shimgen_runtime_last_error()
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal, scale=scale)
    assert np.allclose(rt.array_from_tensor(out), expected.numpy(), atol=1e-5)
    if not masked:
        _, ref_lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=causal, scale=scale)
        assert np.allclose(rt.array_from_tensor(lse), ref_lse.numpy(), atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sdpa_softmax_over_the_whole_exp_range(rt, dtype):
    # Scores from about -170 to +170 (scale 6 on N(0, 1) q, k of head dim 16): the softmax's own
    # exp sees every exponent float has, including ones it must flush to 0; a bool mask with an
    # all-False row (PyTorch's flash kernel gives 0 there); 9 queries over 13 keys, causal or not.
    gen = torch.Generator().manual_seed(3)
    q, k, v = (torch.randn(2, 2, n, 16, generator=gen, dtype=torch.float64) for n in (9, 13, 13))
    mask = torch.rand(9, 13, generator=gen) > 0.3
    mask[4] = False
    for causal, m in [(True, None), (False, None), (False, mask)]:
        code, out, lse = sdpa(rt, q.numpy().astype(dtype), k.numpy().astype(dtype), v.numpy().astype(dtype), causal,
                              6.0, m.numpy() if m is not None else None)
        assert code == 0, rt.lib.shimgen_runtime_last_error()
        additive = None if m is None else torch.zeros(9, 13, dtype=q.dtype).masked_fill(~m, float("-inf"))
        ref, ref_lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, is_causal=causal, scale=6.0,
                                                                                    attn_mask=additive)
        got = rt.array_from_tensor(out)
        assert got.dtype == dtype
        assert np.allclose(got, ref.numpy(), atol=1e-5, rtol=1e-5)
        if m is None:
            assert np.allclose(rt.array_from_tensor(lse), ref_lse.numpy(), atol=1e-4, rtol=1e-6)
        else:
            assert not got[:, :, 4].any()  # the fully masked query row


def test_sdpa_errors(rt):
    q = np.ones((1, 2, 3, 4), np.float32)
    assert sdpa(rt, q, q, q, True, dropout=0.1)[0] == UNSUPPORTED
    assert sdpa(rt, q, np.ones((1, 2, 3, 5), np.float32), q, True)[0] == INVALID
    assert sdpa(rt, q[0], q[0], q[0], True)[0] == INVALID


def test_item_check_and_assign(rt):
    for name, array in [("float32", np.array([2.5], np.float32)), ("int64", np.array([[-7]], np.int64)),
                        ("bool", np.array(True)), ("float64", np.array(1e300))]:
        ctype = np.ctypeslib.as_ctypes_type(array.dtype)
        value = ctype()
        assert shim(rt, f"aoti_torch_item_{name}")(h(rt.tensor_from_array(array)), byref(value)) == 0
        assert value.value == array.item()
    value = ctypes.c_float()
    assert shim(rt, "aoti_torch_item_float32")(h(rt.tensor_from_array(np.ones(2, np.float32))), byref(value)) == INVALID
    assert shim(rt, "aoti_torch_item_float32")(h(rt.tensor_from_array(np.ones(1, np.float64))), byref(value)) == UNSUPPORTED
    src = rt.tensor_from_array(np.arange(3, dtype=np.float32))
    dst = c_void_p()
    assert shim(rt, "aoti_torch_assign_tensors_out")(h(src), byref(dst)) == 0
    assert rt.array_from_tensor(dst).tolist() == [0, 1, 2]
    check = getattr(rt.lib, PREFIX + "aoti_torch_check")
    check.restype = None
    check(ctypes.c_bool(True), b"f", b"x.cpp", ctypes.c_uint32(1), b"fine")


def test_clone_of_overlapping_view_matches_torch(rt):
    """sizes [2,2,2], strides [1,1,5]: overlapping; clone must copy element-wise and pick torch's strides."""
    base = np.arange(16, dtype=np.float32)
    blob = rt.tensor_from_array(base)
    view, clone = c_void_p(), c_void_p()
    assert shim(rt, "aoti_torch__reinterpret_tensor")(h(blob), c_int64(3), i64s([2, 2, 2]), i64s([1, 1, 5]), c_int64(0),
                                                     byref(view)) == 0
    assert shim(rt, "aoti_torch_clone")(view, byref(clone)) == 0
    expected = torch.from_numpy(base).as_strided((2, 2, 2), (1, 1, 5)).clone()
    strides = (ctypes.POINTER(c_int64))()
    shim(rt, "aoti_torch_get_strides")(clone, byref(strides))
    assert [strides[i] for i in range(3)] == list(expected.stride())
    assert rt.array_from_tensor(clone).tolist() == expected.tolist()
    # copy_ from the overlapping view into a dense tensor matches too.
    dense = rt.tensor_from_array(np.zeros((2, 2, 2), np.float32))
    assert shim(rt, "aoti_torch_copy_")(h(dense), view, c_int32(0)) == 0
    assert rt.array_from_tensor(dense).tolist() == expected.tolist()


def test_zero_fills_every_dtype_and_only_a_views_own_elements(rt):
    """aoti_torch_zero_ (AOTInductor's wrapper zeroes buffers with it): dense tensors of every width,
    a column-major one, a gapped view (the elements between stay), an overlapping one, an empty one."""
    zero = shim(rt, "aoti_torch_zero_")
    for dtype in (np.float32, np.float64, np.float16, np.int8, np.int64, np.bool_, np.complex128, np.uint8):
        values = (np.arange(1, 25).reshape(4, 6) % 7 + 1).astype(dtype)
        for array in (values, np.asfortranarray(values)):
            handle = rt.tensor_from_array(array)
            assert zero(h(handle)) == 0, last_error(rt)
            assert not array.any(), (dtype, array)
            rt.delete(h(handle))
    base = np.arange(1, 49, dtype=np.float32).reshape(6, 8)
    expected = base.copy()
    expected[1:5:2, ::3] = 0
    gapped = rt.tensor_from_array(base[1:5:2, ::3])
    assert zero(h(gapped)) == 0, last_error(rt)
    np.testing.assert_array_equal(base, expected)
    row = np.arange(1, 9, dtype=np.float32)
    overlapping = rt.tensor_from_array(np.lib.stride_tricks.as_strided(row, (3, 8), (0, 4)))  # one row thrice
    assert zero(h(overlapping)) == 0, last_error(rt)
    assert not row.any()
    empty = rt.tensor_from_array(np.zeros((0, 3), np.float32))
    assert zero(h(empty)) == 0, last_error(rt)
    for handle in (gapped, overlapping, empty):
        rt.delete(h(handle))
    assert zero(None) == INVALID
