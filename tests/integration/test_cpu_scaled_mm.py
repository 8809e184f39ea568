"""aten::_scaled_mm on the CPU (aoti_torch_cpu__scaled_mm_out, which inductor emits for torch._scaled_mm:
float8 linears), found unserved by scripts/op_probe.py: called through ctypes with torch's C-shim
signature and compared with torch eager: every float8 format as self and mat2 (all 256 bit patterns of
each go through the product, NaN and infinities included), tensor-wise and row-wise scales, a bias of
each floating dtype, float32/bfloat16/float16 outputs, a transposed and a strided operand; a float8
output and wrong shapes refused with one message."""

from __future__ import annotations

from ctypes import byref, c_int32, c_void_p

import pytest

from tests.aoti_helpers import INVALID, UNSUPPORTED, shim
from tests.cpu_shim_tensors import CODES, gen, last_error

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow
FORMATS = [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz]


def call(rt, hs, out, a, b, sa, sb, bias=None, out_dtype=None) -> int:
    bias_h = c_void_p(hs.of(bias).value) if bias is not None else None
    dtype = c_int32(CODES[out_dtype]) if out_dtype is not None else None
    return shim(rt, "aoti_torch_cpu__scaled_mm_out")(
        hs.of(out), hs.of(a), hs.of(b), hs.of(sa), hs.of(sb), byref(bias_h) if bias_h is not None else None, None,
        byref(dtype) if dtype is not None else None, c_int32(0))


def every_pattern(dtype, rows: int, cols: int) -> torch.Tensor:
    """All 256 bit patterns of a float8 format, then random ones, as a [rows, cols] matrix."""
    bits = torch.cat([torch.arange(256, dtype=torch.int32), torch.randint(0, 256, (rows * cols,), generator=gen(3))])
    return bits[: rows * cols].to(torch.uint8).view(dtype).reshape(rows, cols)


@pytest.mark.parametrize("fmt", FORMATS, ids=str)
@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16, torch.float16], ids=str)
def test_scaled_mm_matches_torch(rt, hs, fmt, out_dtype):
    g = gen(1)
    a = (torch.randn(12, 40, generator=g) * 2).to(fmt)
    b = (torch.randn(24, 40, generator=g) * 2).to(torch.float8_e4m3fn).t()  # column-major, as torch wants it
    cases = [(torch.tensor(0.5), torch.tensor(1.5), None),
             (torch.rand(12, 1, generator=g) + 0.5, torch.rand(1, 24, generator=g) + 0.5, None),
             (torch.tensor(0.25), torch.tensor(2.0), torch.randn(24, generator=g).to(out_dtype)),
             (torch.rand(12, 1, generator=g) + 0.5, torch.rand(1, 24, generator=g) + 0.5,
              torch.randn(24, generator=g).to(torch.bfloat16))]
    for sa, sb, bias in cases:
        want = torch._scaled_mm(a, b, sa, sb, bias=bias, out_dtype=out_dtype)
        out = torch.empty(12, 24, dtype=out_dtype)
        assert call(rt, hs, out, a, b, sa, sb, bias, out_dtype) == 0, last_error(rt)
        # float32 sums in another order: one rounding of out's dtype apart at most
        tol = {torch.float32: 1e-5, torch.bfloat16: 8e-3, torch.float16: 1e-3}[out_dtype]
        torch.testing.assert_close(out.float(), want.float(), rtol=tol, atol=tol)


def test_every_float8_value_and_strided_operands(rt, hs):
    for fmt in FORMATS:
        a = every_pattern(fmt, 16, 16)  # 256 patterns: each value once, NaNs and infinities too
        eye = torch.eye(16).to(torch.float8_e4m3fn).t()
        out = torch.empty(16, 16)
        assert call(rt, hs, out, a, eye, torch.tensor(1.0), torch.tensor(1.0), out_dtype=torch.float32) == 0, last_error(rt)
        want = torch._scaled_mm(a, eye, torch.tensor(1.0), torch.tensor(1.0), out_dtype=torch.float32)
        assert torch.equal(out.isnan(), want.isnan()), fmt
        assert torch.equal(torch.nan_to_num(out), torch.nan_to_num(want)), fmt
    g = gen(2)
    wide = (torch.randn(8, 64, generator=g)).to(torch.float8_e4m3fn)[:, ::2]  # strided self
    b = (torch.randn(16, 32, generator=g)).to(torch.float8_e5m2).t()
    out = torch.empty(16, 8).t()  # a transposed out
    assert call(rt, hs, out, wide, b, torch.tensor(1.0), torch.tensor(0.5), out_dtype=torch.float32) == 0, last_error(rt)
    want = torch._scaled_mm(wide.contiguous(), b, torch.tensor(1.0), torch.tensor(0.5), out_dtype=torch.float32)
    torch.testing.assert_close(out, want, rtol=1e-5, atol=1e-5)


def test_scaled_mm_refusals(rt, hs):
    a = torch.randn(4, 16).to(torch.float8_e4m3fn)
    b = torch.randn(8, 16).to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0)
    assert call(rt, hs, torch.empty(4, 8, dtype=torch.float8_e4m3fn), a, b, one, one,
                out_dtype=torch.float8_e4m3fn) == UNSUPPORTED
    assert "float8_e4m3fn output" in last_error(rt).lower() or "Float8_e4m3fn output" in last_error(rt)
    assert call(rt, hs, torch.empty(4, 8), a, b.t().contiguous(), one, one, out_dtype=torch.float32) == INVALID
    assert "cannot be multiplied" in last_error(rt)
    assert call(rt, hs, torch.empty(4, 8), a.float(), b, one, one, out_dtype=torch.float32) == INVALID
    assert "float8" in last_error(rt)
    assert call(rt, hs, torch.empty(4, 8), a, b, torch.ones(3, 1), one, out_dtype=torch.float32) == INVALID
    assert "does not broadcast" in last_error(rt)
