"""The weight-only quantized linears of the CPU runtime (src/ops/cpu/weight_int8pack_mm.cpp,
weight_int4pack_mm_cpu_tensor.cpp): torch.ops.aten._weight_int8pack_mm and
_weight_int4pack_mm_for_cpu (torchao's int8/int4 weight-only CPU paths), called through ctypes with
the C-shim signatures stock inductor emits and compared with torch eager and a float64 reference:
float32/bfloat16/float16, M from 1 (decoding) to 33, every tile tail, strided activations, torch's
own packed int4 weights; refused arguments leave the output untouched."""

from __future__ import annotations

from ctypes import byref, c_void_p

import pytest

from tests.aoti_helpers import INVALID, UNSUPPORTED, shim
from tests.cpu_shim_tensors import gen, last_error, strided

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow

DTYPES = [torch.float32, torch.bfloat16, torch.float16]
ROWS = [1, 2, 3, 4, 5, 16, 33]
ULP = {torch.float32: 2.0 ** -23, torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11}


def activation(m: int, k: int, dtype, layout: str, seed: int = 0) -> torch.Tensor:
    """A [m, k]: contiguous, rows of a wider matrix (row stride > k: a slice models pass), or no unit
    stride at all."""
    a = torch.randn(m, k, generator=gen(seed)).to(dtype)
    if layout == "rows":
        wide = torch.zeros(m, k + 24, dtype=dtype)
        wide[:, 8:8 + k] = a
        return wide[:, 8:8 + k]
    return strided(a) if layout == "strided" else a


def dense(a: torch.Tensor) -> torch.Tensor:
    """A fresh row-major copy for torch's kernels (a.contiguous() keeps a [1, K] row of a wider
    matrix as it is, and torch 2.13's bfloat16 int8 kernel crashes on that row stride: measured)."""
    return torch.empty(a.shape, dtype=a.dtype).copy_(a)


def check_close(got: torch.Tensor, eager: torch.Tensor, exact: torch.Tensor):
    """got agrees with torch's result: as close to the float64 value as torch is (both sum in float32
    and round once; only the summation order differs), and within a rounding step of torch's."""
    assert got.dtype == eager.dtype and got.shape == eager.shape and got.is_contiguous()
    ulp = ULP[eager.dtype]
    scale = exact.abs().max().item() + 1e-30
    err_torch = (eager.double() - exact).abs().max().item()
    err_ours = (got.double() - exact).abs().max().item()
    assert err_ours <= 1.5 * err_torch + 4 * ulp * scale, (err_ours, err_torch)
    torch.testing.assert_close(got.double(), eager.double(), rtol=2 * ulp if ulp > 1e-6 else 1e-5,
                               atol=4 * ulp * scale if ulp > 1e-6 else 1e-5 * scale)


def call(rt, name, *args) -> tuple[int, c_void_p]:
    out = c_void_p(0xDEAD)
    code = shim(rt, name)(*args, byref(out))
    return code, out


# ---- int8 ----

def int8_case(n: int, k: int, dtype, seed: int = 1):
    b = torch.randint(-128, 128, (n, k), dtype=torch.int8, generator=gen(seed))
    scales = (torch.rand(n, generator=gen(seed + 1)) * 0.02 + 0.001).to(dtype)
    return b, scales


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m", ROWS)
def test_int8pack_mm_matches_torch(rt, hs, dtype, m):
    # A 64-column tile and a 16-column tail; K not a multiple of 16, except in bfloat16, where torch
    # 2.13's own CPU kernel returns garbage or crashes for such K (measured: K=72 segfaults).
    n, k = 80, 80 if dtype == torch.bfloat16 else 72
    b, scales = int8_case(n, k, dtype)
    for layout in ("contiguous", "rows", "strided"):
        a = activation(m, k, dtype, layout)
        code, out = call(rt, "aoti_torch_cpu__weight_int8pack_mm", hs.of(a), hs.of(b), hs.of(scales))
        assert code == 0, last_error(rt)
        eager = torch.ops.aten._weight_int8pack_mm(dense(a), b, scales)
        exact = (a.double() @ b.double().T) * scales.double()
        check_close(hs.tensor(c_void_p(out.value)), eager, exact)


@pytest.mark.parametrize("n", [1, 7, 64, 130])
def test_int8pack_mm_any_n_and_empty_rows(rt, hs, n):
    b, scales = int8_case(n, 40, torch.float32, seed=n)
    for m in (0, 3):
        a = activation(m, 40, torch.float32, "contiguous")
        code, out = call(rt, "aoti_torch_cpu__weight_int8pack_mm", hs.of(a), hs.of(b), hs.of(scales))
        assert code == 0, last_error(rt)
        eager = torch.ops.aten._weight_int8pack_mm(a, b, scales)
        got = hs.tensor(c_void_p(out.value))
        assert got.shape == (m, n)
        if m:
            check_close(got, eager, (a.double() @ b.double().T) * scales.double())


def test_int8pack_mm_refuses_bad_arguments(rt, hs):
    b, scales = int8_case(32, 64, torch.float32)
    a = torch.randn(3, 64)
    bad = [
        ((a, b, scales.bfloat16()), INVALID),           # scales not A's dtype
        ((a, b, scales[:16]), INVALID),                 # scales not [N]
        ((a[:, :32], b, scales), INVALID),              # K disagrees
        ((a, b.to(torch.uint8), scales), INVALID),      # B not int8
        ((a, b.t().contiguous().t(), scales), INVALID),  # B not contiguous
        ((a[None], b, scales), INVALID),                # A not 2-D
        ((a.double(), b, scales.double()), UNSUPPORTED),  # torch refuses float64 too
    ]
    for args, expected in bad:
        code, out = call(rt, "aoti_torch_cpu__weight_int8pack_mm", *(hs.of(t) for t in args))
        assert code == expected, last_error(rt)
        assert out.value == 0xDEAD  # the output is not written
        assert "_weight_int8pack_mm" in last_error(rt)


# ---- int4 ----

def int4_case(n: int, k: int, group: int, dtype, seed: int = 2):
    codes = torch.randint(0, 16, (n, k), dtype=torch.int32, generator=gen(seed))
    packed = torch.ops.aten._convert_weight_to_int4pack_for_cpu(codes, 2)
    scale = torch.rand(k // group, n, generator=gen(seed + 1)) * 0.02 + 0.002
    zero = torch.randn(k // group, n, generator=gen(seed + 2)) * 0.01
    sz = torch.stack([scale, zero], -1).to(dtype)
    return codes, packed, sz


def int4_exact(a, codes, sz, group):
    scale = sz[..., 0].double().repeat_interleave(group, 0).T
    zero = sz[..., 1].double().repeat_interleave(group, 0).T
    return a.double() @ ((codes.double() - 8) * scale + zero).T


def group_size(value: int) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.int64)  # inductor's constant: a 0-d int64 tensor


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m", ROWS)
def test_int4pack_mm_matches_torch(rt, hs, dtype, m):
    k, group = 256, 64
    for n in (16, 48, 64, 144):  # a lone small block, 64-blocks, a 64-block then a 16-block tail
        codes, packed, sz = int4_case(n, k, group, dtype, seed=n)
        for layout in ("contiguous", "rows", "strided"):
            a = activation(m, k, dtype, layout)
            code, out = call(rt, "aoti_torch_cpu__weight_int4pack_mm_cpu_tensor", hs.of(a), hs.of(packed),
                             hs.of(group_size(group)), hs.of(sz))
            assert code == 0, last_error(rt)
            eager = torch.ops.aten._weight_int4pack_mm_for_cpu(dense(a), packed, group, sz)
            check_close(hs.tensor(c_void_p(out.value)), eager, int4_exact(a, codes, sz, group))


@pytest.mark.parametrize("group", [32, 128, 256])
def test_int4pack_mm_group_sizes_and_strided_scales(rt, hs, group):
    k, n = 512, 96
    codes, packed, sz = int4_case(n, k, group, torch.bfloat16, seed=group)
    sz_t = sz.permute(1, 0, 2).contiguous().permute(1, 0, 2)  # same values, [N, G, 2] storage
    a = activation(5, k, torch.bfloat16, "contiguous")
    for scales in (sz, sz_t):
        code, out = call(rt, "aoti_torch_cpu__weight_int4pack_mm_cpu_tensor", hs.of(a), hs.of(packed),
                         hs.of(group_size(group)), hs.of(scales))
        assert code == 0, last_error(rt)
        # torch's kernel reads qScaleAndZeros as if contiguous (measured: a permuted copy changes its
        # result); the runtime honours strides, so both compare with the contiguous values.
        eager = torch.ops.aten._weight_int4pack_mm_for_cpu(a, packed, group, sz)
        check_close(hs.tensor(c_void_p(out.value)), eager, int4_exact(a, codes, sz, group))


def test_int4pack_mm_reads_each_nibble_where_torch_packs_it(rt, hs):
    """One code at a time through an identity A: the runtime's W^T must equal the dequantized
    weight column by column (a layout mistake moves values between columns)."""
    n, k, group = 80, 64, 32
    codes = torch.zeros(n, k, dtype=torch.int32) + 8  # dequantizes to 0 with zero 0
    picks = [(0, 0), (1, 0), (31, 5), (32, 5), (33, 63), (63, 17), (64, 0), (65, 1), (79, 63)]
    for i, (row, col) in enumerate(picks):
        codes[row, col] = i % 7 + 9
    packed = torch.ops.aten._convert_weight_to_int4pack_for_cpu(codes, 1)
    sz = torch.stack([torch.ones(k // group, n), torch.zeros(k // group, n)], -1)
    code, out = call(rt, "aoti_torch_cpu__weight_int4pack_mm_cpu_tensor", hs.of(torch.eye(k)), hs.of(packed),
                     hs.of(group_size(group)), hs.of(sz))
    assert code == 0, last_error(rt)
    assert torch.equal(hs.tensor(c_void_p(out.value)).T, (codes - 8).float())


def test_int4pack_mm_refuses_bad_arguments(rt, hs):
    k, n, group = 128, 64, 32
    _, packed, sz = int4_case(n, k, group, torch.float32)
    a = torch.randn(2, k)
    gs = group_size(group)
    bad = [
        ((a, packed, group_size(16), sz), INVALID),            # not 32/64/128/256
        ((torch.randn(2, 96), packed, gs, sz), INVALID),       # A's K is not 2 * B.size(1)
        ((a, packed, gs, sz.bfloat16()), INVALID),             # scales not A's dtype
        ((a, packed, gs, sz[:, :32]), INVALID),                # scales not [K/g, N, 2]
        ((a, packed, gs, sz[:2]), INVALID),                    # fewer groups than K needs
        ((a, packed.t().contiguous().t(), gs, sz), INVALID),   # B not contiguous
        ((a, packed.to(torch.int8), gs, sz), INVALID),         # B not uint8
        ((a, packed[:8], gs, sz[:, :8]), INVALID),             # N not a multiple of 16
        ((a.double(), packed, gs, sz.double()), UNSUPPORTED),  # torch refuses float64 too
    ]
    for args, expected in bad:
        code, out = call(rt, "aoti_torch_cpu__weight_int4pack_mm_cpu_tensor", *(hs.of(t) for t in args))
        assert code == expected, (args[0].shape, last_error(rt))
        assert out.value == 0xDEAD
        assert "_weight_int4pack_mm" in last_error(rt)
