"""The CPU ops op_shapes_9 of the ring imports (tests/arch_ring.py; src/ops/cpu/avg_pool.h,
avg_pool2d.cpp, avg_pool3d.cpp, uniform.cpp): average pooling with windows inductor leaves to its
fallback, and aten.uniform (x.uniform_(a, b) inside a model), called through ctypes with torch's exact
C-shim signatures and compared with torch eager: values (bit for bit: the same sums in the same
order), dtypes, shapes and strides; the random op by its range, moments and layout. Each with
negative controls that must be refused with torch's own message."""

from __future__ import annotations

from ctypes import byref, c_double, c_int32, c_int64, c_void_p

import pytest

from tests.aoti_helpers import INVALID, UNSUPPORTED, shim
from tests.cpu_shim_tensors import assert_same, gen, got_, ints, last_error, strided, torch_error

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow

def call_pool(rt, hs, spatial, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor, out):
    divisor_arg = byref(c_int64(divisor)) if divisor is not None else None
    return shim(rt, f"aoti_torch_cpu_avg_pool{spatial}d")(
        hs.of(x), *ints(kernel), *ints(stride), *ints(padding), c_int32(ceil_mode), c_int32(count_include_pad),
        divisor_arg, byref(out))


def pool_input(spatial: int, dtype, shape=None) -> torch.Tensor:
    shape = shape or ((2, 3, 17, 15) if spatial == 2 else (2, 3, 9, 8, 7))
    if dtype == torch.int64:
        return torch.randint(-50, 50, shape, generator=gen(1))
    return (torch.randn(shape, generator=gen(1)) * 4).to(dtype)


# (view, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override): Inception's large
# window, ceil_mode clipping the last window at the padded bound and dropping one that would start in
# the right padding (2-d: W 15, k 2, s 2, p 1; 3-d: T 9, k 4, s 4, p 2), count_include_pad off, divisor
# overrides (negative too), an empty stride (= kernel), unbatched input, channels-last and strided views.
def pool_cases(spatial: int, x: torch.Tensor) -> list:
    if spatial == 2:
        cl = x.to(memory_format=torch.channels_last)
        return [(x, [13], [1], [6], 0, 1, None), (x, [5, 2], [2, 2], [2, 1], 1, 0, None),
                (x, [7], [], [3], 1, 1, 5), (x[0], [6, 5], [4, 2], [3, 2], 1, 1, None),
                (cl, [6], [3], [2], 1, 0, None), (cl[:1], [9, 4], [2, 3], [4, 0], 0, 1, -3),
                (strided(x), [3, 9], [2, 1], [1, 4], 0, 0, 3), (x.transpose(2, 3), [6], [5], [3], 1, 1, None)]
    cl = x.to(memory_format=torch.channels_last_3d)
    return [(x, [3], [2], [1], 0, 1, None), (x, [7], [1], [3], 0, 1, None),
            (x, [4, 3, 5], [4, 3, 2], [2, 1, 2], 1, 0, None), (x[0], [4], [3], [2], 1, 1, 7),
            (cl, [5, 3, 3], [], [2, 1, 1], 1, 0, None), (strided(x), [2, 3, 3], [1, 2, 3], [1, 1, 0], 1, 1, -3),
            (x.transpose(2, 4), [6, 4, 3], [1, 2, 2], [3, 0, 1], 0, 0, None)]


@pytest.mark.parametrize("spatial", [2, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int64])
def test_avg_pool_matches_torch(rt, hs, spatial, dtype):
    x = pool_input(spatial, dtype)
    fn = torch.ops.aten.avg_pool2d if spatial == 2 else torch.ops.aten.avg_pool3d
    for view, kernel, stride, padding, ceil_mode, count_include_pad, divisor in pool_cases(spatial, x):
        args = (view, kernel, stride, padding, bool(ceil_mode), bool(count_include_pad), divisor)
        out = c_void_p()
        code = call_pool(rt, hs, spatial, view, kernel, stride, padding, ceil_mode, count_include_pad, divisor, out)
        if spatial == 3 and dtype in (torch.bfloat16, torch.float16):  # torch's CPU kernel has no 16-bit floats
            assert code == UNSUPPORTED and out.value is None
            assert last_error(rt).endswith(torch_error(fn, *args))
            continue
        assert code == 0, last_error(rt)
        assert_same(got_(hs, out), fn(*args))  # bit for bit, strides too (channels-last kept in 2-d)


def test_avg_pool_counts_windows_as_torch(rt, hs):
    # Ones in: each output is (input cells covered) / divisor, which spells out the counting rules.
    x = torch.ones(1, 1, 6, 7, dtype=torch.float64)
    cases = [([3], [2], [0], 1, 1, None, [[1, 1, 1], [1, 1, 1], [1, 1, 1]]),  # ceil: last window clipped at 6 / 7
             ([3], [2], [1], 1, 1, None, None), ([3], [2], [1], 1, 0, None, None), ([4], [3], [2], 1, 1, 16, None)]
    for kernel, stride, padding, ceil_mode, include, divisor, literal in cases:
        out = c_void_p()
        assert call_pool(rt, hs, 2, x, kernel, stride, padding, ceil_mode, include, divisor, out) == 0, last_error(rt)
        want = torch.ops.aten.avg_pool2d(x, kernel, stride, padding, bool(ceil_mode), bool(include), divisor)
        assert_same(got_(hs, out), want)
        if literal is not None:
            assert want[0, 0].tolist() == literal
    # count_include_pad with padding: the corner window [-1, 2) x [-1, 2) counts 9 cells, 4 of them input.
    out = c_void_p()
    assert call_pool(rt, hs, 2, x, [3], [2], [1], 0, 1, None, out) == 0
    assert got_(hs, out)[0, 0, 0, 0].item() == 4 / 9


@pytest.mark.parametrize("spatial", [2, 3])
def test_avg_pool_refuses_what_torch_refuses(rt, hs, spatial):
    x = pool_input(spatial, torch.float32)
    fn = torch.ops.aten.avg_pool2d if spatial == 2 else torch.ops.aten.avg_pool3d
    n = spatial
    bad = [
        (x, [3] * (n + 1), [1], [1], 0, 1, None),  # kernel_size of the wrong length
        (x, [3], [1] * (n + 1), [1], 0, 1, None),  # stride of the wrong length
        (x, [3], [1], [], 0, 1, None),  # padding empty
        (x, [3], [1], [1], 0, 1, 0),  # divisor 0
        (x, [3], [0], [1], 0, 1, None),  # stride 0
        (x, [3], [1], [-1], 0, 1, None),  # negative padding
        (x, [3], [1], [2], 0, 1, None),  # padding over half the kernel
        (x, [0], [1], [0], 0, 1, None),  # kernel 0
        (x, [3], [-1], [1], 0, 1, None),  # negative stride
        (x, [2 ** 33], [1], [0], 0, 1, None),  # not an int
        (x.flatten(0, 1)[0, 0], [3], [1], [1], 0, 1, None),  # too few dims
        (x[:, :, :0], [3], [1], [1], 0, 1, None),  # an empty spatial dim
        (x, [x.shape[-1] + 3], [1], [1], 0, 1, None),  # output too small / 3-d: input smaller than the kernel
    ]
    if spatial == 3:  # W 6 < kernel 7: refused although the padding would cover it (W 7 passes above)
        bad.append((x[..., :6], [7], [1], [3], 0, 1, None))
    for view, kernel, stride, padding, ceil_mode, include, divisor in bad:
        out = c_void_p(0x5)
        code = call_pool(rt, hs, spatial, view, kernel, stride, padding, ceil_mode, include, divisor, out)
        args = (view, kernel, stride, padding, bool(ceil_mode), bool(include), divisor)
        assert code == INVALID, (kernel, stride, padding, divisor, view.shape)
        assert out.value == 0x5  # untouched
        assert last_error(rt).endswith(torch_error(fn, *args)), (last_error(rt), torch_error(fn, *args))
    ints_in = torch.ones(1, 1, 8, 8, 8, dtype=torch.int32)[0 if spatial == 2 else slice(None)]
    assert call_pool(rt, hs, spatial, ints_in, [3], [1], [1], 0, 1, None, c_void_p()) == UNSUPPORTED
    assert last_error(rt).endswith(torch_error(fn, ints_in, [3], [1], [1], False, True, None))


# ---- uniform ----

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.complex64])
def test_uniform_draws_in_range_with_torch_layout(rt, hs, dtype):
    base = torch.full((100, 120), 7.0).to(dtype)
    f = shim(rt, "aoti_torch_cpu_uniform")
    views = [base, base.t(), strided(base), base.to(memory_format=torch.contiguous_format)[:, 10:90],
             base.view(10, 10, 12, 10).to(memory_format=torch.channels_last), base[:1].expand(50, 120)]
    for view, (lo, hi) in zip(views, [(0.0, 1.0), (-3.0, 1.0), (2.0, 2.5), (-1.0, 1.0), (10.0, 20.0), (-0.5, 0.5)]):
        before = view.clone()
        out = c_void_p()
        assert f(hs.of(view), c_double(lo), c_double(hi), None, byref(out)) == 0, last_error(rt)
        got = got_(hs, out)
        want = torch.ops.aten.uniform(view, lo, hi)
        assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
        assert torch.equal(view, before)  # self is not written
        parts = torch.view_as_real(got).flatten() if got.is_complex() else got.flatten()
        values = parts.double()
        assert values.min() >= lo and values.max() < hi
        # The statistics of torch's own draws in this dtype (a million of them), not of the real interval:
        # bfloat16 has 32 values in [2, 2.5), so its mean is 2.2422, not 2.25. Bounds: 6 standard errors of
        # this sample (the variance's standard error for a uniform is 0.894 / sqrt(n) of it); a CI run
        # failed once when the mean bound ignored that bias.
        torch_draws = torch.empty(10 ** 6, dtype=dtype).uniform_(lo, hi)
        torch_values = (torch.view_as_real(torch_draws) if dtype.is_complex else torch_draws).flatten().double()
        width, n = hi - lo, values.numel()
        assert abs(values.mean().item() - torch_values.mean().item()) < 6 * width / (12 * n) ** 0.5
        assert abs(values.var().item() / torch_values.var().item() - 1) < 6 * 0.894 / n ** 0.5
        assert values.unique().numel() > 20  # not a constant fill (bfloat16 has 32 values in [2, 2.5))
    again = c_void_p()
    assert f(hs.of(base), c_double(0.0), c_double(1.0), None, byref(again)) == 0
    first = c_void_p()
    assert f(hs.of(base), c_double(0.0), c_double(1.0), None, byref(first)) == 0
    assert not torch.equal(got_(hs, again), got_(hs, first))  # fresh draws each call


def test_uniform_degenerate_range_and_empty(rt, hs):
    f = shim(rt, "aoti_torch_cpu_uniform")
    out = c_void_p()
    assert f(hs.of(torch.zeros(3, 4)), c_double(1.5), c_double(1.5), None, byref(out)) == 0, last_error(rt)
    assert torch.equal(got_(hs, out), torch.full((3, 4), 1.5))  # from == to: every draw is from
    assert f(hs.of(torch.zeros(0, 4)), c_double(0.0), c_double(1.0), None, byref(out)) == 0
    assert got_(hs, out).shape == (0, 4)


def test_uniform_refuses_what_torch_refuses(rt, hs):
    f = shim(rt, "aoti_torch_cpu_uniform")
    u = torch.ops.aten.uniform
    nan = float("nan")
    f32, f64, f16 = torch.zeros(4), torch.zeros(4, dtype=torch.float64), torch.zeros(4, dtype=torch.float16)
    # from > to, to - from past the dtype's max, from/to outside the dtype's range, NaN, infinity
    cases = [(f32, 3.0, 2.0), (f32, -3.4e38, 3.4e38), (f64, -1e308, 1e308), (f16, -7e4, 7e4), (f16, -6e4, 6e4),
             (torch.zeros(4, dtype=torch.bfloat16), 0.0, 1e39), (f32, nan, 1.0), (f32, 0.0, float("inf")),
             (torch.zeros(4, dtype=torch.complex64), 3.0, 1.0)]
    for x, lo, hi in cases:
        out = c_void_p(0x5)
        assert f(hs.of(x), c_double(lo), c_double(hi), None, byref(out)) == INVALID, (x.dtype, lo, hi)
        assert out.value == 0x5
        assert last_error(rt).endswith(torch_error(u, x, lo, hi)), (last_error(rt), torch_error(u, x, lo, hi))
    ints_in = torch.zeros(4, dtype=torch.int64)
    assert f(hs.of(ints_in), c_double(0.0), c_double(1.0), None, byref(c_void_p())) == UNSUPPORTED
    assert last_error(rt).endswith(torch_error(u, ints_in, 0.0, 1.0))
    generator = c_void_p(0x1234)  # a generator the runtime does not have: refused, not ignored
    assert f(hs.of(torch.zeros(4)), c_double(0.0), c_double(1.0), byref(generator), byref(c_void_p())) == UNSUPPORTED
