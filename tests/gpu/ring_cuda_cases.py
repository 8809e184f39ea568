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
from ctypes import byref, c_bool, c_char_p, c_double, c_int32, c_int64, c_uint32, c_void_p
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cuda_fallback_cases import HP, I32P, I64P, H, Shims, close, run_cases

from shimgen.aoti.capi import int64_array

DEV = "cuda"


def gen(seed: int) -> torch.Generator:
    return torch.Generator(device=DEV).manual_seed(seed)


def unit_roundoff(dtype: torch.dtype) -> float:
    """Half the spacing of 1.0: one rounding's relative error (2^-8 for bfloat16)."""
    return torch.finfo(dtype).eps / 2


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


def scatter_complex(s: Shims):
    """scatter_src_out of complex64 (8-byte elements) and complex128 (16-byte, the shared dispatch's
    Bytes16) equals torch's, in place and into a strided out; scatter_value_out of a complex self is
    refused (code 3) with a message naming the dtype, its out untouched."""
    f = s.fn("aoti_torch_cuda_scatter_src_out", H, H, c_int64, H, H)
    g = s.fn("aoti_torch_cuda_scatter_value_out", H, H, c_int64, H, c_double)
    perm = torch.stack([torch.randperm(8, device=DEV, generator=gen(61 + c)) for c in range(6)], 1)[:5]
    hi = s.wrap(perm)
    done = []
    for dtype in (torch.complex64, torch.complex128):
        self_ = torch.randn(6, 8, device=DEV, dtype=dtype, generator=gen(60)).t()  # [8, 6] strided
        src = torch.randn(5, 6, device=DEV, dtype=dtype, generator=gen(70))
        target = self_.clone()
        out = torch.empty(6, 8, device=DEV, dtype=dtype).t()
        ht, hsrc, ho, hs_ = s.wrap(target), s.wrap(src), s.wrap(out), s.wrap(self_)
        assert f(ht, ht, 0, hi, hsrc) == 0, s.rt.last_error()
        assert f(ho, hs_, 0, hi, hsrc) == 0, s.rt.last_error()
        torch.cuda.synchronize()
        want = self_.scatter(0, perm, src)
        assert torch.equal(target, want) and torch.equal(out, want), f"scatter_src_out of {dtype} differs from torch's"
        before = out.clone()
        code = g(ho, hs_, 0, hi, 2.0)
        torch.cuda.synchronize()
        error = s.rt.last_error()
        assert code == 3 and "dtype code" in error, f"value into {dtype}: code {code}: {error}"
        assert torch.equal(out, before), f"a refused scatter_value_out of {dtype} wrote its out"
        done.append(str(dtype).removeprefix("torch."))
        s.free(ht, hsrc, ho, hs_)
    s.free(hi)
    return f"scatter_src_out of {' and '.join(done)} equals torch's; scatter_value_out of complex refused: {error}"


def scatter_duplicates(s: Shims, dtype):
    """Heavy duplicate targets (the ring's index_ops: zeros_like(x).scatter(0, i, x)): 4096 index
    elements onto 3 rows, in a transposed layout. torch calls the winner undefined; its CPU kernel (the
    reference here, deterministic) and in practice its CUDA kernel keep the last source element in
    serial order, and so must every run of ours (three runs, equal bits)."""
    index = torch.randint(0, 3, (512, 8), device=DEV, generator=gen(55))
    src = (torch.randn(512, 8, device=DEV, generator=gen(56)) * 100).to(dtype)
    self_ = torch.zeros(8, 3, device=DEV, dtype=dtype).t()  # [3, 8] strided
    want = self_.cpu().scatter(0, index.cpu(), src.cpu())
    want_value = self_.cpu().scatter(0, index.cpu()[:, :5], 5.0)
    f = s.fn("aoti_torch_cuda_scatter_src_out", H, H, c_int64, H, H)
    g = s.fn("aoti_torch_cuda_scatter_value_out", H, H, c_int64, H, c_double)
    hs_, hi, hsrc = s.wrap(self_), s.wrap(index), s.wrap(src)
    hv = s.wrap(index[:, :5])  # a sliced (non-contiguous) index
    for run in range(3):
        out = torch.empty(8, 3, device=DEV, dtype=dtype).t()
        ho = s.wrap(out)
        assert f(ho, hs_, 0, hi, hsrc) == 0, s.rt.last_error()
        torch.cuda.synchronize()
        assert torch.equal(out.cpu(), want), f"run {run}: scatter_src_out's winners differ from torch CPU's (last wins)"
        assert g(ho, hs_, 0, hv, 5.0) == 0, s.rt.last_error()
        torch.cuda.synchronize()
        assert torch.equal(out.cpu(), want_value), f"run {run}: scatter_value_out with duplicates"
        s.free(ho)
    s.free(hs_, hi, hsrc, hv)
    return f"{dtype}: 4096 writes onto 24 targets, last writer wins in 3 runs, equal to torch CPU"


def scatter_into_slices(s: Shims, dtype):
    """Scatters into column slices of one buffer, as inductor writes torch_geometric's sum and max graph
    readouts straight into a torch.cat's output ((2, 32) at strides (96, 1), offsets 0 and 64) without
    checking the call's error code: every reduce path and the assignment path write the slice through
    its strides, and the columns between the slices (the fill, 7) stay untouched. Negative control: an
    out with a stride-0 dim of two elements is refused (code 2), as ATen refuses it."""
    rows = torch.randint(0, 2, (20,), device=DEV, generator=gen(80))
    index = rows[:, None].expand(20, 32)  # strides (1, 0), PyG's scatter of node rows onto graphs
    src = (torch.randn(20, 32, device=DEV, generator=gen(81)) * 3).to(dtype)
    f = s.fn("aoti_torch_cuda_scatter_reduce_two_out", H, H, c_int64, H, H, c_char_p, c_int32)
    g = s.fn("aoti_torch_cuda_scatter_src_out", H, H, c_int64, H, H)
    buf = torch.full((2, 96), 7, device=DEV, dtype=dtype)
    hi, hsrc = s.wrap(index), s.wrap(src)
    zero = torch.zeros(2, 32, device=DEV, dtype=dtype)
    for lo, reduce, include_self in ((0, "sum", 1), (64, "amax", 0)):
        view = buf[:, lo:lo + 32]
        view.zero_()
        hv = s.wrap(view)
        assert f(hv, hv, 0, hi, hsrc, reduce.encode(), include_self) == 0, s.rt.last_error()
        torch.cuda.synchronize()
        want = zero.scatter_reduce(0, index, src, reduce, include_self=bool(include_self))
        if reduce == "amax":  # a maximum rounds nothing
            assert torch.equal(view, want), f"amax into columns {lo}..{lo + 31}: {view} != {want}"
        else:  # a sum of k terms in any order (atomics): within (k + 1) u sum|x| of the exact sum
            exact = zero.double().scatter_reduce(0, index, src.double(), "sum")
            terms = zero.double().scatter_reduce(0, index, torch.ones_like(src, dtype=torch.float64), "sum")
            magnitude = zero.double().scatter_reduce(0, index, src.double().abs(), "sum")
            bound = (terms + 1) * unit_roundoff(dtype) * magnitude
            err = (view.double() - exact).abs()
            assert bool((err <= bound).all()), (
                f"sum into columns {lo}..{lo + 31}: max |err| {err.max().item():.3g} against the exact sum, over "
                f"the rounding bound by {(err - bound).max().item():.3g} (torch's own: "
                f"{(want.double() - exact).abs().max().item():.3g})")
        s.free(hv)
    assert bool((buf[:, 32:64] == 7).all()), "a scatter into a slice wrote outside it"
    # the assignment path (scatter_src_out) into a third, strided slice of another buffer
    other = torch.full((4, 96), 7, device=DEV, dtype=dtype)
    view = other[1:3, 32:64]
    perm = torch.stack([torch.randperm(2, device=DEV, generator=gen(82 + c)) for c in range(32)], 1)
    hv, hp, hs2 = s.wrap(view), s.wrap(perm), s.wrap(src[:2])
    assert g(hv, hv, 0, hp, hs2) == 0, s.rt.last_error()
    torch.cuda.synchronize()
    assert torch.equal(view, torch.full((2, 32), 7, device=DEV, dtype=dtype).scatter(0, perm, src[:2])), \
        "scatter_src_out into a strided slice"
    assert bool((other[0] == 7).all()) and bool((other[3] == 7).all()) and bool((other[1:3, :32] == 7).all()), \
        "scatter_src_out into a slice wrote outside it"
    overlapping = torch.zeros(1, 32, device=DEV, dtype=dtype).expand(2, 32)  # stride 0 along dim 0
    ho = s.wrap(overlapping)
    code = f(ho, hv, 0, hi, hsrc, b"sum", 1)
    assert code == 2 and "memory location" in s.rt.last_error(), f"an overlapping out: code {code}"
    s.free(hi, hsrc, hv, hp, hs2, ho)
    return f"{dtype}: sum and amax into (2, 32) slices at strides (96, 1), scatter_src_out into [1:3, 32:64]"


def fused_cells(s: Shims, dtype):
    """_thnn_fused_lstm_cell and _thnn_fused_gru_cell (LSTMCell / GRUCell's pointwise half) against
    torch's own CUDA kernels: hy, cy and the workspace, with and without biases, transposed gates
    (strided); a cx of the wrong width is refused."""
    hidden, batch = 12, 5
    tol = 1e-6 if dtype == torch.float32 else (1e-12 if dtype == torch.float64 else 1e-2)
    details = []
    for gates, op in ((4, "lstm"), (3, "gru")):
        ig = torch.randn(gates * hidden, batch, device=DEV, generator=gen(60)).to(dtype).t()  # strided
        hg = torch.randn(batch, gates * hidden, device=DEV, generator=gen(61)).to(dtype)
        state = torch.randn(batch, hidden, device=DEV, generator=gen(62)).to(dtype)
        b1 = torch.randn(gates * hidden, device=DEV, generator=gen(63)).to(dtype)
        b2 = torch.randn(gates * hidden, device=DEV, generator=gen(64)).to(dtype)
        reference = getattr(torch.ops.aten, f"_thnn_fused_{op}_cell")  # not a torch.* attribute in every release
        outs = (c_void_p(), c_void_p(), c_void_p())[: 3 if op == "lstm" else 2]
        f = s.fn(f"aoti_torch_cuda__thnn_fused_{op}_cell", H, H, H, HP, HP, *([HP] * len(outs)))
        hig, hhg, hs, hb1, hb2 = s.wrap(ig), s.wrap(hg), s.wrap(state), s.wrap(b1), s.wrap(b2)
        for biased in (True, False):
            want = reference(ig, hg, state, b1, b2) if biased else reference(ig, hg, state)
            args = (byref(c_void_p(hb1)), byref(c_void_p(hb2))) if biased else (None, None)
            assert f(hig, hhg, hs, *args, *(byref(o) for o in outs)) == 0, s.rt.last_error()
            for k, (o, w) in enumerate(zip(outs, want)):
                got = on_device(s, o.value)
                assert got.shape == w.shape and got.dtype == dtype and got.is_contiguous(), f"{op} output {k} layout"
                details.append(close(got.double(), w.double(), tol, tol))
            s.free(*(o.value for o in outs))
        bad_state = s.wrap(torch.zeros(batch, hidden + 1, device=DEV, dtype=dtype))
        bad = (c_void_p(7), c_void_p(7), c_void_p(7))[: len(outs)]
        refused(f(hig, hhg, bad_state, None, None, *(byref(b) for b in bad)), bad[0])
        s.free(hig, hhg, hs, hb1, hb2, bad_state)
    return f"{dtype}: " + ", ".join(details)


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


def conv_layouts(s: Shims, dtype):
    """The output layout torch's meta function predicts (what inductor's generated code indexes the
    result with), for each input/weight layout: a 1-channel stem made channels-last by inductor's
    layout optimisation (AST's patch embedding, transposed input), a channels-last weight only, and
    plain contiguous; 1-d ones with a transposed input, weight or both; values against torch's own
    CUDA convolution."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    cl = torch.channels_last
    layouts = [  # (input [N, C, H, W] from a transposed [N, C, W, H], weight [F, C, KH, KW], channels-last?)
        ((2, 1, 16, 32), (64, 1, 8, 8), (8, 8), cl, cl),
        ((2, 1, 16, 32), (64, 1, 8, 8), (8, 8), None, None),
        ((2, 3, 9, 10), (5, 3, 3, 3), (1, 2), None, cl),
        ((2, 3, 9, 10), (5, 3, 3, 3), (1, 1), cl, None),
    ]
    f = s.fn("aoti_torch_cuda_convolution", H, H, HP, I64P, c_int64, I64P, c_int64, I64P, c_int64, c_int32, I64P,
             c_int64, c_int64, HP)
    details = []
    for k, (xs, ws, stride, x_fmt, w_fmt) in enumerate(layouts):
        x = torch.randn(xs[0], xs[1], xs[3], xs[2], device=DEV, generator=gen(60 + k)).to(dtype).transpose(2, 3)
        if x_fmt is not None:
            x = x.contiguous(memory_format=x_fmt)
        w = torch.randn(ws, device=DEV, generator=gen(70 + k)).to(dtype)
        if w_fmt is not None:
            w = w.contiguous(memory_format=w_fmt)
        b = torch.randn(ws[0], device=DEV, generator=gen(80 + k)).to(dtype)
        with FakeTensorMode() as mode:
            predicted = torch.ops.aten.convolution(mode.from_tensor(x), mode.from_tensor(w), mode.from_tensor(b),
                                                   list(stride), [0, 0], [1, 1], False, [0, 0], 1).stride()
        hx, hw, hb, out = s.wrap(x), s.wrap(w), s.wrap(b), c_void_p()
        bias = c_void_p(hb)
        assert f(hx, hw, byref(bias), int64_array(list(stride)), 2, int64_array([0, 0]), 2, int64_array([1, 1]), 2, 0,
                 int64_array([0, 0]), 2, 1, byref(out)) == 0, s.rt.last_error()
        got = on_device(s, out.value)
        # float64: torch's float32 CUDA convolution runs in TF32 by default (0.0085 off on the H200)
        want = torch.ops.aten.convolution(x.double(), w.double(), b.double(), list(stride), [0, 0], [1, 1], False,
                                          [0, 0], 1).to(dtype)
        assert got.stride() == predicted, f"layout {k}: strides {got.stride()}, torch's meta predicts {predicted}"
        details.append(close(got.float(), want.float(), 1e-3 if dtype == torch.float32 else 0.15, 0.02))
        s.free(hx, hw, hb, out.value)
    # 1-d: torch makes the input contiguous and views both with a size-1 height, so only the weight
    # decides (WavLM's x-vector TDNN: a Linear's weight viewed [F, K, C] and transposed, the input a
    # transposed [N, L, C]).
    for k, (x_last, w_last) in enumerate(((True, False), (False, True), (True, True))):
        x = torch.randn(2, 20, 12, device=DEV, generator=gen(90 + k)).to(dtype)
        x = x.transpose(1, 2) if x_last else x.transpose(1, 2).contiguous()  # [2, 12, 20]
        w = torch.randn(8, 5, 12, device=DEV, generator=gen(95 + k)).to(dtype)
        w = w.transpose(1, 2) if w_last else w.transpose(1, 2).contiguous()  # [8, 12, 5]
        with FakeTensorMode() as mode:
            predicted = torch.ops.aten.convolution(mode.from_tensor(x), mode.from_tensor(w), None, [1], [0], [2],
                                                   False, [0], 1).stride()
        hx, hw, out = s.wrap(x), s.wrap(w), c_void_p()
        assert f(hx, hw, None, int64_array([1]), 1, int64_array([0]), 1, int64_array([2]), 1, 0, int64_array([0]), 1, 1,
                 byref(out)) == 0, s.rt.last_error()
        got = on_device(s, out.value)
        want = torch.ops.aten.convolution(x.double(), w.double(), None, [1], [0], [2], False, [0], 1).to(dtype)
        assert got.stride() == predicted, f"1-d layout {k}: strides {got.stride()}, torch's meta predicts {predicted}"
        details.append(f"1-d {tuple(got.stride())}: " + close(got.float(), want.float(),
                                                             1e-3 if dtype == torch.float32 else 0.15, 0.02))
        s.free(hx, hw, out.value)
    return "; ".join(details)


def scaled_mm(s: Shims):
    """torch._scaled_mm into out (host-staged from the CPU op: float8 widened to float32, scaled,
    summed in float32) against torch's cuBLASLt float8 GEMM on the device: tensor-wise scales into a
    float32 out, tensor-wise with a bfloat16 bias into a bfloat16 out, and row-wise scales (per row of
    self, per column of mat2) into a bfloat16 out; e4m3 activations against e4m3 and e5m2 weights."""
    details = []
    a = (torch.randn(16, 64, device=DEV, generator=gen(140)) * 2).to(torch.float8_e4m3fn)
    f = s.fn("aoti_torch_cuda__scaled_mm_out", H, H, H, H, H, HP, HP, I32P, c_int32)
    for n, (weight_dtype, rowwise, out_dtype, with_bias) in enumerate([
            (torch.float8_e4m3fn, False, torch.float32, False), (torch.float8_e5m2, False, torch.bfloat16, True),
            (torch.float8_e4m3fn, True, torch.bfloat16, False)]):
        b = torch.randn(32, 64, device=DEV, generator=gen(141 + n)).to(weight_dtype).t()  # [64, 32] column-major
        if rowwise:
            sa = torch.rand(16, 1, device=DEV, generator=gen(150 + n)) + 0.5
            sb = torch.rand(1, 32, device=DEV, generator=gen(160 + n)) + 0.5
        else:
            sa, sb = torch.tensor(0.7, device=DEV), torch.tensor(1.3, device=DEV)
        bias = torch.randn(32, device=DEV, generator=gen(170 + n)).to(torch.bfloat16) if with_bias else None
        want = torch._scaled_mm(a, b, sa, sb, bias=bias, out_dtype=out_dtype)
        out = torch.full((16, 32), 7.0, device=DEV, dtype=out_dtype)
        handles = [s.wrap(t) for t in (out, a, b, sa, sb)]
        bias_slot = c_void_p(s.wrap(bias)) if with_bias else None
        code = {torch.float32: 6, torch.bfloat16: 15}[out_dtype]
        assert f(*handles, byref(bias_slot) if with_bias else None, None, byref(c_int32(code)), 0) == 0, \
            s.rt.last_error()
        scale = float(want.float().abs().max())
        if out_dtype == torch.float32:
            # Against the exact sum (float64): the runtime sums in float32. Hopper's float8 tensor cores
            # accumulate with fewer bits (an H100 put torch's 247 of 512 outputs 0.0106 from the
            # runtime's, 2.3e-4 of the largest), so torch is held to the same scaled sum more loosely.
            exact = (a.double() @ b.double()) * sa.double() * sb.double()
            details.append(close(out.double(), exact, 1e-5 * scale))
            details.append("torch " + close(want.double(), exact, 2e-3 * scale))
        else:  # a bfloat16 out rounds once: half an ulp apart
            details.append(close(out.float(), want.float(), 8e-3 * scale))
        s.free(*handles, *([bias_slot.value] if with_bias else []))
    # the functional form: a new [M, N] of out_dtype on the device
    ret = c_void_p()
    g = s.fn("aoti_torch_cuda__scaled_mm", H, H, H, H, HP, HP, I32P, c_int32, HP)
    handles = [s.wrap(t) for t in (a, b, sa, sb)]
    assert g(*handles, None, None, byref(c_int32(15)), 0, byref(ret)) == 0, s.rt.last_error()
    want = torch._scaled_mm(a, b, sa, sb, out_dtype=torch.bfloat16)
    details.append(close(on_device(s, ret.value).float(), want.float(), 8e-3 * float(want.float().abs().max())))
    s.free(ret.value, *handles)
    return "; ".join(details)


def host_staged_generated(s: Shims):
    """The CUDA ops generated from their CPU declarations (ops/cuda/host_staged_ops.json,
    scripts/gen_host_staged.py) against torch's CUDA kernels on the same CUDA inputs: results on the
    device with torch's values and shapes (nonzero_static, gcd, masked_scatter, adaptive_max_pool3d,
    adaptive_max_pool2d on a channels-last map, segment_reduce, _int_mm out-variant, _adaptive_avg_pool2d, avg_pool2d on a channels-last input,
    avg_pool3d; uniform by its statistics); a refusal leaves the output slot."""
    details = []
    x = torch.randn(3, 4, 5, device=DEV, generator=gen(120))
    x = x.masked_fill(x.abs() < 0.5, 0.0)
    out, v, i = c_void_p(), c_void_p(), c_void_p()
    f = s.fn("aoti_torch_cuda_nonzero_static", H, c_int64, c_int64, HP)
    hx = s.wrap(x.transpose(0, 2))
    assert f(hx, 9, -1, byref(out)) == 0, s.rt.last_error()
    assert torch.equal(on_device(s, out.value), torch.nonzero_static(x.transpose(0, 2), size=9, fill_value=-1))
    s.free(out.value)
    bad = c_void_p(7)
    refused(f(hx, -1, 0, byref(bad)), bad)
    a = torch.randint(-60, 60, (4, 6), device=DEV, generator=gen(121))
    b = torch.randint(-60, 60, (6,), device=DEV, generator=gen(122))
    ha, hb = s.wrap(a.t().contiguous().t()), s.wrap(b)
    assert s.fn("aoti_torch_cuda_gcd", H, H, HP)(ha, hb, byref(out)) == 0, s.rt.last_error()
    assert torch.equal(on_device(s, out.value), torch.gcd(a, b))
    s.free(out.value, ha, hb)
    mask, source = x > 0, torch.randn(70, device=DEV, generator=gen(123))
    hm, hsrc, hself = s.wrap(mask), s.wrap(source), s.wrap(x)
    assert s.fn("aoti_torch_cuda_masked_scatter", H, H, H, HP)(hself, hm, hsrc, byref(out)) == 0, s.rt.last_error()
    assert torch.equal(on_device(s, out.value), x.masked_scatter(mask, source))
    s.free(out.value, hm, hsrc, hself, hx)
    vol = torch.randn(2, 3, 6, 7, 5, device=DEV, generator=gen(124))
    hv = s.wrap(vol)
    f = s.fn("aoti_torch_cuda_adaptive_max_pool3d", H, I64P, c_int64, HP, HP)
    assert f(hv, int64_array([3, 2, 4]), 3, byref(v), byref(i)) == 0, s.rt.last_error()
    want_v, want_i = torch.nn.functional.adaptive_max_pool3d(vol, (3, 2, 4), return_indices=True)
    assert torch.equal(on_device(s, v.value), want_v) and torch.equal(on_device(s, i.value), want_i)
    s.free(v.value, i.value)
    # adaptive_max_pool2d on a channels-last map: torch's CUDA kernel returns channels-last values
    # and indices, as its meta does; the host-staged op keeps the CPU op's layout, the same.
    plane = vol[:, :, 0].contiguous(memory_format=torch.channels_last)
    hp = s.wrap(plane)
    f = s.fn("aoti_torch_cuda_adaptive_max_pool2d", H, I64P, c_int64, HP, HP)
    assert f(hp, int64_array([4, 3]), 2, byref(v), byref(i)) == 0, s.rt.last_error()
    want_v, want_i = torch.nn.functional.adaptive_max_pool2d(plane, (4, 3), return_indices=True)
    got_v, got_i = on_device(s, v.value), on_device(s, i.value)
    assert torch.equal(got_v, want_v) and torch.equal(got_i, want_i), "adaptive_max_pool2d"
    assert got_v.stride() == want_v.stride() and got_i.stride() == want_i.stride(), (got_v.stride(), want_v.stride())
    s.free(v.value, i.value, hp)
    f = s.fn("aoti_torch_cuda__adaptive_avg_pool2d", H, I64P, c_int64, HP)
    hv2 = s.wrap(vol[:, :, 0])
    assert f(hv2, int64_array([4, 3]), 2, byref(out)) == 0, s.rt.last_error()
    details.append(close(on_device(s, out.value), torch.ops.aten._adaptive_avg_pool2d(vol[:, :, 0], [4, 3]), 1e-5))
    s.free(out.value, hv, hv2)
    data, lengths = torch.randn(12, 3, device=DEV, generator=gen(125)), torch.tensor([3, 0, 5, 4], device=DEV)
    hd, hl = s.wrap(data), s.wrap(lengths)
    f = s.fn("aoti_torch_cuda_segment_reduce", H, c_char_p, HP, HP, HP, c_int64, c_int32, ctypes.POINTER(c_double), HP)
    hl_slot = c_void_p(hl)
    assert f(hd, b"max", byref(hl_slot), None, None, 0, 0, None, byref(out)) == 0, s.rt.last_error()
    details.append(close(on_device(s, out.value), torch.segment_reduce(data, "max", lengths=lengths), 0.0))
    s.free(out.value, hd, hl)
    m1 = torch.randint(-128, 128, (17, 64), device=DEV, generator=gen(126), dtype=torch.int8)
    m2 = torch.randint(-128, 128, (64, 24), device=DEV, generator=gen(127), dtype=torch.int8)
    dst = torch.full((17, 24), 5, device=DEV, dtype=torch.int32)
    hdst, h1, h2 = s.wrap(dst), s.wrap(m1), s.wrap(m2)
    assert s.fn("aoti_torch_cuda__int_mm_out", H, H, H)(hdst, h1, h2) == 0, s.rt.last_error()
    assert torch.equal(dst, torch._int_mm(m1, m2)), "_int_mm_out: out differs from torch's"
    s.free(hdst, h1, h2)
    # A uint8 self (torchao's u8s8 form): the host-staged op serves it as torch's CPU kernel does; torch's
    # cuBLAS kernel refuses it, so the reference is the exact product in int64.
    u1 = torch.randint(0, 256, (17, 64), device=DEV, generator=gen(126), dtype=torch.uint8)
    hdst, h1, h2 = s.wrap(dst), s.wrap(u1), s.wrap(m2)
    assert s.fn("aoti_torch_cuda__int_mm_out", H, H, H)(hdst, h1, h2) == 0, s.rt.last_error()
    exact = (u1.cpu().to(torch.int64) @ m2.cpu().to(torch.int64)).to(torch.int32)
    assert torch.equal(dst.cpu(), exact), "_int_mm_out: a uint8 self differs from the exact product"
    s.free(hdst, h1, h2)
    z = torch.randn(3, 4, dtype=torch.complex64, device=DEV, generator=gen(128))
    w = torch.randn(4, dtype=torch.complex64, device=DEV, generator=gen(129))
    hz, hw = s.wrap(z), s.wrap(w)
    assert s.fn("aoti_torch_cuda_add_Tensor", H, H, c_double, HP)(hz, hw, 2.0, byref(out)) == 0, s.rt.last_error()
    details.append(close(on_device(s, out.value), torch.add(z, w, alpha=2.0), 1e-6))
    s.free(out.value)
    assert s.fn("aoti_torch_cuda_pow_Tensor_Scalar", H, c_double, HP)(hz, 3.0, byref(out)) == 0, s.rt.last_error()
    details.append(close(on_device(s, out.value), z ** 3, 1e-4))
    s.free(out.value)
    assert s.fn("aoti_torch_cuda_pow_Scalar", c_double, H, HP)(2.0, hz, byref(out)) == 0, s.rt.last_error()
    details.append(close(on_device(s, out.value), torch.pow(2.0, z), 1e-4))
    s.free(out.value, hz, hw)
    # view_dtype is a view (hand-written, ../views.h): the same device memory, no copy
    f32 = torch.randn(3, 8, device=DEV, generator=gen(130))
    hf = s.wrap(f32)
    assert s.fn("aoti_torch_cuda_view_dtype", H, c_int32, HP)(hf, 9, byref(out)) == 0, s.rt.last_error()
    viewed = on_device(s, out.value)
    assert torch.equal(viewed, f32.view(torch.complex64)) and s.rt.data_ptr(out.value) == f32.data_ptr()
    s.free(out.value, hf)
    # the average pools (torch's CUDA kernels also sum in float) and uniform (statistics, torch's layout)
    img = torch.randn(2, 8, 24, 23, device=DEV, generator=gen(131)).to(memory_format=torch.channels_last)
    himg = s.wrap(img)
    f = s.fn("aoti_torch_cuda_avg_pool2d", H, I64P, c_int64, I64P, c_int64, I64P, c_int64, c_int32, c_int32,
             ctypes.POINTER(c_int64), HP)
    assert f(himg, int64_array([7, 5]), 2, int64_array([3, 2]), 2, int64_array([3, 2]), 2, 1, 0, None,
             byref(out)) == 0, s.rt.last_error()
    pooled, want = on_device(s, out.value), torch.nn.functional.avg_pool2d(img, (7, 5), (3, 2), (3, 2), True, False)
    assert pooled.stride() == want.stride(), f"avg_pool2d: strides {pooled.stride()}, torch's {want.stride()}"
    details.append(close(pooled, want, 1e-5))
    s.free(out.value, himg)
    vol3 = torch.randn(2, 3, 8, 9, 10, device=DEV, generator=gen(132))
    hvol = s.wrap(vol3)
    f = s.fn("aoti_torch_cuda_avg_pool3d", H, I64P, c_int64, I64P, c_int64, I64P, c_int64, c_int32, c_int32,
             ctypes.POINTER(c_int64), HP)
    assert f(hvol, int64_array([3]), 1, int64_array([2]), 1, int64_array([1]), 1, 0, 1, byref(c_int64(5)),
             byref(out)) == 0, s.rt.last_error()
    details.append(close(on_device(s, out.value), torch.nn.functional.avg_pool3d(vol3, 3, 2, 1, divisor_override=5),
                         1e-5))
    s.free(out.value, hvol)
    like = torch.zeros(100, 200, device=DEV).t()
    hl = s.wrap(like)
    assert s.fn("aoti_torch_cuda_uniform", H, c_double, c_double, HP, HP)(hl, -3.0, 1.0, None, byref(out)) == 0, \
        s.rt.last_error()
    u = on_device(s, out.value)
    assert u.stride() == like.stride() and float(u.min()) >= -3 and float(u.max()) < 1
    assert abs(float(u.mean()) + 1) < 0.05, "uniform: mean not (from + to) / 2"
    s.free(out.value, hl)
    return "12 generated ops equal torch's CUDA results, view_dtype shares storage; " + "; ".join(details)


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



# ---- issue 22, real architectures: FNet, the fft model, mode_counts, DeepSeek-V2 ----------------------

def refused_with(code: int, expected: int, slot: c_void_p, s: Shims, words: str) -> None:
    """A refusal with the code a caller sees, a message naming the problem, and the output untouched."""
    error = s.rt.last_error()
    assert code == expected and slot.value == 7, f"code {code} (want {expected}), output {slot.value}: {error}"
    assert words in error, f"the error does not say {words!r}: {error}"


def same_view(s: Shims, handle, want: torch.Tensor) -> None:
    """The runtime's view has torch's sizes, strides, dtype and data pointer (shares the memory)."""
    assert s.rt.sizes(handle) == list(want.shape), f"sizes {s.rt.sizes(handle)} != {list(want.shape)}"
    assert s.rt.strides(handle) == list(want.stride()), f"strides {s.rt.strides(handle)} != {list(want.stride())}"
    assert s.rt.data_ptr(handle) == want.data_ptr(), "not a view of the same memory"
    assert torch.equal(on_device(s, handle), want)


def views(s: Shims, dtype):
    """view_as_real / view_as_complex / permute / squeeze_dim of strided CUDA tensors: torch's
    metadata, the same memory; refusals: a real tensor to view_as_real, a last stride of 2 to
    view_as_complex, a repeated permute dim, a CPU tensor."""
    real_dtype = torch.float32 if dtype == torch.complex64 else torch.float64
    base = torch.randn(6, 5, 4, device=DEV, generator=gen(60), dtype=dtype)  # complex: both parts random
    x = base.permute(2, 0, 1)[1:, ::2]  # [3, 3, 5], strided, offset
    hx, out = s.wrap(x), c_void_p()
    f = s.fn("aoti_torch_cuda_view_as_real", H, HP)
    assert f(hx, byref(out)) == 0, s.rt.last_error()
    same_view(s, out.value, torch.view_as_real(x))
    hr = out.value
    g = s.fn("aoti_torch_cuda_view_as_complex", H, HP)
    assert g(hr, byref(out)) == 0, s.rt.last_error()
    same_view(s, out.value, torch.view_as_complex(torch.view_as_real(x)))
    s.free(out.value)
    pairs = torch.randn(2, 7, 2, device=DEV, generator=gen(61)).to(real_dtype).transpose(0, 1)  # [7, 2, 2]
    hp = s.wrap(pairs)
    assert g(hp, byref(out)) == 0, s.rt.last_error()
    same_view(s, out.value, torch.view_as_complex(pairs))
    s.free(out.value)
    p = s.fn("aoti_torch_cuda_permute", H, I64P, c_int64, HP)
    assert p(hx, int64_array([2, -3, 1]), 3, byref(out)) == 0, s.rt.last_error()
    same_view(s, out.value, x.permute(2, 0, 1))
    s.free(out.value)
    q = s.fn("aoti_torch_cuda_squeeze_dim", H, c_int64, HP)
    y = x[:, :1]  # [3, 1, 5]
    hy = s.wrap(y)
    for dim in (1, -1):
        assert q(hy, dim, byref(out)) == 0, s.rt.last_error()
        same_view(s, out.value, y.squeeze(dim))
        s.free(out.value)
    bad = c_void_p(7)
    refused_with(f(hp, byref(bad)), 2, bad, s, "only supported for complex tensors")
    strided_pairs = torch.randn(3, 4, device=DEV, generator=gen(62)).to(real_dtype)[:, ::2]  # [3, 2], stride 2
    hs_ = s.wrap(strided_pairs)
    refused_with(g(hs_, byref(bad)), 2, bad, s, "last dimension with stride 1")
    refused_with(p(hx, int64_array([0, 0, 1]), 3, byref(bad)), 2, bad, s, "repeated dim")
    host = s.wrap(x.cpu())
    refused_with(f(host, byref(bad)), 2, bad, s, "not a CUDA tensor")
    s.free(hx, hr, hp, hy, hs_, host)
    return f"{dtype}: views share the memory with torch's metadata; 4 refusals"


def slice_reshape(s: Shims, dtype):
    """slice_Tensor and reshape of strided CUDA tensors (an FNO's kept modes, its einsum's flattening):
    slices are views with torch's metadata; reshape is a view where torch's is one and otherwise a
    contiguous device copy with torch's values; refusals: step 0, a shape of the wrong size."""
    base = torch.randn(4, 6, 10, device=DEV, generator=gen(90), dtype=dtype)
    x = base.permute(2, 0, 1)[1:, ::2]  # [9, 4, 3], strided, offset
    hx, out = s.wrap(x), c_void_p()
    f = s.fn("aoti_torch_cuda_slice_Tensor", H, c_int64, I64P, I64P, c_int64, HP)
    for dim, start, end, step in ((0, 0, 4, 1), (1, -3, None, 2), (2, 1, 100, 1), (-1, None, None, 3)):
        a = None if start is None else byref(c_int64(start))
        b = None if end is None else byref(c_int64(end))
        assert f(hx, dim, a, b, step, byref(out)) == 0, s.rt.last_error()
        same_view(s, out.value, x[(slice(None),) * (dim % 3) + (slice(start, end, step),)])
        s.free(out.value)
    r = s.fn("aoti_torch_cuda_reshape", H, I64P, c_int64, HP)
    contiguous = base[1:]  # [3, 6, 10], offset: views
    hc = s.wrap(contiguous)
    assert r(hc, int64_array([18, -1]), 2, byref(out)) == 0, s.rt.last_error()
    same_view(s, out.value, contiguous.reshape(18, -1))
    s.free(out.value)
    assert r(hx, int64_array([-1]), 1, byref(out)) == 0, s.rt.last_error()  # no view: a device copy
    want = x.reshape(-1)
    assert s.rt.strides(out.value) == [1] and s.rt.data_ptr(out.value) != x.data_ptr()
    assert torch.equal(on_device(s, out.value), want)
    s.free(out.value)
    bad = c_void_p(7)
    refused_with(f(hx, 0, None, None, 0, byref(bad)), 2, bad, s, "slice step must be positive")
    refused_with(r(hx, int64_array([5, -1]), 2, byref(bad)), 2, bad, s, "is invalid for input of size 108")
    s.free(hx, hc)
    return f"{dtype}: slices and reshape views share the memory, a reshape copy on the device; 2 refusals"


def cat(s: Shims, dtype):
    """aoti_torch_cuda_cat (Qwen-Image's complex rotary table on CUDA) against torch.cat of the same
    CUDA tensors: strided, offset and empty pieces, 1-d empty ones skipped, negative dims, channels-last
    inputs (2-d and 3-d: the result's strides are torch's); the result is a new device tensor; refusals:
    mismatched sizes, a 0-d tensor, mixed dtypes (torch promotes, unsupported here), a CPU tensor."""
    cl = lambda t: t.contiguous(memory_format=torch.channels_last)  # noqa: E731
    cl3 = lambda t: t.contiguous(memory_format=torch.channels_last_3d)  # noqa: E731
    a = torch.randn(2, 3, 4, device=DEV, generator=gen(80), dtype=dtype)
    b = torch.randn(2, 5, 4, device=DEV, generator=gen(81), dtype=dtype)
    x = torch.randn(2, 3, 4, 5, device=DEV, generator=gen(82), dtype=dtype)
    y = torch.randn(2, 2, 4, 5, device=DEV, generator=gen(83), dtype=dtype)
    v = torch.randn(1, 3, 2, 4, 5, device=DEV, generator=gen(84), dtype=dtype)
    none = torch.empty(0, device=DEV, dtype=dtype)
    calls = [([a, b], 1), ([a, b], -2), ([a.transpose(0, 2).contiguous().transpose(0, 2), b[:, :, ::1]], 1),
             ([a[:, 1:], b[:, ::2], a], 1), ([a, none, b, none], 1), ([a[:, :0], b], 1), ([none, none], 0),
             ([a[0, 0], b[1, 2]], 0), ([cl(x), cl(y)], 1), ([cl(x), y], 1), ([cl(x), cl(x)], 3),
             ([cl3(v), cl3(v)], 1)]
    f = s.fn("aoti_torch_cuda_cat", HP, c_int64, c_int64, HP)
    keep = []
    for tensors, dim in calls:
        handles = [s.wrap(t) for t in tensors]
        keep += handles
        out = c_void_p()
        assert f((c_void_p * len(handles))(*handles), len(handles), dim, byref(out)) == 0, s.rt.last_error()
        want = torch.cat(tensors, dim)
        got = on_device(s, out.value)
        assert (got.shape, got.stride(), got.dtype) == (want.shape, want.stride(), want.dtype), \
            f"cat dim {dim}: {tuple(got.shape)} {got.stride()} {got.dtype}, torch {tuple(want.shape)} {want.stride()} {want.dtype}"
        assert torch.equal(got, want), f"cat dim {dim}: values differ"
        assert want.numel() == 0 or all(s.rt.data_ptr(out.value) != t.data_ptr() for t in tensors), "not a new tensor"
        s.free(out.value)
    other = torch.zeros(2, 3, 4, device=DEV, dtype=torch.float16 if dtype != torch.float16 else torch.float32)
    bad_calls = [([a, b], 0, 2, "Sizes of tensors must match except in dimension 0"),
                 ([a[0, 0, 0], a[0, 0, 1]], 0, 2, "zero-dimensional tensor (at position 0) cannot be concatenated"),
                 ([a, other], 0, 3, "different dtypes"), ([a, a.cpu()], 0, 2, "is not a CUDA tensor")]
    for tensors, dim, code, words in bad_calls:
        handles = [s.wrap(t) for t in tensors]
        keep += handles
        bad = c_void_p(7)
        refused_with(f((c_void_p * len(handles))(*handles), len(handles), dim, byref(bad)), code, bad, s, words)
    s.free(*keep)
    return f"{dtype}: {len(calls)} concatenations equal to torch.cat (values, strides, dtype); {len(bad_calls)} refusals"


def complex_elementwise(s: Shims, dtype):
    """Complex abs, mul_Tensor and polar on the device against torch's CUDA kernels: strided and
    broadcast operands, a real operand, a 0-d CPU scalar (scalar_to_tensor's); dtypes and strides
    as torch's; refusals: mismatched polar dtypes, a product of two real tensors, an int abs."""
    real_dtype = torch.float32 if dtype == torch.complex64 else torch.float64
    tol = 1e-5 if dtype == torch.complex64 else 1e-12
    a = torch.randn(5, 8, device=DEV, generator=gen(70), dtype=dtype).t()  # [8, 5], strided
    b = torch.randn(5, device=DEV, generator=gen(71), dtype=dtype)  # broadcast along rows
    r = torch.randn(8, 1, device=DEV, generator=gen(72)).to(real_dtype)  # real, broadcast along columns
    ha, hb, hr, out = s.wrap(a), s.wrap(b), s.wrap(r), c_void_p()
    details = []
    ab = s.fn("aoti_torch_cuda_abs", H, HP)
    assert ab(ha, byref(out)) == 0, s.rt.last_error()
    got, want = on_device(s, out.value), torch.abs(a)
    details.append("abs " + close(got, want, tol, tol))
    assert got.stride() == want.stride(), f"abs strides {got.stride()} != {want.stride()}"
    s.free(out.value)
    mul = s.fn("aoti_torch_cuda_mul_Tensor", H, H, HP)
    scalar = torch.tensor(-1.5, dtype=torch.float64)  # a 0-d CPU operand never widens the result
    hscalar = s.wrap(scalar)
    for name, (x, hx_), (y, hy_) in (("complex*complex", (a, ha), (b, hb)), ("complex*real", (a, ha), (r, hr)),
                                     ("real*complex", (r, hr), (a, ha)), ("complex*scalar", (a, ha), (scalar, hscalar))):
        assert mul(hx_, hy_, byref(out)) == 0, f"{name}: {s.rt.last_error()}"
        got, want = on_device(s, out.value), torch.mul(x, y)
        details.append(f"{name} " + close(torch.view_as_real(got), torch.view_as_real(want), tol, tol))
        assert got.dtype == want.dtype and got.stride() == want.stride(), f"{name}: {got.dtype} {got.stride()} vs {want.dtype} {want.stride()}"
        s.free(out.value)
    magnitude = torch.rand(6, 1, 4, device=DEV, generator=gen(73)).to(real_dtype) + 0.5  # broadcast along dim 1
    angle = (torch.rand(4, 3, 6, device=DEV, generator=gen(74)).to(real_dtype) * 6.3).permute(2, 1, 0)  # [6, 3, 4]
    hm, hang = s.wrap(magnitude), s.wrap(angle)
    polar = s.fn("aoti_torch_cuda_polar", H, H, HP)
    assert polar(hm, hang, byref(out)) == 0, s.rt.last_error()
    got, want = on_device(s, out.value), torch.polar(magnitude.expand_as(angle), angle)
    details.append("polar " + close(torch.view_as_real(got), torch.view_as_real(want), tol, tol))
    assert got.dtype == dtype, f"polar gave {got.dtype}"
    s.free(out.value)
    bad = c_void_p(7)
    other = s.wrap(angle.to(torch.float64 if real_dtype == torch.float32 else torch.float32))
    refused_with(polar(hm, other, byref(bad)), 2, bad, s, "same dtype")
    refused_with(mul(hr, hr, byref(bad)), 3, bad, s, "only products with a complex operand")
    ints = s.wrap(torch.arange(6, device=DEV))
    refused_with(ab(ints, byref(bad)), 3, bad, s, "abs: dtype code 4")
    s.free(ha, hb, hr, hscalar, hm, hang, other, ints)
    return f"{dtype}: " + ", ".join(details)


def fft_against_cufft(s: Shims, name: str, tol: float, calls, refusal) -> str:
    """Each (tensor, dims, normalization, forward/onesided) of ``calls`` through the runtime's
    aoti_torch_cuda_<name> and torch's aten.<name> (cuFFT) on the same CUDA tensor: values within tol
    of the largest, cuFFT's strides. Then ``refusal`` (dims, words in the error) on the first tensor."""
    f = s.fn(f"aoti_torch_cuda_{name}", H, I64P, c_int64, c_int64, c_int32, HP)
    out = c_void_p()
    for t, dims, norm, flag in calls:
        ht = s.wrap(t)
        assert f(ht, int64_array(dims), len(dims), norm, flag, byref(out)) == 0, s.rt.last_error()
        got, want = on_device(s, out.value), getattr(torch.ops.aten, name)(t, dims, norm, bool(flag))
        scale = float(want.abs().max()) or 1.0
        close(torch.view_as_real(got) / scale, torch.view_as_real(want) / scale, tol)
        assert got.stride() == want.stride(), f"dims {dims}: strides {got.stride()} != cuFFT's {want.stride()}"
        s.free(out.value, ht)
    hx, bad = s.wrap(calls[0][0]), c_void_p(7)
    dims, words = refusal
    refused_with(f(hx, int64_array(dims), len(dims), 0, 1, byref(bad)), 2, bad, s, words)
    s.free(hx)
    return f"{len(calls)} transforms within {tol:g} of cuFFT's (scaled), strides equal"


def fft_c2c(s: Shims, dtype):
    """_fft_c2c (host-staged) against torch's cuFFT on the same CUDA tensors: dims [1], [0, 1], four
    dims (two cuFFT stages), a transposed input, every normalization, forward and inverse; values and
    the strides torch's CUDA kernel gives. Refusal: a repeated dim."""
    x = torch.randn(6, 10, device=DEV, generator=gen(80), dtype=dtype)
    four = torch.randn(2, 3, 4, 5, device=DEV, generator=gen(81), dtype=dtype).permute(3, 1, 0, 2)
    calls = [(t, dims, norm, forward) for t, dims in ((x, [1]), (x, [0, 1]), (x.t(), [0, 1]), (x.t(), [1]),
                                                      (four, [0, 1, 2, 3]))
             for norm in (0, 1, 2) for forward in (1, 0)]
    tol = 2e-4 if dtype == torch.complex64 else 1e-9
    return f"{dtype}: " + fft_against_cufft(s, "_fft_c2c", tol, calls, ([1, -1], "distinct"))


def fft_r2c(s: Shims, dtype):
    """_fft_r2c (host-staged) against torch's cuFFT: rfft of the last dim, rfft2 of a 2-d tensor
    (column-major on CUDA), two-sided, a transposed input, 3 dims; values and cuFFT's strides.
    Refusal: an empty dim list."""
    x = torch.randn(6, 16, device=DEV, generator=gen(82)).to(dtype)
    three = torch.randn(4, 3, 8, device=DEV, generator=gen(83)).to(dtype).transpose(0, 1)
    calls = [(t, dims, norm, onesided) for t, dims, onesided in ((x, [1], 1), (x, [0, 1], 1), (x, [0, 1], 0),
                                                                 (x.t(), [0], 1), (x.t(), [1, 0], 1), (three, [0, 1, 2], 1))
             for norm in (0, 2)]
    tol = 2e-4 if dtype == torch.float32 else 1e-9
    return f"{dtype}: " + fft_against_cufft(s, "_fft_r2c", tol, calls, ([], "dim is empty"))


def mode(s: Shims, dtype):
    """mode (host-staged) along both dims of a transposed CUDA tensor, keepdim or not, against
    torch.mode: values equal, indices pointing at them; lines with one most frequent value, then lines
    with ties (torch's CUDA rule: the run its reduction tree prefers, ops/mode.h). Refusal: dim out of range."""
    others = torch.stack([torch.randperm(7, device=DEV, generator=gen(90 + r)) + 10 for r in range(9)])  # distinct
    lines = torch.cat([others, torch.full((9, 4), 6, device=DEV)], 1)  # 6 four times, the others once
    lines = lines[:, torch.randperm(11, device=DEV, generator=gen(91))]
    x = lines.to(dtype).t()  # [11, 9] strided; the mode along dim 0 is 6 in every column
    hx, v, i = s.wrap(x), c_void_p(), c_void_p()
    f = s.fn("aoti_torch_cuda_mode", H, c_int64, c_int32, HP, HP)
    checked = 0
    for keepdim in (0, 1):
        assert f(hx, 0, keepdim, byref(v), byref(i)) == 0, s.rt.last_error()
        want = torch.mode(x, 0, bool(keepdim))
        got_v, got_i = on_device(s, v.value), on_device(s, i.value)
        assert torch.equal(got_v, want.values), f"values {got_v.tolist()} != {want.values.tolist()}"
        picked = torch.gather(x, 0, got_i if keepdim else got_i.unsqueeze(0))
        assert torch.equal(picked if keepdim else picked.squeeze(0), got_v), "indices do not point at the mode"
        assert got_i.dtype == torch.int64 and got_v.shape == want.values.shape
        checked += 1
        s.free(v.value, i.value)
    # along dim 1 of a tensor whose rows each hold one value 3 times and the rest once
    rows = torch.stack([torch.randperm(8, device=DEV, generator=gen(92 + r)) for r in range(5)])
    rows[:, :3] = rows[:, :1]
    y = rows.to(dtype)[:, torch.randperm(8, device=DEV, generator=gen(99))]
    hy = s.wrap(y)
    assert f(hy, -1, 0, byref(v), byref(i)) == 0, s.rt.last_error()
    assert torch.equal(on_device(s, v.value), torch.mode(y, -1).values)
    assert torch.equal(y.gather(1, on_device(s, i.value).unsqueeze(1)).squeeze(1), on_device(s, v.value))
    s.free(v.value, i.value)
    # ties between values (mode_counts' shape: small counts over few values): torch's CUDA kernel
    # gives them to the run its reduction tree prefers (ops/mode.h): the smallest, the largest or a
    # middle value. 4 values over 9 (the largest wins every tie there), 7 values over 9 and lines of
    # 40 and 300 (other block sizes), each against torch's own CUDA kernel.
    for k, (rows, n, values) in enumerate(((6, 9, 4), (64, 9, 7), (32, 40, 12), (8, 300, 60))):
        ties = (torch.rand(rows, n, device=DEV, generator=gen(98 + k)) * values).floor().to(dtype)
        ht = s.wrap(ties)
        assert f(ht, 1, 0, byref(v), byref(i)) == 0, s.rt.last_error()
        want_ties = torch.mode(ties, 1)
        assert torch.equal(on_device(s, v.value), want_ties.values), \
            f"ties ({rows}x{n}, {values} values): {on_device(s, v.value).tolist()} != {want_ties.values.tolist()}"
        assert torch.equal(on_device(s, i.value), want_ties.indices), "ties: indices differ from torch's (the last)"
        s.free(v.value, i.value, ht)
    bad_v, bad_i = c_void_p(7), c_void_p(7)
    refused_with(f(hx, 2, 0, byref(bad_v), byref(bad_i)), 2, bad_v, s, "out of range")
    s.free(hx, hy)
    return f"{dtype}: mode values equal torch's (ties too), indices point at them ({checked + 5} calls)"


def index_tensor(s: Shims, dtype):
    """index_Tensor (device gather, planned on the host) against torch's CUDA indexing: a boolean mask
    of a permuted tensor, int64 index tensors with None between them (result dims in front) and
    broadcast, negative indices, a CPU index tensor with a CUDA self, a channels-last image; values
    and torch's strides. Refusal: an index out of bounds."""
    x = torch.randn(6, 5, 4, device=DEV, generator=gen(100)).to(dtype).permute(1, 0, 2)  # [5, 6, 4]
    image = torch.randn(2, 3, 4, 5, device=DEV, generator=gen(101)).to(dtype).to(memory_format=torch.channels_last)
    out = c_void_p()
    f = s.fn("aoti_torch_cuda_index_Tensor", H, ctypes.POINTER(HP), c_int64, HP)

    def call(t, indices):
        handles = [None if i is None else c_void_p(s.wrap(i)) for i in indices]
        slots = (HP * len(handles))(*[None if h is None else ctypes.pointer(h) for h in handles])
        ht = s.wrap(t)
        code = f(ht, slots, len(handles), byref(out))
        return code, [ht, *(h.value for h in handles if h is not None)]

    mask = x > 0.3
    i0 = torch.tensor([[4, -1], [0, 2]], device=DEV)
    i2 = torch.tensor([3, 0], device=DEV)
    checks = [(x, [mask], x[mask]), (x, [None, torch.tensor([5, 0, -6], device=DEV)], x[:, [5, 0, -6]]),
              (x, [i0, None, i2], x[i0, :, i2]), (x, [i0.cpu(), torch.tensor([1], device=DEV)], x[i0.cpu(), [1]]),
              (x, [None, mask[0]], x[:, mask[0]]), (image, [None, torch.tensor([2, 0], device=DEV)], image[:, [2, 0]])]
    for t, indices, want in checks:
        code, hs_ = call(t, indices)
        assert code == 0, s.rt.last_error()
        got = on_device(s, out.value)
        shapes = [None if i is None else tuple(i.shape) for i in indices]
        assert got.dtype == want.dtype and torch.equal(got, want), f"{shapes}"
        assert all(a == b for a, b, n in zip(got.stride(), want.stride(), got.shape) if n > 1), \
            f"{shapes}: strides {got.stride()} != torch's {want.stride()}"
        s.free(out.value, *hs_)
    out.value = 7
    code, hs_ = call(x, [None, torch.tensor([6], device=DEV)])
    refused_with(code, 2, out, s, "out of bounds")
    s.free(*hs_)
    return f"{dtype}: {len(checks)} indexings equal torch's"


def copy_to_complex(s: Shims):
    """copy_ of a real CUDA tensor into a complex one (how inductor promotes before a complex fallback:
    FNet): strided both sides, a broadcast source, both widths. Refusal: float16 into complex64."""
    copy = s.fn("aoti_torch_copy_", H, H, c_int32)
    for real, cplx in ((torch.float32, torch.complex64), (torch.float64, torch.complex128)):
        src = torch.randn(4, 6, device=DEV, generator=gen(110)).to(real).t()  # [6, 4]
        dst = torch.full((4, 6), 7 + 7j, device=DEV, dtype=cplx).t()
        hd, hs_ = s.wrap(dst), s.wrap(src)
        assert copy(hd, hs_, 0) == 0, s.rt.last_error()
        torch.cuda.synchronize()
        assert torch.equal(dst, src.to(cplx)), f"{real} -> {cplx}"
        row = torch.randn(4, device=DEV, generator=gen(111)).to(real)
        hrow = s.wrap(row)
        assert copy(hd, hrow, 0) == 0, s.rt.last_error()
        torch.cuda.synchronize()
        assert torch.equal(dst, row.to(cplx).expand(6, 4)), "broadcast source"
        s.free(hd, hs_, hrow)
    dst = torch.zeros(3, device=DEV, dtype=torch.complex64)
    before = dst.clone()
    hd, hh = s.wrap(dst), s.wrap(torch.ones(3, device=DEV, dtype=torch.float16))
    code = copy(hd, hh, 0)
    torch.cuda.synchronize()
    assert code == 3 and "dtype conversion" in s.rt.last_error() and torch.equal(dst, before), s.rt.last_error()
    s.free(hd, hh)
    return "float32/64 -> complex64/128 copies equal torch's; float16 refused"
def index_put(s: Shims, dtype, accumulate: bool):
    """aoti_torch_index_put_out on the device (staged through the host): a mask, repeated index
    tensors with a None dim (int64 accumulation is what inductor's atomics lack), in place on a
    strided tensor as the generated code calls it; a bad index changes nothing."""
    base = torch.randn(5, 6, device=DEV, generator=gen(41)) * 3
    x = base.to(dtype).t()  # [6, 5], strided
    # Repeated targets only when accumulating (which write wins an assignment is unspecified).
    rows = torch.tensor([4, -1, 0, 4] if accumulate else [3, 1, 0, -1], device=DEV)
    mask = x > 0 if dtype != torch.bool else x
    f = s.fn("aoti_torch_index_put_out", H, H, c_void_p, c_uint32, H, c_bool)
    details = []
    for indices, values in (([mask], torch.ones(1, device=DEV).to(dtype)),
                            ([None, rows], (torch.randn(6, 4, device=DEV, generator=gen(42)) * 3).to(dtype))):
        out = x.clone()
        handles = [s.wrap(i) if i is not None else None for i in indices]
        array = (c_void_p * len(handles))(*handles)
        ho, hv = s.wrap(out), s.wrap(values)
        assert f(ho, ho, array, len(handles), hv, accumulate) == 0, s.rt.last_error()
        torch.cuda.synchronize()
        want = torch.ops.aten.index_put_(x.clone(), indices, values, accumulate)
        details.append(close(out, want, 1e-5 if dtype != torch.bfloat16 else 0.1))
        s.free(ho, hv, *[h for h in handles if h])
    out = x.clone()
    ho, hv, hbad = s.wrap(out), s.wrap(torch.ones(1, device=DEV).to(dtype)), s.wrap(torch.tensor([9], device=DEV))
    assert f(ho, ho, (c_void_p * 1)(hbad), 1, hv, accumulate) == 2, "an index past the dim must be refused"
    torch.cuda.synchronize()
    assert torch.equal(out, x), "a refused index_put_ must leave out untouched"
    s.free(ho, hv, hbad)
    return "; ".join(details)


def grid_sampler_3d(s: Shims, mode: int, padding: int):
    x = torch.randn(2, 3, 4, 5, 6, device=DEV, generator=gen(43))
    grid = (torch.rand(2, 3, 2, 4, 3, device=DEV, generator=gen(44)) * 2.6 - 1.3).transpose(2, 3)  # strided
    hx, hg, out = s.wrap(x), s.wrap(grid), c_void_p()
    f = s.fn("aoti_torch_cuda_grid_sampler_3d", H, H, c_int64, c_int64, c_int32, HP)
    assert f(hx, hg, mode, padding, 0, byref(out)) == 0, s.rt.last_error()
    want = torch.nn.functional.grid_sample(x, grid, mode=("bilinear", "nearest")[mode],
                                           padding_mode=("zeros", "border", "reflection")[padding], align_corners=False)
    detail = close(on_device(s, out.value), want, 1e-5)
    bad = c_void_p(7)
    refused(f(hx, hg, mode, 3, 0, byref(bad)), bad)
    s.free(hx, hg, out.value)
    return detail



def hann_window(s: Shims):
    """torch.hann_window(L) (periodic) made on the device (the fft and stft_istft models' STFT window):
    every floating dtype and dtype null (float32), L = 0, 1, 7, 64; a negative length refused."""
    f = s.fn("aoti_torch_cuda_hann_window", c_int64, I32P, I32P, I32P, c_int32, I32P, HP)
    codes = {torch.float32: 6, torch.float64: 7, torch.float16: 5, torch.bfloat16: 15}
    device, out = c_int32(1), c_void_p()
    for dtype in (None, *codes):
        atol = {torch.float16: 5e-3, torch.bfloat16: 3e-2, torch.float64: 1e-12}.get(dtype, 1e-6)
        for length in (0, 1, 7, 64):
            code = None if dtype is None else byref(c_int32(codes[dtype]))
            assert f(length, code, None, byref(device), 0, None, byref(out)) == 0, s.rt.last_error()
            got = on_device(s, out.value)
            want = torch.hann_window(length, dtype=dtype, device=DEV)
            assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
            close(got, want, atol)
            s.free(out.value)
    bad = c_void_p(7)
    refused(f(-1, None, None, byref(device), 0, None, byref(bad)), bad)
    return "hann_window matches torch on the device (4 dtypes, L = 0, 1, 7, 64)"

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
    "scatter-complex": scatter_complex,
    **{f"scatter-slices-{n}": (lambda s, d=d: scatter_into_slices(s, d))
       for n, d in (("float32", torch.float32), ("bfloat16", torch.bfloat16))},
    **{f"scatter-duplicates-{n}": (lambda s, d=d: scatter_duplicates(s, d))
       for n, d in (("float32", torch.float32), ("int64", torch.int64), ("bfloat16", torch.bfloat16))},
    **{f"fused-cells-{n}": (lambda s, d=d: fused_cells(s, d))
       for n, d in (("float32", torch.float32), ("float64", torch.float64), ("float16", torch.float16),
                    ("bfloat16", torch.bfloat16))},
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
    "host-staged-generated": host_staged_generated,
    "scaled-mm": scaled_mm,
    "conv-layouts-float32": lambda s: conv_layouts(s, torch.float32),
    "conv-layouts-bfloat16": lambda s: conv_layouts(s, torch.bfloat16),
    "addbmm-masked-select": addbmm_masked_select,
    "segments-stats": segments_stats,
    "random-sources": random_sources,
    **{f"views-{n}": (lambda s, d=d: views(s, d)) for n, d in (("complex64", torch.complex64), ("complex128", torch.complex128))},
    **{f"slice-reshape-{n}": (lambda s, d=d: slice_reshape(s, d))
       for n, d in (("complex64", torch.complex64), ("complex128", torch.complex128))},
    **{f"cat-{n}": (lambda s, d=d: cat(s, d)) for n, d in (("complex64", torch.complex64),
                                                            ("complex128", torch.complex128),
                                                            ("bfloat16", torch.bfloat16))},
    **{f"complex-elementwise-{n}": (lambda s, d=d: complex_elementwise(s, d))
       for n, d in (("complex64", torch.complex64), ("complex128", torch.complex128))},
    **{f"fft-c2c-{n}": (lambda s, d=d: fft_c2c(s, d)) for n, d in (("complex64", torch.complex64), ("complex128", torch.complex128))},
    **{f"fft-r2c-{n}": (lambda s, d=d: fft_r2c(s, d)) for n, d in (("float32", torch.float32), ("float64", torch.float64))},
    **{f"mode-{n}": (lambda s, d=d: mode(s, d))
       for n, d in (("float32", torch.float32), ("bfloat16", torch.bfloat16), ("float16", torch.float16), ("int64", torch.int64))},
    **{f"index-tensor-{n}": (lambda s, d=d: index_tensor(s, d))
       for n, d in (("float32", torch.float32), ("bfloat16", torch.bfloat16), ("float16", torch.float16))},
    "copy-to-complex": copy_to_complex,
    **{f"index-put-{n}{'-accumulate' if acc else ''}": (lambda s, d=d, acc=acc: index_put(s, d, acc))
       for n, d in (("float32", torch.float32), ("int64", torch.int64), ("bfloat16", torch.bfloat16), ("bool", torch.bool))
       for acc in (False, True) if not (acc and d == torch.bool)},
    **{f"grid-sampler-3d-{m}-{p}": (lambda s, i=i, j=j: grid_sampler_3d(s, i, j))
       for i, m in enumerate(("bilinear", "nearest")) for j, p in enumerate(("zeros", "border", "reflection"))},
    "linalg-float32": lambda s: linalg(s, torch.float32),
    "linalg-float64": lambda s: linalg(s, torch.float64),
    "hann-window": hann_window,
}


def main(argv: list[str]) -> int:
    return run_cases(argv, CASES, DEV)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
