"""The CUDA fallback ops (cuBLAS GEMMs, im2col convolution, attention) against numpy references.

Signatures are torch 2.11's c_shim_cuda.h; every call goes through the prefixed shims of the CUDA
build, with tensors made by the runtime itself.
"""

from __future__ import annotations

import time
from ctypes import byref, c_double, c_int32, c_int64, c_void_p

import numpy as np
import pytest
from _tensors import DP, HP, I64P, H, op, to_device, to_host, view

from shimgen.aoti.capi import int64_array

pytestmark = pytest.mark.gpu
NOT_READY = 600


def _mm(rt):
    return op(rt, "aoti_torch_cuda_mm_out", H, H, H)


def _addmm(rt):
    return op(rt, "aoti_torch_cuda_addmm_out", H, H, H, H, c_double, c_double)


def _bmm(rt):
    return op(rt, "aoti_torch_cuda_bmm_out", H, H, H)


def _free(rt, *handles):
    for h in handles:
        rt.delete(h)


@pytest.mark.parametrize("layout", ["contiguous", "a_transposed", "b_transposed", "out_transposed", "strided"])
def test_mm_any_layout(cuda, layout):
    rt = cuda.rt
    rng = np.random.default_rng(1)
    n, k, m = 33, 70, 17
    a, b = rng.standard_normal((n, k), np.float32), rng.standard_normal((k, m), np.float32)
    handles = []
    if layout == "a_transposed":
        da = to_device(rt, a, [1, n])
    elif layout == "strided":  # no unit stride at all: packed before cuBLAS
        big = to_device(rt, np.repeat(np.repeat(a, 2, axis=0), 2, axis=1))
        handles.append(big)
        da = view(rt, big, [n, k], [4 * k, 2])
    else:
        da = to_device(rt, a)
    db = to_device(rt, b, [1, k] if layout == "b_transposed" else None)
    out = rt.empty([n, m], [1, n] if layout == "out_transposed" else None, device_type=1)
    assert _mm(rt)(out, da, db) == 0, rt.last_error()
    np.testing.assert_allclose(to_host(rt, out), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
    _free(rt, da, db, out, *handles)


@pytest.mark.parametrize("bias_shape", [(17,), (1, 17), (33, 1), (33, 17), ()])
def test_addmm_broadcasts_bias(cuda, bias_shape):
    rt = cuda.rt
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((33, 8), np.float32), rng.standard_normal((8, 17), np.float32)
    bias = rng.standard_normal(bias_shape).astype(np.float32)
    da, db, dbias = to_device(rt, a), to_device(rt, b), to_device(rt, bias)
    out = rt.empty([33, 17], device_type=1)
    assert _addmm(rt)(out, dbias, da, db, 0.5, 2.0) == 0, rt.last_error()
    np.testing.assert_allclose(to_host(rt, out), 0.5 * bias + 2.0 * (a.astype(np.float64) @ b), rtol=1e-5, atol=1e-4)
    _free(rt, da, db, dbias, out)


def test_bmm_and_half_precision(cuda):
    rt = cuda.rt
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 9, 16), np.float32), rng.standard_normal((4, 16, 5), np.float32)
    da, db = to_device(rt, a), to_device(rt, b)
    out = rt.empty([4, 9, 5], device_type=1)
    assert _bmm(rt)(out, da, db) == 0, rt.last_error()
    np.testing.assert_allclose(to_host(rt, out), a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
    ha, hb = to_device(rt, a[0].astype(np.float16)), to_device(rt, b[0].astype(np.float16))
    hout = rt.empty([9, 5], dtype=5, device_type=1)
    assert _mm(rt)(hout, ha, hb) == 0, rt.last_error()
    np.testing.assert_allclose(to_host(rt, hout).astype(np.float64),
                               a[0].astype(np.float16).astype(np.float64) @ b[0].astype(np.float16), atol=2e-2, rtol=1e-2)
    _free(rt, da, db, out, ha, hb, hout)


def test_gemm_errors_are_codes(cuda):
    rt = cuda.rt
    a, b = to_device(rt, np.ones((4, 3), np.float32)), to_device(rt, np.ones((4, 3), np.float32))
    out = rt.empty([4, 3], device_type=1)
    assert _mm(rt)(out, a, b) == 2 and "do not multiply" in rt.last_error()
    host = rt.empty([3, 3])
    assert _mm(rt)(out, a, host) == 2 and "not a CUDA tensor" in rt.last_error()
    assert _mm(rt)(out, a, None) == 2
    ints = rt.empty([3, 3], dtype=4, device_type=1)
    assert _mm(rt)(out, a, ints) == 2 and "dtype" in rt.last_error()
    _free(rt, a, b, out, host, ints)


def test_gemm_runs_on_the_caller_stream_without_host_sync(cuda):
    rt, kit = cuda.rt, cuda.kit
    busy = cuda.stream()
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((64, 64), np.float32), rng.standard_normal((64, 64), np.float32)
    guard = rt.caller_stream_guard(busy)
    da, db = to_device(rt, a), to_device(rt, b)
    out = rt.empty([64, 64], device_type=1)
    assert _mm(rt)(out, da, db) == 0, rt.last_error()  # warm-up: cuBLAS handle and workspace for this stream
    assert kit.tk_stream_sync(busy) == 0
    assert kit.tk_spin(busy, 300_000_000) == 0
    start = time.perf_counter()
    assert _mm(rt)(out, da, db) == 0, rt.last_error()
    returned = time.perf_counter() - start
    assert kit.tk_stream_query(busy) == NOT_READY  # queued behind the spin, not run elsewhere
    result = to_host(rt, out)  # D2H on the caller stream: waits for the spin, then the GEMM
    rt.end_caller_stream_guard(guard)
    assert returned < 0.15, f"mm_out blocked the host for {returned:.3f} s"
    np.testing.assert_allclose(result, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
    _free(rt, da, db, out)


def _conv_reference(x, w, bias, stride, padding, dilation, groups):
    n, _, h, wd = x.shape
    f, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, f, oh, ow))
    fg = f // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i * dilation[0]: i * dilation[0] + stride[0] * (oh - 1) + 1: stride[0],
                           j * dilation[1]: j * dilation[1] + stride[1] * (ow - 1) + 1: stride[1]]
                out[:, g * fg:(g + 1) * fg] += np.einsum("nchw,fc->nfhw", patch, w[g * fg:(g + 1) * fg, :, i, j])
    return out + (0 if bias is None else bias.reshape(1, -1, 1, 1))


def _convolution(rt):
    return op(rt, "aoti_torch_cuda_convolution", H, H, HP, I64P, c_int64, I64P, c_int64, I64P, c_int64, c_int32,
              I64P, c_int64, c_int64, HP)


@pytest.mark.parametrize("case", [
    ((2, 4, 9, 7), (6, 2, 3, 2), (2, 1), (1, 0), (1, 2), 2, True),
    ((1, 3, 16, 16), (8, 3, 3, 3), (1, 1), (1, 1), (1, 1), 1, False),
    ((2, 4, 5, 5), (4, 1, 3, 3), (1, 1), (2, 2), (2, 2), 4, True),  # depthwise, dilated
])
def test_convolution_2d(cuda, case):
    rt = cuda.rt
    xs, ws, stride, padding, dilation, groups, with_bias = case
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ws).astype(np.float32)
    bias = rng.standard_normal(ws[0]).astype(np.float32) if with_bias else None
    dx, dw = to_device(rt, x), to_device(rt, w)
    dbias = c_void_p(to_device(rt, bias)) if with_bias else None
    ret = c_void_p()
    code = _convolution(rt)(dx, dw, byref(dbias) if dbias is not None else None, int64_array(stride), 2,
                            int64_array(padding), 2, int64_array(dilation), 2, 0, int64_array([0, 0]), 2, groups,
                            byref(ret))
    assert code == 0, rt.last_error()
    np.testing.assert_allclose(to_host(rt, ret.value), _conv_reference(x, w, bias, stride, padding, dilation, groups),
                               rtol=1e-4, atol=1e-4)
    _free(rt, dx, dw, ret.value, *([dbias.value] if dbias is not None else []))


def test_convolution_channels_last_in_channels_last_out(cuda):
    rt = cuda.rt
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal((2, 4, 6, 5)).astype(np.float32), rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(6).astype(np.float32)
    dx = to_device(rt, x, [4 * 6 * 5, 1, 5 * 4, 4])  # NHWC storage, as inductor's layout optimisation makes
    dw, dbias, ret = to_device(rt, w), c_void_p(to_device(rt, bias)), c_void_p()
    ones, zeros = int64_array([1, 1]), int64_array([0, 0])
    assert _convolution(rt)(dx, dw, byref(dbias), ones, 2, ones, 2, ones, 2, 0, zeros, 2, 1, byref(ret)) == 0, rt.last_error()
    assert rt.strides(ret.value) == [6 * 6 * 5, 1, 5 * 6, 6]
    np.testing.assert_allclose(to_host(rt, ret.value), _conv_reference(x, w, bias, (1, 1), (1, 1), (1, 1), 1),
                               rtol=1e-4, atol=1e-4)
    _free(rt, dx, dw, dbias.value, ret.value)


def test_convolution_1d_and_errors(cuda):
    rt = cuda.rt
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((2, 3, 20)).astype(np.float32), rng.standard_normal((5, 3, 4)).astype(np.float32)
    dx, dw = to_device(rt, x), to_device(rt, w)
    ret = c_void_p()
    conv = _convolution(rt)
    assert conv(dx, dw, None, int64_array([2]), 1, int64_array([1]), 1, int64_array([1]), 1, 0, int64_array([0]), 1, 1,
                byref(ret)) == 0, rt.last_error()
    expected = _conv_reference(x[:, :, None], w[:, :, None], None, (1, 2), (0, 1), (1, 1), 1)[:, :, 0]
    np.testing.assert_allclose(to_host(rt, ret.value), expected, rtol=1e-4, atol=1e-4)
    untouched = c_void_p(7)
    assert conv(dx, dw, None, int64_array([1]), 1, int64_array([0]), 1, int64_array([1]), 1, 1, int64_array([0]), 1, 1,
                byref(untouched)) == 2 and untouched.value == 7  # transposed (served since the ring ops): this
    # weight, read as [in=5, out, k], does not fit x's 3 channels: an error, the output untouched
    assert conv(dx, dw, None, int64_array([1]), 1, int64_array([0]), 1, int64_array([1]), 1, 0, int64_array([0]), 1, 2,
                byref(untouched)) == 2 and "groups" in rt.last_error()
    _free(rt, dx, dw, ret.value)


def _attention_reference(q, k, v, causal, scale, bias=None):
    s = np.einsum("bhmk,bhnk->bhmn", q.astype(np.float64), k) * scale
    if bias is not None:
        s = s + bias
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    lse = np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1)) + s.max(-1)
    return np.einsum("bhmn,bhnv->bhmv", np.exp(s - lse[..., None]), v), lse


def _efficient(rt):
    return op(rt, "aoti_torch_cuda__scaled_dot_product_efficient_attention", H, H, H, HP, c_int32, c_double, c_int32, DP,
              HP, HP, HP, HP)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("with_scale", [False, True])
def test_efficient_attention(cuda, causal, with_scale):
    rt = cuda.rt
    rng = np.random.default_rng(7)
    b, h, m, n, kd, kv = 2, 3, 37, 150, 8, 5  # n > 128: several key tiles
    q = rng.standard_normal((b, h, m, kd)).astype(np.float32)
    k = rng.standard_normal((b, h, n, kd)).astype(np.float32)
    v = rng.standard_normal((b, h, n, kv)).astype(np.float32)
    bias = rng.standard_normal((1, h, m, n)).astype(np.float32)
    # query laid out as [B, M, H, K] transposed, as a model's projections produce it
    dq = to_device(rt, q, [m * h * kd, kd, h * kd, 1])
    dk, dv, dbias = to_device(rt, k), to_device(rt, v), c_void_p(to_device(rt, bias))
    scale = 0.3 if with_scale else 1 / np.sqrt(kd)
    rets = [c_void_p() for _ in range(4)]
    code = _efficient(rt)(dq, dk, dv, byref(dbias), 1, 0.0, int(causal), byref(c_double(scale)) if with_scale else None,
                          *[byref(r) for r in rets])
    assert code == 0, rt.last_error()
    expected, lse = _attention_reference(q, k, v, causal, scale, bias)
    out = rets[0].value
    assert rt.sizes(out) == [b, h, m, kv] and rt.strides(out) == [m * h * kv, kv, h * kv, 1]  # PyTorch's meta strides
    np.testing.assert_allclose(to_host(rt, out), expected, rtol=1e-4, atol=1e-5)
    got_lse = to_host(rt, rets[1].value)
    assert got_lse.shape == (b, h, 64)  # ceil(37 / 32) * 32
    np.testing.assert_allclose(got_lse[..., :m], lse, rtol=1e-4, atol=1e-4)
    assert rt.sizes(rets[2].value) == [] and rt.scalar(rets[2].value, "aoti_torch_get_device_type", c_int32) == 0
    _free(rt, dq, dk, dv, dbias.value, *[r.value for r in rets])


def test_flash_attention_outputs(cuda):
    rt = cuda.rt
    rng = np.random.default_rng(8)
    q = rng.standard_normal((1, 2, 20, 16)).astype(np.float16)
    k = rng.standard_normal((1, 2, 20, 16)).astype(np.float16)
    v = rng.standard_normal((1, 2, 20, 16)).astype(np.float16)
    dq, dk, dv = to_device(rt, q), to_device(rt, k), to_device(rt, v)
    fn = op(rt, "aoti_torch_cuda__scaled_dot_product_flash_attention", H, H, H, c_double, c_int32, c_int32, DP,
            HP, HP, HP, HP, I64P, I64P, HP, HP, HP)
    handles = [c_void_p() for _ in range(7)]
    r0, r1, r2, r3, r6, r7, r8 = handles
    m_out, n_out = c_int64(-1), c_int64(-1)
    assert fn(dq, dk, dv, 0.0, 1, 0, None, byref(r0), byref(r1), byref(r2), byref(r3), byref(m_out), byref(n_out),
              byref(r6), byref(r7), byref(r8)) == 0, rt.last_error()
    assert (m_out.value, n_out.value) == (20, 20) and r2.value is None and r3.value is None
    assert rt.strides(r0.value) == rt.strides(dq)
    expected, lse = _attention_reference(q.astype(np.float32), k.astype(np.float32), v.astype(np.float32), True,
                                         1 / np.sqrt(16))
    np.testing.assert_allclose(to_host(rt, r0.value).astype(np.float64), expected, atol=5e-3, rtol=5e-3)
    np.testing.assert_allclose(to_host(rt, r1.value), lse, atol=5e-3, rtol=1e-3)
    assert fn(dq, dk, dv, 0.1, 1, 0, None, byref(r0), byref(r1), byref(r2), byref(r3), byref(m_out), byref(n_out),
              byref(r6), byref(r7), byref(r8)) == 3  # dropout: unsupported
    _free(rt, dq, dk, dv, *[x.value for x in (r0, r1, r6, r7, r8)])


def test_zero_fills_dense_buffers_on_the_caller_stream_and_views_alone(cuda):
    """aoti_torch_zero_ on device tensors: AOTInductor's CUDA wrapper zeroes a buffer with it before a
    kernel that accumulates into it (falcon_h1 imports it). A dense tensor is one memset, queued on the
    caller's stream; a gapped view zeroes its own elements and none between them."""
    rt, kit = cuda.rt, cuda.kit
    zero = op(rt, "aoti_torch_zero_", H)
    for dtype in (np.float32, np.float16, np.int64, np.complex128, np.bool_):
        values = (np.arange(1, 25).reshape(4, 6) % 7 + 1).astype(dtype)
        dense = to_device(rt, values)
        transposed = to_device(rt, values, [1, 4])  # dense, column-major
        for handle in (dense, transposed):
            assert zero(handle) == 0, rt.last_error()
            got = to_host(rt, handle)
            assert got.dtype == values.dtype and not got.any(), (dtype, got)
        _free(rt, dense, transposed)
    base = np.arange(1, 49, dtype=np.float32).reshape(6, 8)
    whole = to_device(rt, base)
    gapped = view(rt, whole, [2, 3], [16, 3], offset=8)  # rows 1 and 3, columns 0, 3, 6
    assert zero(gapped) == 0, rt.last_error()
    expected = base.copy()
    expected[1:5:2, ::3] = 0
    np.testing.assert_array_equal(to_host(rt, whole), expected)
    _free(rt, gapped, whole)

    busy = cuda.stream()
    buffer = to_device(rt, np.ones(1 << 20, np.float32))
    guard = rt.caller_stream_guard(busy)
    assert kit.tk_stream_sync(busy) == 0
    assert kit.tk_spin(busy, 300_000_000) == 0
    start = time.perf_counter()
    assert zero(buffer) == 0, rt.last_error()
    returned = time.perf_counter() - start
    assert kit.tk_stream_query(busy) == NOT_READY  # queued behind the spin
    result = to_host(rt, buffer)  # D2H on the caller stream: after the spin and the memset
    rt.end_caller_stream_guard(guard)
    assert returned < 0.15, f"zero_ blocked the host for {returned:.3f} s"
    assert not result.any()
    _free(rt, buffer)
