"""The CUDA fallback ops of issue 22 against torch's own CUDA kernels, in a child process.

    python tests/gpu/cuda_fallback_cases.py RUNTIME PREFIX [CASE...]

Imports torch (CUDA) beside the runtime, wraps torch's device memory as runtime tensors
(aoti_torch_create_tensor_from_blob: no copies, any strides, bf16 too), calls each shim by its
prefixed name and compares with torch on the same inputs. Prints one JSON line per case:
{"case", "ok", "detail"}. tests/gpu/test_cuda_fallbacks.py runs it once and asserts per case; a child
keeps torch out of the pytest process, whose other GPU tests run without libtorch.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import traceback
from ctypes import POINTER, byref, c_double, c_int32, c_int64, c_void_p
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from shimgen.aoti.capi import Runtime, int64_array

H, HP, I64P, I32P, DP = c_void_p, POINTER(c_void_p), POINTER(c_int64), POINTER(c_int32), POINTER(c_double)
CODES = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4, torch.float16: 5,
         torch.float32: 6, torch.float64: 7, torch.complex64: 9, torch.complex128: 10, torch.bool: 11,
         torch.bfloat16: 15, torch.float8_e5m2: 23, torch.float8_e4m3fn: 24, torch.float8_e5m2fnuz: 25,
         torch.float8_e4m3fnuz: 26}
DTYPES = {code: dtype for dtype, code in CODES.items()}


class Shims:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    def fn(self, name: str, *argtypes):
        f = self.rt.lib[self.rt.prefix + name]
        f.restype, f.argtypes = c_int32, list(argtypes)
        return f

    def wrap(self, t: torch.Tensor) -> int:
        """A runtime handle onto torch's memory (sizes, strides and offset kept)."""
        out = c_void_p()
        f = self.fn("aoti_torch_create_tensor_from_blob", c_void_p, c_int64, I64P, I64P, c_int64, c_int32, c_int32,
                    c_int32, HP)
        base = t.data_ptr() - t.storage_offset() * t.element_size()
        code = f(base, t.dim(), int64_array(t.shape), int64_array(t.stride()), t.storage_offset(), CODES[t.dtype],
                 1 if t.is_cuda else 0, t.device.index or 0, byref(out))
        assert code == 0, self.rt.last_error()
        return out.value

    def torch_of(self, handle: int) -> torch.Tensor:
        """A torch copy of a runtime tensor (same sizes, strides, dtype and device)."""
        rt = self.rt
        sizes, strides = rt.sizes(handle), rt.strides(handle)
        dtype = DTYPES[rt.scalar(handle, "aoti_torch_get_dtype", c_int32)]
        device = "cuda" if rt.scalar(handle, "aoti_torch_get_device_type", c_int32) == 1 else "cpu"
        out = torch.empty_strided(sizes, strides, dtype=dtype, device=device)
        target = self.wrap(out)
        copy = self.fn("aoti_torch_copy_", H, H, c_int32)
        assert copy(target, handle, 0) == 0, rt.last_error()
        torch.cuda.synchronize()
        rt.delete(target)
        return out

    def free(self, *handles) -> None:
        for h in handles:
            if h:
                self.rt.delete(h)


def close(got: torch.Tensor, want: torch.Tensor, atol: float, rtol: float = 0.0) -> str:
    assert got.shape == want.shape, f"shape {tuple(got.shape)} != {tuple(want.shape)}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    g, w = got.double(), want.double()
    # Equal values (infinities too) and NaN against NaN are 0 off; any other NaN is infinitely off
    # (a bare difference would make it NaN, which no comparison with the limit catches).
    err = torch.where((g == w) | (g.isnan() & w.isnan()), 0.0, (g - w).abs()).nan_to_num(nan=float("inf"))
    limit = atol + rtol * w.abs().nan_to_num(nan=0.0, posinf=0.0)
    bad = int((err > limit).sum())
    assert bad == 0, f"{bad} elements off, max |err| {float(err.max()):.3g}"
    return f"max |err| {float(err.max()) if err.numel() else 0.0:.3g}"


# ---- cases ----------------------------------------------------------------------------------------

def topk_case(s: Shims, shape, dtype, k, dim, largest, transposed=False):
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(shape, device="cuda", generator=g).to(dtype)
    if transposed:
        x = x.t()  # a strided input
    f = s.fn("aoti_torch_cuda_topk", H, c_int64, c_int64, c_int32, c_int32, HP, HP)
    hx, v, i = s.wrap(x), c_void_p(), c_void_p()
    assert f(hx, k, dim, int(largest), 1, byref(v), byref(i)) == 0, s.rt.last_error()
    got_v, got_i = s.torch_of(v.value), s.torch_of(i.value)
    want_v, _ = torch.topk(x, k, dim=dim, largest=largest)
    assert got_v.is_contiguous() and got_i.is_contiguous()
    close(got_v, want_v, 0.0)  # selections are exact
    assert torch.equal(x.gather(dim, got_i), got_v), "indices do not point at the values"
    s.free(hx, v.value, i.value)
    return f"{tuple(shape)} k={k} exact"


def topk_errors(s: Shims):
    x = torch.randn(4, 5, device="cuda")
    f = s.fn("aoti_torch_cuda_topk", H, c_int64, c_int64, c_int32, c_int32, HP, HP)
    hx, v, i = s.wrap(x), c_void_p(7), c_void_p(7)
    assert f(hx, 6, -1, 1, 1, byref(v), byref(i)) == 2 and "out of range" in s.rt.last_error()
    assert v.value == 7 and i.value == 7, "outputs written on failure"
    assert f(hx, 2, 2, 1, 1, byref(v), byref(i)) == 2 and "dim" in s.rt.last_error()
    s.free(hx)
    return "k > n and a bad dim are refused, outputs untouched"


def sort_case(s: Shims, dtype, descending, transposed=False):
    g = torch.Generator(device="cuda").manual_seed(2)
    x = torch.randint(0, 6, (7, 40), device="cuda", generator=g).to(dtype)  # many ties: stability shows
    if transposed:
        x = x.t()
    f = s.fn("aoti_torch_cuda_sort_stable", H, I32P, c_int64, c_int32, HP, HP)
    hx, v, i = s.wrap(x), c_void_p(), c_void_p()
    stable = c_int32(1)
    assert f(hx, byref(stable), 0 if transposed else 1, int(descending), byref(v), byref(i)) == 0, s.rt.last_error()
    want_v, want_i = torch.sort(x, dim=0 if transposed else 1, descending=descending, stable=True)
    got_v, got_i = s.torch_of(v.value), s.torch_of(i.value)
    assert got_v.stride() == want_v.stride(), f"strides {got_v.stride()} != torch's {want_v.stride()}"
    assert torch.equal(got_v, want_v) and torch.equal(got_i, want_i), "differs from torch.sort(stable=True)"
    s.free(hx, v.value, i.value)
    return "values and indices equal torch's"


def histc_case(s: Shims, dtype, lo, hi):
    g = torch.Generator(device="cuda").manual_seed(3)
    x = torch.randint(0, 8, (64, 2), device="cuda", generator=g).to(dtype)  # MoE expert ids as floats
    f = s.fn("aoti_torch_cuda_histc", H, c_int64, c_double, c_double, HP)
    hx, out = s.wrap(x), c_void_p()
    assert f(hx, 8, lo, hi, byref(out)) == 0, s.rt.last_error()
    # torch's CUDA histc has no float16/bfloat16 kernel: its float32 counts (the same for integer
    # ids in [0, 8)), in self's dtype.
    got, want = s.torch_of(out.value), torch.histc(x.float(), bins=8, min=lo, max=hi).to(dtype)
    assert torch.equal(got, want), f"{got.tolist()} != {want.tolist()}"
    bad = c_void_p(7)
    assert f(hx, 0, lo, hi, byref(bad)) == 2 and bad.value == 7
    s.free(hx, out.value)
    return f"counts equal torch's ({float(want.sum()):.0f} values)"


def rand_case(s: Shims, dtype):
    f = s.fn("aoti_torch_cuda_rand", I64P, c_int64, I32P, I32P, I32P, c_int32, I32P, HP)
    code, a, b = c_int32(CODES[dtype]), c_void_p(), c_void_p()
    assert f(int64_array([4096]), 1, byref(code), None, None, 0, None, byref(a)) == 0, s.rt.last_error()
    assert f(int64_array([4096]), 1, byref(code), None, None, 0, None, byref(b)) == 0, s.rt.last_error()
    x, y = s.torch_of(a.value), s.torch_of(b.value)
    assert x.dtype == dtype and x.is_cuda
    assert float(x.min()) >= 0.0 and float(x.max()) < 1.0, "outside [0, 1)"
    assert abs(float(x.float().mean()) - 0.5) < 0.03, f"mean {float(x.float().mean()):.3f}"
    assert not torch.equal(x, y), "two calls gave the same values"
    s.free(a.value, b.value)
    return f"mean {float(x.float().mean()):.3f}"


def randint_case(s: Shims):
    f = s.fn("aoti_torch_cuda_randint_low_out", H, c_int64, c_int64, I64P, c_int64)
    seeds = torch.empty(64, dtype=torch.int64, device="cuda")
    hs = s.wrap(seeds)
    low, high = -(2**63), 2**63 - 1  # what inductor asks for its seeds
    assert f(hs, low, high, int64_array([64]), 1) == 0, s.rt.last_error()
    torch.cuda.synchronize()
    assert len(set(seeds.tolist())) == 64, "seeds repeat"
    small = torch.empty(10000, dtype=torch.int64, device="cuda")
    hsmall = s.wrap(small)
    assert f(hsmall, 3, 13, int64_array([10000]), 1) == 0, s.rt.last_error()
    torch.cuda.synchronize()
    assert set(small.unique().tolist()) == set(range(3, 13)), "not every value of [3, 13) occurs"
    assert f(hsmall, 5, 5, int64_array([10000]), 1) == 2
    s.free(hs, hsmall)
    return "full int64 range and [3, 13)"


def uninitialized_case(s: Shims):
    f = s.fn("aoti_torch_new_uninitialized_tensor", HP)
    out = c_void_p()
    assert f(byref(out)) == 0 and out.value, s.rt.last_error()
    assert s.rt.scalar(out.value, "aoti_torch_get_numel") == 0
    s.free(out.value)
    return "a handle with no elements"


def _sdpa_reference(q, k, v, bias, causal, scale):
    group = q.shape[1] // k.shape[1]
    k, v = k.double().repeat_interleave(group, 1), v.double().repeat_interleave(group, 1)
    scores = (q.double() @ k.transpose(-1, -2)) * scale
    if bias is not None:
        scores = scores + bias.double()
    if causal:
        m, n = scores.shape[-2:]
        scores = scores.masked_fill(torch.ones(m, n, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
    lse = torch.logsumexp(scores, -1, keepdim=True)
    return (scores - lse).exp() @ v, lse


def cudnn_attention_case(s: Shims, dtype, hkv, causal, with_bias, layout):
    g = torch.Generator(device="cuda").manual_seed(4)
    B, heads, M, D = 2, 8, 17, 64
    if layout == "bshd":  # HF decoders: projections viewed [B, S, H, D] and transposed
        q = torch.randn(B, M, heads, D, device="cuda", generator=g).to(dtype).transpose(1, 2)
    else:
        q = torch.randn(B, heads, M, D, device="cuda", generator=g).to(dtype)
    k = torch.randn(B, hkv, M, D, device="cuda", generator=g).to(dtype)
    v = torch.randn(B, hkv, M, D, device="cuda", generator=g).to(dtype)
    bias = torch.randn(B, 1, M, M, device="cuda", generator=g).to(dtype) if with_bias else None
    scale = 0.125
    f = s.fn("aoti_torch_cuda__scaled_dot_product_cudnn_attention", H, H, H, HP, c_int32, c_double, c_int32,
             c_int32, DP, HP, HP, HP, HP, I64P, I64P, HP, HP, HP)
    hq, hk, hv = s.wrap(q), s.wrap(k), s.wrap(v)
    hb = c_void_p(s.wrap(bias)) if bias is not None else None
    outs = [c_void_p() for _ in range(4)] + [c_int64(), c_int64()] + [c_void_p() for _ in range(3)]
    # As the generated code calls it: null for the outputs that are None (cum_seq_q/k, debug mask).
    refs = [None if i in (2, 3, 8) else byref(o) for i, o in enumerate(outs)]
    code = f(hq, hk, hv, byref(hb) if hb is not None else None, 1, 0.0, int(causal), 0, byref(c_double(scale)), *refs)
    assert code == 0, s.rt.last_error()
    got, lse = s.torch_of(outs[0].value), s.torch_of(outs[1].value)
    want, want_lse = _sdpa_reference(q, k, v, bias, causal, scale)
    assert outs[2].value is None and outs[3].value is None and outs[8].value is None
    assert outs[4].value == M and outs[5].value == M
    assert got.stride() == q.stride() if layout == "bshd" else got.is_contiguous(), f"strides {got.stride()}"
    tol = 1e-4 if dtype == torch.float32 else 2e-2
    detail = close(got.double(), want.to(got.device), tol, tol)
    close(lse.double(), want_lse, 1e-3, 1e-3)
    s.free(hq, hk, hv, outs[0].value, outs[1].value, outs[6].value, outs[7].value, *([hb.value] if hb else []))
    return detail


def int4_case(s: Shims, m, inner, group, strided=False, k=1024, n=512, pad=0, variant=None):
    if variant is not None:  # the runtime's internal kernel switch, read at every call
        saved = os.environ.get("SHIMGEN_INT4_MM_KERNEL")
        os.environ["SHIMGEN_INT4_MM_KERNEL"] = variant
        try:
            return int4_case(s, m, inner, group, strided, k, n, pad) + f" [{variant}]"
        finally:
            if saved is None:
                os.environ.pop("SHIMGEN_INT4_MM_KERNEL", None)
            else:
                os.environ["SHIMGEN_INT4_MM_KERNEL"] = saved
    g = torch.Generator(device="cuda").manual_seed(5)
    w = torch.randint(0, 16, (n, k), dtype=torch.int32, device="cuda", generator=g)
    packed_u8 = (w[:, ::2] << 4 | w[:, 1::2]).to(torch.uint8)
    packed = torch._convert_weight_to_int4pack(packed_u8, inner)
    scales = (torch.rand(k // group, n, 1, device="cuda", generator=g) * 0.02 + 0.001)
    zeros = torch.randn(k // group, n, 1, device="cuda", generator=g) * 0.01
    qsz = torch.cat([scales, zeros], dim=2).to(torch.bfloat16).contiguous()
    a = torch.randn(m, 2 * k if strided else k + pad, device="cuda", generator=g).to(torch.bfloat16)
    if strided:
        a = a[:, ::2]  # column stride 2: packed before the kernel
    elif pad:
        a = a[:, :k]  # row stride k + pad: read in place, in 4-byte pieces when not 16-byte aligned
    want = torch._weight_int4pack_mm(a.contiguous(), packed, group, qsz)
    f = s.fn("aoti_torch_cuda__weight_int4pack_mm", H, H, c_int64, H, HP)
    ha, hb, hq, out = s.wrap(a), s.wrap(packed), s.wrap(qsz), c_void_p()
    assert f(ha, hb, group, hq, byref(out)) == 0, s.rt.last_error()
    got = s.torch_of(out.value)
    scale = float(want.float().abs().max()) + 1e-6
    detail = close(got.float() / scale, want.float() / scale, 1e-2)
    bad = c_void_p(7)
    assert f(ha, hb, 48, hq, byref(bad)) == 2 and bad.value == 7  # group size torch does not make
    s.free(ha, hb, hq, out.value)
    return detail + f" (relative to max {scale:.3g})"


CASES = {}
for dt in (torch.float32, torch.bfloat16, torch.float16):
    n = str(dt).split(".")[1]
    CASES[f"topk-moe-{n}"] = lambda s, dt=dt: topk_case(s, (16, 8), dt, 2, -1, True)
    CASES[f"histc-moe-{n}"] = lambda s, dt=dt: histc_case(s, dt, 0.0, 7.0)
    CASES[f"rand-{n}"] = lambda s, dt=dt: rand_case(s, dt)
    CASES[f"sort-stable-{n}"] = lambda s, dt=dt: sort_case(s, dt, False)
    for hkv in (8, 2):
        CASES[f"cudnn-attention-{n}-hkv{hkv}-causal"] = lambda s, dt=dt, hkv=hkv: cudnn_attention_case(s, dt, hkv, True, False, "bshd")
    CASES[f"cudnn-attention-{n}-bias"] = lambda s, dt=dt: cudnn_attention_case(s, dt, 8, False, True, "bhsd")
CASES["topk-sampling-bf16"] = lambda s: topk_case(s, (4, 32000), torch.bfloat16, 50, -1, True)
CASES["topk-smallest-dim0-strided"] = lambda s: topk_case(s, (40, 6), torch.float32, 3, 0, False, transposed=True)
CASES["topk-errors"] = topk_errors
CASES["sort-stable-descending-int64-strided"] = lambda s: sort_case(s, torch.int64, True, transposed=True)
CASES["histc-data-range"] = lambda s: histc_case(s, torch.float32, 0.0, 0.0)
CASES["histc-int32-expert-ids"] = lambda s: histc_case(s, torch.int32, 0.0, 7.0)  # transformers' MoE, float32
CASES["randint-low-out"] = randint_case
CASES["new-uninitialized-tensor"] = uninitialized_case
for inner in (2, 4, 8):
    for m in (1, 2, 4, 5, 8, 16, 33):
        CASES[f"int4pack-mm-inner{inner}-m{m}"] = lambda s, m=m, inner=inner: int4_case(s, m, inner, 128)
for group in (32, 64, 256):
    CASES[f"int4pack-mm-group{group}"] = lambda s, group=group: int4_case(s, 3, 8, group)
CASES["int4pack-mm-strided-a"] = lambda s: int4_case(s, 4, 4, 64, strided=True)
# M <= 8 stages A in shared memory: a last step shorter than a warp's 512 k (K = 1152), and rows whose
# stride (k + 2) rules out 16-byte copies.
CASES["int4pack-mm-ragged-k"] = lambda s: int4_case(s, 2, 8, 128, k=1152)
CASES["int4pack-mm-row-pad"] = lambda s: int4_case(s, 3, 4, 64, pad=2)
CASES["int4pack-mm-row-pad8"] = lambda s: int4_case(s, 4, 2, 32, pad=8, k=1536)
# N = 520: 65 column tiles, so the last block of 2 or 4 tiles has tiles past N.
CASES["int4pack-mm-ragged-n-m1"] = lambda s: int4_case(s, 1, 8, 128, n=520)
CASES["int4pack-mm-ragged-n-m6"] = lambda s: int4_case(s, 6, 4, 64, n=520)
# Every kernel variant (benchmarks/int4_mm_cuda.py --variants measures them) at every inner_k_tiles:
# N = 520 (an odd number of column tiles: the swap kernels' last pair is half empty), K = 1152 (a
# warp's last step short), M = 1, 3 and 8 (1, 8, 13, 16 for the *m16 variants, which serve up to
# 16 rows); groups of 32 and padded rows at M = 2.
INT4_VARIANTS = ("general", "staged1", "staged2", "staged4", "swap8x4", "swap16x2", "swap32x1", "swap16x1",
                 "swapS16x8", "swapS8x8", "swapS32x4", "swapS2p8x8", "swapS2p16x4",
                 "swapS16x8n", "swapS2p16x4n", "swapS8x8m16", "swapS16x8m16",
                 "swapS16x8g", "swapS8x16g")
for variant in INT4_VARIANTS:
    for inner in (2, 4, 8):
        for m in (1, 8, 13, 16) if variant.endswith("m16") else (1, 3, 8):
            CASES[f"int4pack-mm-{variant}-inner{inner}-m{m}"] = (
                lambda s, m=m, inner=inner, variant=variant: int4_case(s, m, inner, 128, k=1152, n=520, variant=variant))
    CASES[f"int4pack-mm-{variant}-group32-pad"] = lambda s, variant=variant: int4_case(s, 2, 4, 32, pad=2, variant=variant)
    CASES[f"int4pack-mm-{variant}-group256"] = lambda s, variant=variant: int4_case(s, 5, 8, 256, k=2048, variant=variant)


def run_cases(argv: list[str], cases: dict, device: str = "cuda") -> int:
    """A case driver's main: RUNTIME PREFIX [CASE...] (default: all of ``cases``); one JSON line per
    case ({"case", "ok", "detail"}), a failing case recorded with its traceback, not raised."""
    rt = Runtime(Path(argv[0]), argv[1], mode=ctypes.RTLD_GLOBAL)
    torch.zeros(1, device=device)
    shims = Shims(rt)
    for name in argv[2:] or list(cases):
        try:
            detail, ok = cases[name](shims), True
        except Exception as exc:
            detail, ok = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}", False
        print(json.dumps({"case": name, "ok": ok, "detail": detail}), flush=True)
    return 0


def main(argv: list[str]) -> int:
    return run_cases(argv, CASES)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
