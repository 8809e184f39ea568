"""aten::_scaled_mm on the CPU (aoti_torch_cpu__scaled_mm_out, which inductor emits for torch._scaled_mm:
float8 linears), found unserved by scripts/op_probe.py: called through ctypes with torch's C-shim
signature and compared with torch eager: every float8 format as self and mat2 (all 256 bit patterns of
each go through the product, NaN and infinities included), tensor-wise and row-wise scales, a bias of
each floating dtype, float32/bfloat16/float16 outputs, a transposed and a strided operand; wrong shapes,
a non-scalar scale_result and an integer output refused with one message.

Float8 outputs (each of e4m3fn, e5m2 and the fnuz forms) bit for bit against torch's portable CPU
kernel (the emulated path of aten/native/Blas.cpp, oneDNN off: ``emulated``): the rounding of every
class of float32 (6.3M values: ties, subnormals, beyond the largest finite value, infinities, NaN of
either sign), scale_result as the float reciprocal torch multiplies by (a division or a product by
scale_result would fail: the test shows both give other bits on its inputs), with and without bias and
scale_result, tensor-wise and row-wise, out-of-range results (e4m3fn saturating, e5m2 to infinity, fnuz
to NaN). torch with oneDNN on (its default) takes another path on a CPU with AMX for tensor-wise scales
of same-format operands; test_onednn_path_is_not_followed states how far that one is."""

from __future__ import annotations

from ctypes import byref, c_int32, c_void_p

import pytest

from tests.aoti_helpers import INVALID, UNSUPPORTED, shim
from tests.cpu_shim_tensors import CODES, gen, last_error

torch = pytest.importorskip("torch")


def _torch_is_the_reference() -> bool:
    """Whether this torch's CPU _scaled_mm is the portable kernel these tests compare with (torch 2.13's:
    row-wise scales; torch 2.11, on the GPU machine, takes tensor-wise scales only on the CPU)."""
    a = torch.zeros(2, 16).to(torch.float8_e4m3fn)
    try:
        torch._scaled_mm(a, a.t(), torch.ones(2, 1), torch.ones(1, 2), out_dtype=torch.float32)
    except RuntimeError:
        return False
    return True


pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    not _torch_is_the_reference(),
    reason=f"torch {torch.__version__}'s CPU _scaled_mm takes tensor-wise scales only: not the reference")]
FORMATS = [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz]


def call(rt, hs, out, a, b, sa, sb, bias=None, out_dtype=None, scale_result=None) -> int:
    bias_h = c_void_p(hs.of(bias).value) if bias is not None else None
    result_h = c_void_p(hs.of(scale_result).value) if scale_result is not None else None
    dtype = c_int32(CODES[out_dtype]) if out_dtype is not None else None
    return shim(rt, "aoti_torch_cpu__scaled_mm_out")(
        hs.of(out), hs.of(a), hs.of(b), hs.of(sa), hs.of(sb), byref(bias_h) if bias_h is not None else None,
        byref(result_h) if result_h is not None else None, byref(dtype) if dtype is not None else None, c_int32(0))


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
    assert call(rt, hs, torch.empty(4, 8, dtype=torch.int32), a, b, one, one, out_dtype=torch.int32) == UNSUPPORTED
    assert "Int output" in last_error(rt)
    assert call(rt, hs, torch.empty(4, 8, dtype=torch.float8_e4m3fn), a, b, one, one, out_dtype=torch.float8_e4m3fn,
                scale_result=torch.ones(2)) == INVALID
    assert "scale_result must be a float32 scalar" in last_error(rt)
    assert call(rt, hs, torch.empty(4, 8), a, b, one, one, out_dtype=torch.float32,
                scale_result=torch.tensor(1.0, dtype=torch.float64)) == INVALID  # torch checks it for any out
    assert "scale_result must be a float32 scalar" in last_error(rt)
    assert call(rt, hs, torch.empty(4, 8), a, b.t().contiguous(), one, one, out_dtype=torch.float32) == INVALID
    assert "cannot be multiplied" in last_error(rt)
    assert call(rt, hs, torch.empty(4, 8), a.float(), b, one, one, out_dtype=torch.float32) == INVALID
    assert "float8" in last_error(rt)
    assert call(rt, hs, torch.empty(4, 8), a, b, torch.ones(3, 1), one, out_dtype=torch.float32) == INVALID
    assert "does not broadcast" in last_error(rt)


# ---- float8 outputs ----

F8_OUT = [torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz]
SCALED_OUT = [torch.float8_e4m3fn, torch.float8_e5m2]  # the outputs torch scales by scale_result
INF, NAN = float("inf"), float("nan")


def emulated(*args, **kwargs) -> torch.Tensor:
    """torch._scaled_mm through torch's portable CPU kernel (Blas.cpp's emulated path, all a CPU without
    AMX runs): oneDNN off."""
    with torch.backends.mkldnn.flags(enabled=False):
        return torch._scaled_mm(*args, **kwargs)


def bits(t: torch.Tensor) -> torch.Tensor:
    return t.view(torch.uint8)


def carried(values: torch.Tensor):
    """Operands whose product is exactly ``values`` (one a row): self ones [M, 1], mat2 a one [1, 1],
    scale_a the values (row-wise), scale_b 1. What reaches out's rounding is each value itself."""
    m = values.numel()
    return (torch.ones(m, 1).to(torch.float8_e4m3fn), torch.ones(1, 1).to(torch.float8_e4m3fn),
            values.reshape(m, 1).float().contiguous(), torch.ones(1, 1))


def float32_classes() -> torch.Tensor:
    """Every float32 whose low 12 bits are 0, 1, 0x7ff, 0x800, 0x801 or 0xfff: each sign, exponent and
    top 11 mantissa bits, so every float8 rounding boundary (the ties at mantissa bit 19 or 20, the
    subnormal ones higher up) with its neighbours an ulp away, infinities, NaNs of either sign."""
    high = torch.arange(1 << 20, dtype=torch.int64) << 12
    words = torch.cat([high | low for low in (0x000, 0x001, 0x7FF, 0x800, 0x801, 0xFFF)])
    return torch.where(words >= 1 << 31, words - (1 << 32), words).to(torch.int32).view(torch.float32)


# What torch 2.13 makes of edge values (float32 -> out), written out: ties to even, e4m3fn saturating
# (infinities too), e5m2 to infinity past 61440, the fnuz forms to NaN (0x80) and never -0.
EDGES = {
    torch.float8_e4m3fn: [(448.0, 0x7E), (464.0, 0x7E), (465.0, 0x7E), (1e10, 0x7E), (INF, 0x7E), (-INF, 0xFE),
                          (NAN, 0x7F), (-NAN, 0xFF), (2.0**-10, 0x00), (3 * 2.0**-10, 0x02), (1.0625, 0x38),
                          (1.1875, 0x3A), (-1e-30, 0x80)],
    torch.float8_e5m2: [(57344.0, 0x7B), (61439.0, 0x7B), (61440.0, 0x7C), (INF, 0x7C), (-INF, 0xFC), (NAN, 0x7F),
                        (-NAN, 0xFF), (2.0**-17, 0x00), (1.125, 0x3C), (-1e-30, 0x80)],
    torch.float8_e4m3fnuz: [(240.0, 0x7F), (247.99, 0x7F), (248.0, 0x80), (INF, 0x80), (NAN, 0x80), (-1e-30, 0x00)],
    torch.float8_e5m2fnuz: [(57344.0, 0x7F), (61440.0, 0x80), (-INF, 0x80), (-1e-30, 0x00)],
}


@pytest.mark.parametrize("fmt", F8_OUT, ids=str)
def test_float8_out_rounds_every_float32_as_torch(rt, hs, fmt):
    values = float32_classes()  # 6.3M
    a, b, sa, sb = carried(values)
    want = emulated(a, b, sa, sb, out_dtype=fmt)
    out = torch.empty(values.numel(), 1, dtype=fmt)
    assert call(rt, hs, out, a, b, sa, sb, out_dtype=fmt) == 0, last_error(rt)
    differ = (bits(out) != bits(want)).flatten()
    assert not differ.any(), f"{int(differ.sum())} of {values.numel()} differ, e.g. at {values[differ][:4].tolist()}"
    edges = torch.tensor([v for v, _ in EDGES[fmt]])
    a, b, sa, sb = carried(edges)
    out = torch.empty(edges.numel(), 1, dtype=fmt)
    assert call(rt, hs, out, a, b, sa, sb, out_dtype=fmt) == 0, last_error(rt)
    written = [code for _, code in EDGES[fmt]]
    assert bits(out).flatten().tolist() == written
    assert bits(emulated(a, b, sa, sb, out_dtype=fmt)).flatten().tolist() == written
    # every float8 value of each operand format (NaN patterns keep their sign) into this output
    for operand in FORMATS:
        a = every_pattern(operand, 256, 1)
        one = torch.tensor(1.0)
        want = emulated(a, torch.ones(1, 1).to(operand), one, one, out_dtype=fmt)
        out = torch.empty(256, 1, dtype=fmt)
        assert call(rt, hs, out, a, torch.ones(1, 1).to(operand), one, one, out_dtype=fmt) == 0, last_error(rt)
        assert torch.equal(bits(out), bits(want)), operand


@pytest.mark.parametrize("fmt", SCALED_OUT, ids=str)
def test_scale_result_is_a_product_by_its_float_reciprocal(rt, hs, fmt):
    grid = torch.arange(256, dtype=torch.uint8).view(fmt).float()
    grid = grid[torch.isfinite(grid) & (grid > 0)].unique().sort().values.double()
    ties = (grid[1:] + grid[:-1]) / 2  # every rounding boundary of the format
    wrong = {"x / scale_result": 0, "x * scale_result": 0, "scale_result ignored": 0}
    for s in (7.10741662979126, 0.3, 3.0):
        near = [(ties * s).float()]
        up = down = near[0]
        for _ in range(3):
            up, down = torch.nextafter(up, torch.tensor(INF)), torch.nextafter(down, torch.tensor(0.0))
            near += [up, down]
        values = torch.cat(near)
        values = torch.cat([values, -values, values * 1e3])  # the last beyond the largest finite value
        a, b, sa, sb = carried(values)
        sr = torch.tensor(s)
        want = emulated(a, b, sa, sb, scale_result=sr, out_dtype=fmt)
        out = torch.empty(values.numel(), 1, dtype=fmt)
        assert call(rt, hs, out, a, b, sa, sb, out_dtype=fmt, scale_result=sr) == 0, last_error(rt)
        assert torch.equal(bits(out), bits(want)), s
        x = values.reshape(-1, 1)
        assert torch.equal(bits((x * (1 / sr)).to(fmt)), bits(want))  # torch: out_tmp * (1 / output_scale)
        for name, other in (("x / scale_result", x / sr), ("x * scale_result", x * sr), ("scale_result ignored", x)):
            wrong[name] += int((bits(other.to(fmt)) != bits(want)).sum())
    # negative controls: each other reading of scale_result gives other bits on these inputs
    assert all(count > 0 for count in wrong.values()), wrong


def exact_operand(fmt, rows: int, cols: int, g: torch.Generator) -> torch.Tensor:
    """float8 values k/8 (|k| <= 15; k/4, |k| <= 7 for the 2-bit-mantissa formats) as [rows, cols]:
    with power-of-two scales every float32 product and sum of them is exact in any order, so torch's
    BLAS and the runtime's loop reach out's rounding with the same value: bit for bit."""
    top, unit = (7, 4) if fmt in (torch.float8_e5m2, torch.float8_e5m2fnuz) else (15, 8)
    return (torch.randint(-top, top + 1, (rows, cols), generator=g).float() / unit).to(fmt)


@pytest.mark.parametrize("fmt", F8_OUT, ids=str)
def test_float8_out_matches_torch(rt, hs, fmt):
    g = gen(5)
    M, K, N = 24, 32, 40
    pairs = [(torch.float8_e4m3fn, torch.float8_e4m3fn), (torch.float8_e5m2, torch.float8_e4m3fn),
             (torch.float8_e4m3fnuz, torch.float8_e5m2fnuz)]
    seen = torch.zeros(256, dtype=torch.bool)
    for fa, fb in pairs:
        a = exact_operand(fa, M, K, g)
        b = exact_operand(fb, N, K, g).t()  # column-major, as torch wants it
        # row-wise powers of two from 2**-12 to 2**8 (results underflow the subnormals and pass the
        # largest finite value), and tensor-wise ones
        scales = [(2.0 ** torch.randint(-12, 9, (M, 1), generator=g).float(),
                   2.0 ** torch.randint(-6, 7, (1, N), generator=g).float()),
                  (torch.tensor(2.0**5), torch.tensor(2.0**-3))]
        for sa, sb in scales:
            for bias in (None, torch.randn(N, generator=g).to(torch.bfloat16), torch.randn(N, generator=g) * 100):
                for sr in (None, torch.tensor(0.37), torch.tensor(40.0)):
                    want = emulated(a, b, sa, sb, bias=bias, scale_result=sr, out_dtype=fmt)
                    out = torch.empty(M, N, dtype=fmt)
                    assert call(rt, hs, out, a, b, sa, sb, bias, fmt, sr) == 0, last_error(rt)
                    differ = bits(out) != bits(want)
                    assert not differ.any(), (fa, fb, sa.shape, bias is not None, sr,
                                              out[differ][:4].tolist(), want[differ][:4].tolist())
                    seen[bits(want).flatten().long()] = True
    # the comparisons covered out-of-range results (saturated, infinite or NaN) and subnormals
    top = {torch.float8_e4m3fn: [0x7E, 0xFE], torch.float8_e5m2: [0x7C, 0xFC], torch.float8_e4m3fnuz: [0x80],
           torch.float8_e5m2fnuz: [0x80]}[fmt]
    assert seen[top].all() and seen[1:4].all(), fmt


def test_float8_out_of_general_operands_matches_torch(rt, hs):
    """Any operands and scales: the float32 sums are rounded, in BLAS's order in torch and the loop's
    here, so a sum next to a float8 tie could round one step apart. Asserted: no other difference,
    at most 1 in 1000 of those (measured here: none of 6144)."""
    g = gen(6)
    steps = total = 0
    for fmt in SCALED_OUT:
        a = (torch.randn(32, 64, generator=g) * 8).to(torch.float8_e4m3fn)
        b = (torch.randn(48, 64, generator=g) * 8).to(torch.float8_e5m2).t()
        sa, sb = torch.rand(32, 1, generator=g) + 0.5, torch.rand(1, 48, generator=g) + 0.5
        bias = torch.randn(48, generator=g)
        for sr in (torch.tensor(0.9), torch.tensor(0.05)):  # the second pushes results past the largest
            want = emulated(a, b, sa, sb, bias=bias, scale_result=sr, out_dtype=fmt)
            out = torch.empty(32, 48, dtype=fmt)
            assert call(rt, hs, out, a, b, sa, sb, bias, fmt, sr) == 0, last_error(rt)
            differ = bits(out) != bits(want)
            assert ((bits(out).int() - bits(want).int()).abs()[differ] == 1).all()
            steps, total = steps + int(differ.sum()), total + out.numel()
    assert steps * 1000 <= total, f"{steps} of {total} one step apart"


def test_scale_result_ignored_where_torch_ignores_it(rt, hs):
    """torch scales only an e4m3fn or e5m2 out named by out_dtype: the fnuz outputs and an out_dtype
    left out (out in self's format) round the unscaled result."""
    values = torch.tensor([1.0, 3.0, 100.0, 300.0, 1e4])
    a, b, sa, sb = carried(values)
    sr = torch.tensor(0.25)
    for fmt in (torch.float8_e4m3fnuz, torch.float8_e5m2fnuz, None):
        want = emulated(a, b, sa, sb, scale_result=sr, out_dtype=fmt)
        assert torch.equal(bits(want), bits(emulated(a, b, sa, sb, out_dtype=fmt)))
        out = torch.empty(values.numel(), 1, dtype=want.dtype)
        assert call(rt, hs, out, a, b, sa, sb, out_dtype=fmt, scale_result=sr) == 0, last_error(rt)
        assert torch.equal(bits(out), bits(want)), fmt


def test_onednn_path_is_not_followed(rt, hs):
    """torch's default (oneDNN on) on a CPU with AMX int8 sends tensor-wise scales of same-format
    operands through oneDNN's float8 matmul instead: there an e4m3fn result past 464 becomes NaN (the
    portable kernel and the runtime: ±448) and some values round one float8 step apart (its scales
    meet the sum in another order). The runtime follows the portable kernel; elsewhere both agree."""
    g = gen(7)
    a = (torch.randn(64, 64, generator=g) * 4).to(torch.float8_e4m3fn)
    b = (torch.randn(32, 64, generator=g) * 4).to(torch.float8_e4m3fn).t()
    sa, sb, sr = torch.tensor(0.9), torch.tensor(1.3), torch.tensor(0.4)
    out = torch.empty(64, 32, dtype=torch.float8_e4m3fn)
    assert call(rt, hs, out, a, b, sa, sb, out_dtype=torch.float8_e4m3fn, scale_result=sr) == 0, last_error(rt)
    assert torch.equal(bits(out), bits(emulated(a, b, sa, sb, scale_result=sr, out_dtype=torch.float8_e4m3fn)))
    default = torch._scaled_mm(a, b, sa, sb, scale_result=sr, out_dtype=torch.float8_e4m3fn)
    differ = bits(default) != bits(out)
    nan_for_saturated = default.float().isnan() & (out.float().abs() == 448)
    one_step = ((bits(default).int() - bits(out).int()).abs() == 1) & ~default.float().isnan()
    assert (~differ | nan_for_saturated | one_step).all()
    assert int((differ & one_step).sum()) <= out.numel() // 100


def test_functional_scaled_mm_allocates_what_torch_returns(rt, hs):
    """aoti_torch_cpu__scaled_mm (the functional form torch's header declares beside the out variant): a
    new contiguous [M, N] of out_dtype, or of self's dtype when out_dtype is left out (a float8 out), with
    _scaled_mm_out's values; a refusal stores nothing."""
    from ctypes import c_void_p as handle

    g = gen(11)
    a = (torch.randn(8, 32, generator=g) * 2).to(torch.float8_e4m3fn)
    b = (torch.randn(16, 32, generator=g)).to(torch.float8_e5m2).t()
    sa, sb = torch.rand(8, 1, generator=g) + 0.5, torch.rand(1, 16, generator=g) + 0.5
    f = shim(rt, "aoti_torch_cpu__scaled_mm")
    for out_dtype in (torch.bfloat16, torch.float32, None):
        dtype = c_int32(CODES[out_dtype]) if out_dtype is not None else None
        ret = handle()
        code = f(hs.of(a), hs.of(b), hs.of(sa), hs.of(sb), None, None, byref(dtype) if dtype is not None else None,
                 c_int32(0), byref(ret))
        assert code == 0, last_error(rt)
        got = hs.tensor(ret)
        want = torch._scaled_mm(a, b, sa, sb, out_dtype=out_dtype)
        assert got.dtype == want.dtype and got.shape == want.shape and got.is_contiguous()
        into = torch.empty_like(want)  # the out variant's bits exactly; torch's within a rounding
        assert call(rt, hs, into, a, b, sa, sb, out_dtype=out_dtype) == 0, last_error(rt)
        assert torch.equal(got.view(torch.uint8), into.view(torch.uint8)) if got.element_size() == 1 else \
            torch.equal(got, into)
        tol = {torch.float32: 1e-5, torch.bfloat16: 8e-3, torch.float8_e4m3fn: 0.07}[want.dtype]
        torch.testing.assert_close(got.float(), want.float(), rtol=tol, atol=tol)
    ret = handle()
    assert f(hs.of(a), hs.of(a), hs.of(sa), hs.of(sb), None, None, None, c_int32(0), byref(ret)) == INVALID
    assert ret.value is None and "cannot be multiplied" in last_error(rt)
