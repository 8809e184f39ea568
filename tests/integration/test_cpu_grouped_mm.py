"""aoti_torch_cpu__grouped_mm (src/ops/cpu/grouped_mm.cpp): torch._grouped_mm on the CPU, which
transformers' MoE experts call in bfloat16 (a bf16 Mixtral compiled by torch 2.13 imports it). Called
through ctypes with torch's C-shim signature and compared with torch._grouped_mm in its four shapes,
three dtypes and strided operands; refusals as torch refuses."""

from __future__ import annotations

from ctypes import byref, c_int32, c_void_p

import pytest

from tests.aoti_helpers import INVALID, UNSUPPORTED, shim
from tests.cpu_shim_tensors import CODES, last_error

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow

G, M, K, N = 4, 13, 32, 16


def call(rt, hs, a, b, offs=None, bias=None, out_dtype=None):
    out = c_void_p(0x5)
    offs_h = byref(hs.of(offs)) if offs is not None else None
    bias_h = byref(hs.of(bias)) if bias is not None else None
    dtype = byref(c_int32(CODES[out_dtype])) if out_dtype is not None else None
    code = shim(rt, "aoti_torch_cpu__grouped_mm")(hs.of(a), hs.of(b), offs_h, bias_h, dtype, byref(out))
    return code, out


def ends(*values: int):
    return torch.tensor(values, dtype=torch.int32)


def cases(dtype):
    """(name, self, mat2, offs, rows or columns past the last offset that torch leaves unset)."""
    gen = torch.Generator().manual_seed(7)

    def r(*shape):
        return torch.randn(*shape, generator=gen).to(dtype)

    # mat2 as transformers holds expert weights ([G, N, K] used transposed) and as a plain [G, K, N].
    weights_t = r(G, N, K).transpose(1, 2)
    yield "2d x 3d, transposed experts, an empty group", r(M, K), weights_t, ends(3, 3, 9, 13), None
    yield "2d x 3d, contiguous experts", r(M, K), r(G, K, N), ends(1, 5, 12, 13), None
    yield "2d x 3d, rows past the last offset", r(M, K), r(G, K, N), ends(2, 4, 6, 9), (slice(9, None),)
    yield "2d x 3d, self a column slice", r(M, 2 * K)[:, K:], r(G, K, N), ends(4, 8, 10, 13), None
    yield "3d x 3d (bmm)", r(G, M, K), weights_t, None, None
    yield "2d x 2d, offs split K", r(M, K), r(K, N), ends(8, 8, 24, 32), None
    yield "3d x 2d, offs split N", r(G, M, K), r(K, 2 * N), ends(8, 16, 16, 32), None
    yield "3d x 2d, columns past the last offset", r(G, M, K), r(K, 2 * N), ends(8, 16, 24, 24), \
        (slice(None), slice(24, None))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16, torch.float32])
def test_grouped_mm_matches_torch(rt, hs, dtype):
    for name, a, b, offs, unset in cases(dtype):
        code, out = call(rt, hs, a, b, offs)
        assert code == 0, (name, last_error(rt))
        got = hs.tensor(out)
        want = torch._grouped_mm(a, b, offs)
        assert got.dtype == want.dtype and got.shape == want.shape and got.is_contiguous(), name
        if unset is not None:  # torch leaves these unset; the runtime writes zeros
            assert torch.count_nonzero(got[unset]) == 0, name
            got, want = got.clone(), want.clone()
            got[unset] = 0
            want[unset] = 0
        # float32 accumulation in another order than torch's mm: a few units in the last place of
        # the largest products (|values| up to about 20 here).
        atol = {torch.bfloat16: 0.125, torch.float16: 0.02, torch.float32: 1e-4}[dtype]
        assert torch.allclose(got.float(), want.float(), atol=atol, rtol=0), (name, (got.float() - want.float()).abs().max())


def test_grouped_mm_groups_are_not_interchangeable(rt, hs):
    """Negative control: the same rows with the groups' ends moved give another product, so the
    comparison above can tell a wrong split from a right one."""
    a = torch.randn(M, K)
    b = torch.randn(G, K, N)
    code, out = call(rt, hs, a, b, ends(3, 3, 9, 13))
    assert code == 0, last_error(rt)
    moved = torch._grouped_mm(a, b, ends(3, 4, 9, 13))
    assert (hs.tensor(out) - moved).abs().max() > 1.0


def test_grouped_mm_refuses_what_torch_refuses(rt, hs):
    a, b = torch.randn(M, K), torch.randn(G, K, N)
    refused = [
        ((a, b), "Have to provide offsets", INVALID),  # 2-d without offs
        ((torch.randn(G, M, K), b, ends(1, 2, 3, 4)), "no offset if both matrices are 3d", INVALID),
        ((a, torch.randn(G, K + 1, N), ends(3, 3, 9, 13)), "contraction dimension", INVALID),
        ((a, b, ends(3, 9, 13)), "matrix batch sizes have to match", INVALID),
        ((a, b, torch.tensor([3, 3, 9, 13])), "Offsets have to be int32", INVALID),
        ((a, b, ends(3, 3, 9, 13).view(2, 2)), "offs has to be 1D", INVALID),
        ((a, b, ends(5, 3, 9, 13)), "non-decreasing", INVALID),
        ((a, b, ends(3, 3, 9, 14)), "non-decreasing", INVALID),  # past self's rows
        ((torch.randn(G, M, K), torch.randn(G + 1, K, N)), "batched dimension has to match", INVALID),
        ((a.double(), b.double(), ends(3, 3, 9, 13)), "Expected mat_a to be Float32, BFloat16 or Float16", UNSUPPORTED),
        ((a, b.bfloat16(), ends(3, 3, 9, 13)), "same dtype", INVALID),
    ]
    for args, message, expected_code in refused:
        code, out = call(rt, hs, *args)
        assert code == expected_code and message in last_error(rt), (message, code, last_error(rt))
        assert out.value == 0x5  # untouched
    code, out = call(rt, hs, a, b, ends(3, 3, 9, 13), bias=torch.randn(G, N))
    assert code == UNSUPPORTED and "Bias not supported" in last_error(rt)
    code, out = call(rt, hs, a, b, ends(3, 3, 9, 13), out_dtype=torch.bfloat16)
    assert code == INVALID and "output dtype must match" in last_error(rt)
    for args in ((a, b, ends(3, 3, 9, 13)),):  # the same calls in torch refuse with the same words
        with pytest.raises(RuntimeError, match="output dtype must match"):
            torch._grouped_mm(*args, out_dtype=torch.bfloat16)
