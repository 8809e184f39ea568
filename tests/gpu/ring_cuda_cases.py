"""The CUDA ops of the wider ring (tests/arch_ring.py) against torch's own CUDA kernels, in a child
process (as tests/gpu/cuda_fallback_cases.py, whose helpers it uses).

    python tests/gpu/ring_cuda_cases.py RUNTIME PREFIX [CASE...]

Prints one JSON line per case: {"case", "ok", "detail"}; tests/gpu/test_ring_cuda_ops.py asserts
them. Each case takes CUDA tensors (strided where models pass them) and checks values, dtype, shape,
that results live on the device, and one refused argument (code 2, outputs untouched).
"""

from __future__ import annotations

import ctypes
import sys
from ctypes import byref, c_char_p, c_double, c_int32, c_int64, c_void_p
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_fallback_cases import HP, I32P, I64P, H, Shims, close, run_cases

from shimgen.aoti.capi import int64_array

DEV = "cuda"


def gen(seed: int) -> torch.Generator:
    return torch.Generator(device=DEV).manual_seed(seed)


def on_device(s: Shims, handle) -> torch.Tensor:
    t = s.torch_of(handle)
    assert t.is_cuda, "the result is not on the device"
    return t


def refused(code: int, slot: c_void_p) -> None:
    assert code == 2 and slot.value == 7, f"code {code}, output {slot.value}: a bad argument must change nothing"


def scans(s: Shims, dtype):
    x = (torch.rand(4, 33, device=DEV, generator=gen(1)) + 0.5).to(dtype).t()  # strided
    hx = s.wrap(x)
    out, v, i = c_void_p(), c_void_p(), c_void_p()
    f = s.fn("aoti_torch_cuda_cumprod", H, c_int64, I32P, HP)
    assert f(hx, 0, None, byref(out)) == 0, s.rt.last_error()
    detail = close(on_device(s, out.value), torch.cumprod(x, 0).contiguous(), 1e-3 if dtype == torch.float32 else 0.5,
                   1e-4 if dtype == torch.float32 else 2e-2)
    f = s.fn("aoti_torch_cuda_logcumsumexp", H, c_int64, HP)
    assert f(hx, 0, byref(out)) == 0, s.rt.last_error()
    close(on_device(s, out.value), torch.logcumsumexp(x, 0).contiguous(), 1e-4 if dtype == torch.float32 else 0.1)
    for op in ("cummax", "cummin"):
        f = s.fn(f"aoti_torch_cuda_{op}", H, c_int64, HP, HP)
        assert f(hx, 1, byref(v), byref(i)) == 0, s.rt.last_error()
        want = getattr(torch, op)(x, 1)
        assert torch.equal(on_device(s, v.value), want.values.contiguous())
        assert torch.equal(on_device(s, i.value), want.indices.contiguous())
        bad_v, bad_i = c_void_p(7), c_void_p(7)
        refused(f(hx, 2, byref(bad_v), byref(bad_i)), bad_v)
    s.free(hx, out.value, v.value, i.value)
    return detail


def scans_device(s: Shims, dtype):
    """cumsum (new) and the scans on more dtypes and layouts: lines along a middle dim of a permuted
    tensor, a long line, integers (int64 accumulation), NaN in cummax/cummin."""
    x = torch.randn(3, 5, 70, device=DEV, generator=gen(31)).to(dtype).permute(2, 0, 1)  # [70, 3, 5], strided
    hx, out, v, i = s.wrap(x), c_void_p(), c_void_p(), c_void_p()
    cumsum = s.fn("aoti_torch_cuda_cumsum", H, c_int64, I32P, HP)
    details = []
    for dim in (0, 1, -1):
        assert cumsum(hx, dim, None, byref(out)) == 0, s.rt.last_error()
        got = on_device(s, out.value)
        want = torch.cumsum(x.double(), dim).to(dtype)
        details.append(close(got.double(), want.double(), 1e-4 if dtype == torch.float32 else 0.3,
                             1e-4 if dtype == torch.float32 else 2e-2))
        assert got.dtype == dtype and got.is_contiguous()
        s.free(out.value)
    bad = c_void_p(7)
    refused(cumsum(hx, 3, None, byref(bad)), bad)
    if dtype == torch.float32:
        ints = (torch.randint(-3, 4, (6, 40), device=DEV, generator=gen(32)).int()).t()
        hi = s.wrap(ints)
        assert cumsum(hi, 0, None, byref(out)) == 0, s.rt.last_error()
        assert torch.equal(on_device(s, out.value), torch.cumsum(ints, 0)), "int32 cumsum (int64 result)"
        s.free(out.value)
        f64 = c_int32(7)
        assert cumsum(hi, 1, byref(f64), byref(out)) == 0, s.rt.last_error()
        assert torch.equal(on_device(s, out.value), torch.cumsum(ints, 1, dtype=torch.float64)), "dtype=float64"
        s.free(out.value)
        cumprod = s.fn("aoti_torch_cuda_cumprod", H, c_int64, I32P, HP)
        assert cumprod(hi, 0, None, byref(out)) == 0, s.rt.last_error()
        assert torch.equal(on_device(s, out.value), torch.cumprod(ints, 0)), "int32 cumprod (int64 wraps alike)"
        s.free(out.value, hi)
        long_line = torch.randn(1, 5000, device=DEV, generator=gen(33))
        hl = s.wrap(long_line)
        lse = s.fn("aoti_torch_cuda_logcumsumexp", H, c_int64, HP)
        assert lse(hl, 1, byref(out)) == 0, s.rt.last_error()
        details.append(close(on_device(s, out.value), torch.logcumsumexp(long_line, 1), 2e-4, 1e-5))
        s.free(out.value, hl)
    y = x.clone()
    y[5, 1, 2] = float("nan")
    y[9, 0, 0] = float("nan")
    hy = s.wrap(y)
    for op in ("cummax", "cummin"):
        f = s.fn(f"aoti_torch_cuda_{op}", H, c_int64, HP, HP)
        for dim in (0, 2):
            assert f(hy, dim, byref(v), byref(i)) == 0, s.rt.last_error()
            want = getattr(torch, op)(y, dim)
            assert torch.equal(on_device(s, v.value).isnan(), want.values.isnan())
            assert torch.equal(on_device(s, v.value).nan_to_num(), want.values.nan_to_num()), f"{op} values"
            assert torch.equal(on_device(s, i.value), want.indices), f"{op} indices, dim {dim}"
            s.free(v.value, i.value)
    s.free(hx, hy)
    return ", ".join(details)


def pdist_device(s: Shims, dtype):
    x = torch.randn(23, 9, device=DEV, generator=gen(34)).to(dtype).t().contiguous().t()  # column-major rows
    hx, out = s.wrap(x), c_void_p()
    f = s.fn("aoti_torch_cuda__pdist_forward", H, c_double, HP)
    details = []
    for p in (0.0, 1.0, 2.0, 3.0, float("inf")):
        assert f(hx, p, byref(out)) == 0, s.rt.last_error()
        want = torch.pdist(x.double(), p=p).to(dtype)
        details.append(f"p={p}: " + close(on_device(s, out.value).double(), want.double(),
                                            1e-4 if dtype == torch.float32 else 0.1, 1e-5 if dtype == torch.float32 else 1e-2))
        s.free(out.value)
    bad = c_void_p(7)
    refused(f(hx, -1.0, byref(bad)), bad)
    s.free(hx)
    return "; ".join(details)


def scatter_reduce(s: Shims, dtype, inplace: bool):
    """scatter_reduce_two_out for every reduce and include_self, a transposed self, a sliced src,
    duplicate targets; in place (out is self, as inductor calls it) or into a separate out."""
    floating = dtype.is_floating_point
    base = torch.randn(8, 6, device=DEV, generator=gen(40)) * (1.5 if floating else 4)
    self_ = (base if floating else base.round()).to(dtype).t()  # [6, 8], strided
    src_full = torch.randn(5, 12, device=DEV, generator=gen(41)) * (1.5 if floating else 3)
    src = (src_full if floating else src_full.round()).to(dtype)[:, ::2]  # [5, 6], strided
    index = torch.randint(0, 6, (4, 5), device=DEV, generator=gen(42))  # duplicates along dim 0
    f = s.fn("aoti_torch_cuda_scatter_reduce_two_out", H, H, c_int64, H, H, c_char_p, c_int32)
    details = []
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (1, 0):
            want = self_.scatter_reduce(0, index, src[:4, :5], reduce, include_self=bool(include_self))
            target = self_.clone() if inplace else torch.full_like(self_, 7)
            ht, hs_, hi, hsrc = s.wrap(target), s.wrap(self_ if not inplace else target), s.wrap(index), s.wrap(src[:4, :5])
            assert f(ht, hs_, 0, hi, hsrc, reduce.encode(), include_self) == 0, s.rt.last_error()
            torch.cuda.synchronize()
            if floating:
                tol = 1e-4 if dtype == torch.float32 else 0.1
                details.append(close(target.double(), want.double(), tol, 1e-4 if dtype == torch.float32 else 2e-2))
            else:
                assert torch.equal(target, want), f"{reduce} include_self={include_self}: {target} != {want}"
            s.free(ht, hs_, hi, hsrc)
    # dim 1 and a negative dim, sum
    idx1 = torch.randint(0, 8, (6, 3), device=DEV, generator=gen(43))
    src1 = (torch.randn(6, 3, device=DEV, generator=gen(44)) * 3).to(dtype) if floating else torch.ones(6, 3, device=DEV, dtype=dtype)
    want = self_.scatter_reduce(-1, idx1, src1, "sum")
    target = torch.empty_like(self_)
    ht, hs_, hi, hsrc = s.wrap(target), s.wrap(self_), s.wrap(idx1), s.wrap(src1)
    assert f(ht, hs_, -1, hi, hsrc, b"sum", 1) == 0, s.rt.last_error()
    torch.cuda.synchronize()
    details.append(close(target.double(), want.double(), 1e-4 if dtype != torch.bfloat16 and dtype != torch.float16 else 0.1))
    # Negative controls: an out-of-range index (code 2, out untouched), a bad reduce.
    before = target.clone()
    bad_index = idx1.clone()
    bad_index[2, 1] = 8
    hb = s.wrap(bad_index)
    assert f(ht, hs_, 1, hb, hsrc, b"sum", 1) == 2, "an out-of-range index must be refused"
    assert f(ht, hs_, 1, hi, hsrc, b"max", 1) == 2, "reduce 'max' must be refused"
    torch.cuda.synchronize()
    assert torch.equal(target, before), "a refused scatter wrote out"
    s.free(ht, hs_, hi, hsrc, hb)
    return ", ".join(details[:3]) + f" ... ({len(details)} checks)"


def scatter_assign(s: Shims, dtype):
    """scatter_src_out and scatter_value_out (inductor's CUDA fallback for int64/bool src): a
    permutation index per column, so every target is written once (torch leaves duplicates
    unordered), in place and into a strided out."""
    self_ = torch.arange(48, device=DEV).reshape(6, 8).to(dtype).t()  # [8, 6] strided
    perm = torch.stack([torch.randperm(8, device=DEV, generator=gen(50 + c)) for c in range(6)], 1)[:5]  # [5, 6]
    src = (torch.arange(100, 130, device=DEV).reshape(5, 6) % 2 == 0) if dtype == torch.bool else \
        torch.arange(100, 130, device=DEV).reshape(5, 6).to(dtype)
    f = s.fn("aoti_torch_cuda_scatter_src_out", H, H, c_int64, H, H)
    g = s.fn("aoti_torch_cuda_scatter_value_out", H, H, c_int64, H, c_double)
    target = self_.clone()
    ht, hi, hsrc = s.wrap(target), s.wrap(perm), s.wrap(src)
    assert f(ht, ht, 0, hi, hsrc) == 0, s.rt.last_error()
    torch.cuda.synchronize()
    assert torch.equal(target, self_.scatter(0, perm, src)), "scatter_src_out in place"
    out = torch.empty(6, 8, device=DEV, dtype=dtype).t()
    ho, hs_ = s.wrap(out), s.wrap(self_)
    assert g(ho, hs_, 0, hi, 1.0 if dtype == torch.bool else -3.0) == 0, s.rt.last_error()
    torch.cuda.synchronize()
    assert torch.equal(out, self_.scatter(0, perm, 1 if dtype == torch.bool else -3)), "scatter_value_out"
    before = out.clone()
    bad = perm.clone()
    bad[0, 0] = -1
    hb = s.wrap(bad)
    assert g(ho, hs_, 0, hb, 2.0) == 2, "a negative index must be refused"
    torch.cuda.synchronize()
    assert torch.equal(out, before), "a refused scatter wrote out"
    s.free(ht, hi, hsrc, ho, hs_, hb)
    return f"{dtype}: scatter_src_out and scatter_value_out equal torch's"


def selections(s: Shims):
    x = torch.randperm(8 * 15, device=DEV, generator=gen(2)).reshape(8, 15).float()
    hx, v, i, m = s.wrap(x), c_void_p(), c_void_p(), c_void_p()
    f = s.fn("aoti_torch_cuda_kthvalue", H, c_int64, c_int64, c_int32, HP, HP)
    assert f(hx, 4, 1, 0, byref(v), byref(i)) == 0, s.rt.last_error()
    want = torch.kthvalue(x, 4, 1)
    assert torch.equal(on_device(s, v.value), want.values) and torch.equal(on_device(s, i.value), want.indices)
    bad_v, bad_i = c_void_p(7), c_void_p(7)
    refused(f(hx, 16, 1, 0, byref(bad_v), byref(bad_i)), bad_v)
    g = s.fn("aoti_torch_cuda_median", H, HP)
    assert g(hx, byref(m)) == 0 and torch.equal(on_device(s, m.value), torch.median(x))
    s.free(hx, v.value, i.value, m.value)
    return "kthvalue and median equal torch's"


def searchsorted(s: Shims, out_int32: int):
    edges = torch.sort(torch.randn(16, device=DEV, generator=gen(3))).values
    x = torch.randn(5, 7, device=DEV, generator=gen(4))
    he, hx, out = s.wrap(edges), s.wrap(x), c_void_p()
    f = s.fn("aoti_torch_cuda_searchsorted_Tensor", H, H, c_int32, c_int32, ctypes.POINTER(c_char_p), HP, HP)
    side = c_char_p(b"right")
    assert f(he, hx, out_int32, 0, byref(side), None, byref(out)) == 0, s.rt.last_error()
    assert torch.equal(on_device(s, out.value), torch.searchsorted(edges, x, side="right", out_int32=bool(out_int32)))
    b = s.fn("aoti_torch_cuda_bucketize_Tensor", H, H, c_int32, c_int32, HP)
    assert b(hx, he, out_int32, 0, byref(out)) == 0
    assert torch.equal(on_device(s, out.value), torch.bucketize(x, edges, out_int32=bool(out_int32)))
    left, bad = c_char_p(b"left"), c_void_p(7)
    refused(f(he, hx, 0, 1, byref(left), None, byref(bad)), bad)
    s.free(he, hx, out.value)
    return "searchsorted and bucketize equal torch's"


def cdist(s: Shims):
    a, b = torch.randn(2, 9, 6, device=DEV, generator=gen(5)), torch.randn(2, 11, 6, device=DEV, generator=gen(6))
    ha, hb, out = s.wrap(a), s.wrap(b), c_void_p()
    f = s.fn("aoti_torch_cuda__cdist_forward", H, H, c_double, I64P, HP)
    details = []
    for p in (1.0, 2.0, float("inf")):
        assert f(ha, hb, p, None, byref(out)) == 0, s.rt.last_error()
        details.append(close(on_device(s, out.value), torch.cdist(a, b, p=p), 1e-4))
        s.free(out.value)
    bad = c_void_p(7)
    refused(f(ha, hb, -1.0, None, byref(bad)), bad)
    s.free(ha, hb)
    return ", ".join(details)


def embedding_bag(s: Shims, mode: int):
    weight = torch.randn(20, 8, device=DEV, generator=gen(7))
    indices = torch.tensor([1, 2, 4, 4, 9, 3, 0, 19], device=DEV)
    offsets = torch.tensor([0, 3, 3, 6], device=DEV)
    hw, hi, ho = s.wrap(weight), s.wrap(indices), s.wrap(offsets)
    outs = [c_void_p() for _ in range(4)]
    f = s.fn("aoti_torch_cuda__embedding_bag", H, H, H, c_int32, c_int64, c_int32, HP, c_int32, c_int64, HP, HP, HP, HP)
    assert f(hw, hi, ho, 0, mode, 0, None, 0, -1, *(byref(o) for o in outs)) == 0, s.rt.last_error()
    want = torch.nn.functional.embedding_bag(indices, weight, offsets, mode=("sum", "mean", "max")[mode])
    detail = close(on_device(s, outs[0].value), want, 1e-5)
    bad = [c_void_p(7) for _ in range(4)]
    refused(f(hw, hi, ho, 0, 3, 0, None, 0, -1, *(byref(o) for o in bad)), bad[0])
    s.free(hw, hi, ho, *(o.value for o in outs))
    return detail


def baddbmm(s: Shims, dtype):
    b1 = torch.randn(4, 6, 16, device=DEV, generator=gen(8)).to(dtype)
    b2 = torch.randn(4, 16, 5, device=DEV, generator=gen(9)).to(dtype)
    self_ = torch.randn(5, device=DEV, generator=gen(10)).to(dtype)
    out = torch.empty(4, 6, 5, device=DEV, dtype=dtype)
    f = s.fn("aoti_torch_cuda_baddbmm_out", H, H, H, H, c_double, c_double)
    hs = [s.wrap(t) for t in (out, self_, b1, b2)]
    assert f(*hs, 0.5, 2.0) == 0, s.rt.last_error()
    want = torch.baddbmm(self_.float(), b1.float(), b2.float(), beta=0.5, alpha=2.0)
    detail = close(out.float(), want, 1e-4 if dtype == torch.float32 else 0.2)
    assert f(hs[0], hs[1], hs[3], hs[2], 1.0, 1.0) == 2, "mismatched batches must be refused"
    s.free(*hs)
    return detail


def index_reduce(s: Shims, reduce: str):
    self_ = torch.randn(6, 5, device=DEV, generator=gen(11))
    index = torch.tensor([4, 0, 4, 2, 0], device=DEV)
    source = torch.randn(5, 5, device=DEV, generator=gen(12))
    hs_, hi, hsrc, out = s.wrap(self_), s.wrap(index), s.wrap(source), c_void_p()
    f = s.fn("aoti_torch_cuda_index_reduce", H, c_int64, H, H, c_char_p, c_int32, HP)
    assert f(hs_, 0, hi, hsrc, reduce.encode(), 0, byref(out)) == 0, s.rt.last_error()
    detail = close(on_device(s, out.value), self_.index_reduce(0, index, source, reduce, include_self=False), 1e-5)
    bad = c_void_p(7)
    refused(f(hs_, 0, hi, hsrc, b"sum", 1, byref(bad)), bad)
    s.free(hs_, hi, hsrc, out.value)
    return detail


def nonzero(s: Shims):
    x = torch.randn(5, 7, device=DEV, generator=gen(13)) > 0.2
    hx, out = s.wrap(x), c_void_p()
    f = s.fn("aoti_torch_cuda_nonzero", H, HP)
    assert f(hx, byref(out)) == 0, s.rt.last_error()
    got, want = on_device(s, out.value), torch.nonzero(x)
    assert torch.equal(got, want) and got.stride() == want.stride(), f"strides {got.stride()} vs {want.stride()}"
    s.free(hx, out.value)
    return f"{want.shape[0]} coordinates, strides {got.stride()}"


def conv_transposed(s: Shims, dtype):
    x = torch.randn(2, 4, 6, 6, device=DEV, generator=gen(14)).to(dtype)
    w = torch.randn(4, 3, 3, 3, device=DEV, generator=gen(15)).to(dtype)
    b = torch.randn(6, device=DEV, generator=gen(16)).to(dtype)
    hx, hw, hb, out = s.wrap(x), s.wrap(w), s.wrap(b), c_void_p()
    f = s.fn("aoti_torch_cuda_convolution", H, H, HP, I64P, c_int64, I64P, c_int64, I64P, c_int64, c_int32, I64P,
             c_int64, c_int64, HP)
    bias = c_void_p(hb)
    assert f(hx, hw, byref(bias), int64_array([2, 2]), 2, int64_array([1, 1]), 2, int64_array([1, 1]), 2, 1,
             int64_array([1, 1]), 2, 2, byref(out)) == 0, s.rt.last_error()
    want = torch.nn.functional.conv_transpose2d(x.float(), w.float(), b.float(), 2, 1, 1, 2).to(dtype)
    detail = close(on_device(s, out.value).float(), want.float(), 1e-4 if dtype == torch.float32 else 0.1, 0.02)
    s.free(hx, hw, hb, out.value)
    return detail


def addbmm_masked_select(s: Shims):
    b1 = torch.randn(3, 5, 7, device=DEV, generator=gen(17))
    b2 = torch.randn(3, 7, 4, device=DEV, generator=gen(18))
    self_ = torch.randn(5, 4, device=DEV, generator=gen(19))
    hs_, h1, h2, out = s.wrap(self_), s.wrap(b1), s.wrap(b2), c_void_p()
    f = s.fn("aoti_torch_cuda_addbmm", H, H, H, c_double, c_double, HP)
    assert f(hs_, h1, h2, 0.5, 2.0, byref(out)) == 0, s.rt.last_error()
    detail = close(on_device(s, out.value), torch.addbmm(self_, b1, b2, beta=0.5, alpha=2.0), 1e-4)
    bad = c_void_p(7)
    refused(f(hs_, h2, h1, 1.0, 1.0, byref(bad)), bad)
    mask = self_ > 0
    hm, sel = s.wrap(mask), c_void_p()
    g = s.fn("aoti_torch_cuda_masked_select", H, H, HP)
    assert g(hs_, hm, byref(sel)) == 0, s.rt.last_error()
    assert torch.equal(on_device(s, sel.value), torch.masked_select(self_, mask))
    s.free(hs_, h1, h2, hm, out.value, sel.value)
    return detail


def segments_stats(s: Shims):
    repeats = torch.tensor([2, 0, 3, 1], device=DEV)
    x = torch.randn(7, 5, device=DEV, generator=gen(20))
    x[0, 0] = float("nan")
    hr, hx, out = s.wrap(repeats), s.wrap(x), c_void_p()
    f = s.fn("aoti_torch_cuda_repeat_interleave_Tensor", H, I64P, HP)
    assert f(hr, None, byref(out)) == 0, s.rt.last_error()
    assert torch.equal(on_device(s, out.value), torch.repeat_interleave(repeats))
    bad = c_void_p(7)
    refused(f(hr, byref(c_int64(5)), byref(bad)), bad)
    g = s.fn("aoti_torch_cuda_nanmedian", H, HP)
    assert g(hx, byref(out)) == 0 and torch.equal(on_device(s, out.value), torch.nanmedian(x))
    clean = torch.nan_to_num(x)
    hc = s.wrap(clean)
    p = s.fn("aoti_torch_cuda__pdist_forward", H, c_double, HP)
    assert p(hc, 2.0, byref(out)) == 0, s.rt.last_error()
    detail = close(on_device(s, out.value), torch.pdist(clean), 1e-4)
    s.free(hr, hx, hc, out.value)
    return detail


def random_sources(s: Shims):
    out = c_void_p()
    f = s.fn("aoti_torch_cuda_randn", I64P, c_int64, I32P, I32P, I32P, c_int32, I32P, HP)
    device = c_int32(1)
    assert f(int64_array([200, 100]), 2, None, None, byref(device), 0, None, byref(out)) == 0, s.rt.last_error()
    z = on_device(s, out.value)
    assert abs(float(z.mean())) < 0.05 and abs(float(z.std()) - 1) < 0.05, "not standard normal"
    s.free(out.value)
    like = torch.zeros(100, 200, device=DEV).t()
    hl = s.wrap(like)
    g = s.fn("aoti_torch_cuda_normal_functional", H, c_double, c_double, HP, HP)
    assert g(hl, 3.0, 0.5, None, byref(out)) == 0, s.rt.last_error()
    n = on_device(s, out.value)
    assert n.shape == like.shape and abs(float(n.mean()) - 3) < 0.05 and abs(float(n.std()) - 0.5) < 0.05
    s.free(hl, out.value)
    p = s.fn("aoti_torch_cuda_randperm", c_int64, I32P, I32P, I32P, c_int32, I32P, HP)
    assert p(500, None, None, byref(device), 0, None, byref(out)) == 0, s.rt.last_error()
    perm = on_device(s, out.value)
    assert torch.equal(perm.sort().values, torch.arange(500, device=DEV)) and not torch.equal(perm, perm.sort().values)
    s.free(out.value)
    bad = c_void_p(7)
    refused(p(-1, None, None, byref(device), 0, None, byref(bad)), bad)
    return "randn, normal and randperm draw the right distributions on the device"


def linalg(s: Shims, dtype):
    """The linalg C shims (host-staged LAPACK) on batched, strided device tensors against torch.linalg on
    CUDA: cholesky_solve and cholesky_inverse (both triangles), triangular_solve (broadcast batch),
    geqrf + ormqr rebuilding the input (sign-free), lu_unpack rebuilding A from torch's CUDA LU."""
    x = torch.randn(2, 5, 5, device=DEV, generator=gen(41), dtype=dtype)
    a = x @ x.mT + 5 * torch.eye(5, device=DEV, dtype=dtype)
    b = torch.randn(2, 3, 5, device=DEV, generator=gen(42), dtype=dtype).mT  # [2, 5, 3], strided
    tol = 1e-4 if dtype == torch.float32 else 1e-10
    one, two, three = c_void_p(), c_void_p(), c_void_p()
    details = []
    for upper in (0, 1):
        f = torch.linalg.cholesky(a, upper=bool(upper))
        hb, hf = s.wrap(b), s.wrap(f)
        solve = s.fn("aoti_torch_cuda_cholesky_solve", H, H, c_int32, HP)
        assert solve(hb, hf, upper, byref(one)) == 0, s.rt.last_error()
        got = on_device(s, one.value)
        details.append(close(got, torch.cholesky_solve(b, f, bool(upper)), tol, tol))
        assert got.stride() == (15, 1, 5), got.stride()
        inverse = s.fn("aoti_torch_cuda_cholesky_inverse", H, c_int32, HP)
        assert inverse(hf, upper, byref(two)) == 0, s.rt.last_error()
        details.append(close(on_device(s, two.value), torch.cholesky_inverse(f, bool(upper)), tol, tol))
        s.free(hb, hf, one.value, two.value)
    u, hb = torch.triu(a[0]), s.wrap(b)
    hu = s.wrap(u)
    tri = s.fn("aoti_torch_cuda_triangular_solve", H, H, c_int32, c_int32, c_int32, HP, HP)
    assert tri(hb, hu, 1, 0, 0, byref(one), byref(two)) == 0, s.rt.last_error()
    want = torch.triangular_solve(b, u, upper=True)
    details.append(close(on_device(s, one.value), want.solution, tol, tol))
    details.append(close(on_device(s, two.value), want.cloned_coefficient, 0))
    s.free(hu, one.value, two.value)
    tall = torch.randn(2, 6, 4, device=DEV, generator=gen(43), dtype=dtype)
    ht = s.wrap(tall)
    geqrf = s.fn("aoti_torch_cuda_geqrf", H, HP, HP)
    assert geqrf(ht, byref(one), byref(two)) == 0, s.rt.last_error()
    h, tau = on_device(s, one.value), on_device(s, two.value)
    r = torch.zeros_like(tall)
    r[..., :4, :] = h[..., :4, :].triu()
    hh, htau, hr = s.wrap(h), s.wrap(tau), s.wrap(r)
    ormqr = s.fn("aoti_torch_cuda_ormqr", H, H, H, c_int32, c_int32, HP)
    assert ormqr(hh, htau, hr, 1, 0, byref(three)) == 0, s.rt.last_error()
    details.append(close(on_device(s, three.value), tall, tol * 10, tol))  # Q R = the input
    s.free(ht, hh, htau, hr, one.value, two.value, three.value)
    lu, piv = torch.linalg.lu_factor(a)
    hl, hp = s.wrap(lu), s.wrap(piv)
    unpack = s.fn("aoti_torch_cuda_lu_unpack", H, H, c_int32, c_int32, HP, HP, HP)
    assert unpack(hl, hp, 1, 1, byref(one), byref(two), byref(three)) == 0, s.rt.last_error()
    p, lo, up = (on_device(s, h.value) for h in (one, two, three))
    details.append(close(p @ lo @ up, a, tol * 100, tol))
    s.free(hl, hp, one.value, two.value, three.value)
    bad, short, ha = c_void_p(7), s.wrap(torch.randn(2, 4, 3, device=DEV, dtype=dtype)), s.wrap(a)
    refused(s.fn("aoti_torch_cuda_cholesky_solve", H, H, c_int32, HP)(short, ha, 0, byref(bad)), bad)
    s.free(hb, short, ha)
    return "; ".join(details)


CASES = {
    "scans-float32": lambda s: scans(s, torch.float32),
    "scans-bfloat16": lambda s: scans(s, torch.bfloat16),
    "scans-device-float32": lambda s: scans_device(s, torch.float32),
    "scans-device-float16": lambda s: scans_device(s, torch.float16),
    "scans-device-bfloat16": lambda s: scans_device(s, torch.bfloat16),
    "pdist-float32": lambda s: pdist_device(s, torch.float32),
    "pdist-bfloat16": lambda s: pdist_device(s, torch.bfloat16),
    **{f"scatter-reduce-{n}{'-inplace' if inplace else ''}": (lambda s, d=d, inplace=inplace: scatter_reduce(s, d, inplace))
       for n, d in (("float32", torch.float32), ("float16", torch.float16), ("bfloat16", torch.bfloat16),
                    ("float64", torch.float64), ("int64", torch.int64), ("int32", torch.int32))
       for inplace in (False, True)},
    **{f"scatter-assign-{n}": (lambda s, d=d: scatter_assign(s, d))
       for n, d in (("int64", torch.int64), ("bool", torch.bool), ("float32", torch.float32), ("bfloat16", torch.bfloat16))},
    "kthvalue-median": selections,
    "searchsorted-int64": lambda s: searchsorted(s, 0),
    "searchsorted-int32": lambda s: searchsorted(s, 1),
    "cdist": cdist,
    **{f"embedding-bag-{m}": (lambda s, m=i: embedding_bag(s, m)) for i, m in enumerate(("sum", "mean", "max"))},
    "baddbmm-float32": lambda s: baddbmm(s, torch.float32),
    "baddbmm-bfloat16": lambda s: baddbmm(s, torch.bfloat16),
    **{f"index-reduce-{r}": (lambda s, r=r: index_reduce(s, r)) for r in ("prod", "mean", "amax", "amin")},
    "nonzero": nonzero,
    "conv-transposed-float32": lambda s: conv_transposed(s, torch.float32),
    "conv-transposed-bfloat16": lambda s: conv_transposed(s, torch.bfloat16),
    "addbmm-masked-select": addbmm_masked_select,
    "segments-stats": segments_stats,
    "random-sources": random_sources,
    "linalg-float32": lambda s: linalg(s, torch.float32),
    "linalg-float64": lambda s: linalg(s, torch.float64),
}


def main(argv: list[str]) -> int:
    return run_cases(argv, CASES, DEV)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
