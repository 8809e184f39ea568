"""The runtime's small-shape attention (shimgen/runtime/src/cpu_small_attention.cpp: sixteen query rows per
AVX-512 vector, taken for 8+ query rows, up to 256 keys and head dims up to 256) and the general
path it falls back to, through the SDPA shim via ctypes, against attention computed by its
definition in float64 with torch, and torch's own CPU flash kernel where it takes the shape.

Shapes straddle the 16-lane edges (query rows, keys, head dims 1, 5, 15, 16, 17, 33 ...) and the
bounds (256 keys, 257: the general path), with causal masks, bool and float masks of every
broadcast rank (including rows that see no key), scale, and q/k/v/mask as strided views (head-split
views of one Linear output, transposed k, a gapped mask), so a wrong lane mask, stride or edge
fails a comparison."""

from __future__ import annotations

from ctypes import byref, c_double, c_int32, c_void_p

import numpy as np
import pytest

from shimgen.aoti.runner import Runtime

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow
PREFIX = "executorch_"
SDPA = "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu"


def sdpa(rt: Runtime, q, k, v, mask=None, causal=False, scale=None):
    """The shim's (out, logsumexp) as numpy arrays."""
    arrays = [x.numpy() for x in (q, k, v)] + ([mask.numpy()] if mask is not None else [])
    handles = [rt.tensor_from_array(a) for a in arrays]
    out, lse = c_void_p(), c_void_p()
    try:
        function = getattr(rt.lib, PREFIX + SDPA)
        function.restype = c_int32
        mask_arg = byref(c_void_p(handles[3].value)) if mask is not None else None
        scale_arg = byref(c_double(scale)) if scale is not None else None
        code = function(*(c_void_p(h.value) for h in handles[:3]), c_double(0.0), c_int32(int(causal)), mask_arg,
                        scale_arg, byref(out), byref(lse))
        assert code == 0, rt.lib.shimgen_runtime_last_error().decode()
        return rt.array_from_tensor(out), rt.array_from_tensor(lse)
    finally:
        for h in (*handles, out, lse):
            if h.value:
                rt.delete(h)


def reference(q, k, v, mask=None, causal=False, scale=None):
    """Attention in float64 by its definition (torch's own CPU kernel wants one head size for q, k
    and v; the shim takes any value size): softmax(q k^T * scale + mask) v and the rows' logsumexp.
    A row that sees no key gives NaN outputs and lse -inf here."""
    q, k, v = q.double(), k.double(), v.double()
    scale = 1.0 / q.shape[-1] ** 0.5 if scale is None else scale
    scores = (q @ k.transpose(-1, -2)) * scale
    if causal:  # top-left aligned: row i sees keys 0 .. i
        scores = scores.masked_fill(torch.ones(scores.shape[-2:], dtype=torch.bool).triu(1), float("-inf"))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask.double()
    return torch.softmax(scores, dim=-1) @ v, torch.logsumexp(scores, dim=-1)


def assert_matches(got, want, what):
    out, lse = got
    ref_out, ref_lse = (x.numpy() for x in want)
    assert out.shape == ref_out.shape and lse.shape == ref_lse.shape, what
    assert np.allclose(out, ref_out, atol=3e-5, rtol=1e-5), (what, np.abs(out - ref_out).max())
    assert np.allclose(lse, ref_lse, atol=3e-5, rtol=1e-5, equal_nan=False), (what, np.abs(lse - ref_lse).max())


def heads(gen, b, length, h, e, ev=None):
    """q, k, v as head-split views of one [b, length, h*(2e+ev)] tensor (a QKV Linear's output)."""
    ev = e if ev is None else ev
    qkv = torch.randn(b, length, h * (2 * e + ev), generator=gen)
    q = qkv[..., : h * e].view(b, length, h, e).transpose(1, 2)
    k = qkv[..., h * e: 2 * h * e].view(b, length, h, e).transpose(1, 2)
    v = qkv[..., 2 * h * e:].view(b, length, h, ev).transpose(1, 2)
    return q, k, v


# (batch, heads, query rows, keys, head dim, value dim): 16-lane edges, the block's shape, bounds.
SHAPES = [(2, 4, 16, 16, 8, 8), (1, 1, 8, 1, 1, 1), (1, 2, 15, 17, 5, 9), (2, 3, 17, 33, 16, 16), (1, 1, 33, 8, 33, 17),
          (1, 2, 48, 48, 64, 64), (1, 1, 20, 256, 24, 40), (1, 1, 9, 257, 8, 8), (2, 2, 4, 16, 8, 8), (1, 1, 40, 40, 256, 7)]


@pytest.mark.parametrize("b, h, length, keys, e, ev", SHAPES)
@pytest.mark.parametrize("causal", [False, True])
def test_contiguous_shapes_match_torch(rt, b, h, length, keys, e, ev, causal):
    gen = torch.Generator().manual_seed(b * 1000 + length * 10 + keys)
    q = torch.randn(b, h, length, e, generator=gen)
    k = torch.randn(b, h, keys, e, generator=gen)
    v = torch.randn(b, h, keys, ev, generator=gen)
    got = sdpa(rt, q, k, v, causal=causal)
    assert_matches(got, reference(q, k, v, causal=causal), (b, h, length, keys, causal))
    if e == ev:  # torch's own kernel (it wants one head size), for its output layout and logsumexp
        flash = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q.double(), k.double(), v.double(),
                                                                           is_causal=causal)
        assert_matches(got, flash, "torch's flash kernel")


@pytest.mark.parametrize("length, h, e", [(16, 4, 8), (17, 2, 16), (33, 3, 5), (64, 2, 32)])
@pytest.mark.parametrize("causal", [False, True])
def test_head_split_views_and_transposed_keys_match_torch(rt, length, h, e, causal):
    gen = torch.Generator().manual_seed(length * 7 + e)
    q, k, v = heads(gen, 2, length, h, e)
    assert_matches(sdpa(rt, q, k, v, causal=causal), reference(q, k, v, causal=causal), "head-split views")
    # k stored transposed (head dim outermost) and v with a gap between rows
    kt = torch.randn(2, h, e, length, generator=gen).transpose(2, 3)
    vg = torch.randn(2, h, length, e + 3, generator=gen)[..., :e]
    assert_matches(sdpa(rt, q, kt, vg, causal=causal), reference(q, kt, vg, causal=causal), "transposed k, gapped v")


def masks(gen, b, h, length, keys):
    """Masks of every broadcast rank and both kinds; some float rows all -inf, some bool rows all False."""
    float4 = torch.randn(b, 1, length, keys, generator=gen)
    float4[0, 0, 1, :] = float("-inf")  # query row 1 of batch 0 sees nothing
    float4[:, :, 2, : keys // 2] = float("-inf")
    bool2 = torch.rand(length, keys, generator=gen) > 0.3
    bool2[:, 0] = True
    bool2[0, :] = False  # row 0: no key at all
    gapped = torch.randn(length, keys + 5, generator=gen)[:, :keys]  # rows keys + 5 apart
    return {"float [b,1,L,S]": float4, "bool [L,S]": bool2, "float [L,S] gapped": gapped,
            "float [S]": torch.randn(keys, generator=gen), "bool [b,h,L,S]": torch.rand(b, h, length, keys, generator=gen) > 0.5,
            "float [h,1,S]": torch.randn(h, 1, keys, generator=gen)}


@pytest.mark.parametrize("b, h, length, keys, e", [(2, 4, 16, 16, 8), (1, 2, 17, 31, 5), (2, 1, 40, 70, 24), (1, 2, 5, 9, 4)])
@pytest.mark.parametrize("causal", [False, True])
def test_masks_match_torch(rt, b, h, length, keys, e, causal):
    gen = torch.Generator().manual_seed(length * 3 + keys)
    q = torch.randn(b, h, length, e, generator=gen)
    k = torch.randn(b, h, keys, e, generator=gen)
    v = torch.randn(b, h, keys, e, generator=gen)
    for name, mask in masks(gen, b, h, length, keys).items():
        got = sdpa(rt, q, k, v, mask=mask, causal=causal)
        want = reference(q, k, v, mask=mask, causal=causal)
        # torch gives a row that sees no key NaN (0/0) where the runtime gives 0 and -inf: compare
        # the rows that see a key; the others must be exactly 0 and -inf.
        seen = np.isfinite(want[1].numpy())
        assert np.array_equal(np.isfinite(got[1]), seen), name
        assert (got[0][~seen] == 0).all() and (got[1][~seen] == -np.inf).all(), name
        out = np.where(seen[..., None], got[0], 0)
        ref_out = np.where(seen[..., None], np.nan_to_num(want[0].numpy()), 0)
        assert np.allclose(out, ref_out, atol=3e-5, rtol=1e-5), (name, np.abs(out - ref_out).max())
        assert np.allclose(got[1][seen], want[1].numpy()[seen], atol=3e-5, rtol=1e-5), name


@pytest.mark.parametrize("scale", [0.05, 1.0, 3.0])
def test_scale_and_large_scores_match_torch(rt, scale):
    """Scores far from 0 (scale 3 on unit inputs, shifted values): the softmax's max shift and exp."""
    gen = torch.Generator().manual_seed(int(scale * 100))
    q = torch.randn(1, 2, 16, 32, generator=gen) * 4
    k = torch.randn(1, 2, 24, 32, generator=gen) * 4
    v = torch.randn(1, 2, 24, 16, generator=gen) + 100
    assert_matches(sdpa(rt, q, k, v, scale=scale), reference(q, k, v, scale=scale), scale)
