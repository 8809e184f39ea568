"""The ops Fourier neural operators and complex-valued layers reach (tests/arch_ring.py fno_spectral):
the C shims slice_Tensor and reshape (views, through ctypes with torch's C-shim signatures) and the
proxy-executor targets inductor falls back to for complex tensors only (aten::mm, bmm, addmm, clone,
constant_pad_nd, _conj, sum, sum.dim_IntList, mean, mean.dim, expand, select.int, full, copy,
slice_scatter), each called through the runtime's own proxy executor by a driver model
(tests/proxy_driver.py) with the arguments chosen here. Compared with torch eager: values, dtypes, shapes, strides (and torch's fake tensors', which
inductor compiles against), storage offsets and sharing for the views; complex64 and complex128,
strided and offset inputs, arguments at their defaults; a refused call per op, in torch's words.

Tolerances (matmuls and sums; everything else is a copy and compared exactly): torch accumulates a
complex64 GEMM in float (cgemm) and the runtime in double, so for C = A @ B with inner size k they
differ by at most torch's own error, bounded elementwise by ~sqrt(2) (k + 2) u (|A| @ |B|) with
u = 2^-24 (a complex product's rounding plus k - 1 additions), plus the runtime's one rounding,
u |C| <= u (|A| @ |B|): the bound used is 2 (k + 2) u (|A| @ |B|). complex128: the same with
u = 2^-53 on both sides. Against the exact product (numpy's long double) the runtime must be within
its own bound, u |C| + 2 k 2^-53 (|A| @ |B|), which torch's complex64 result does not meet: the
runtime is the more accurate one. Sums alike with n terms and |x| for |A||B|."""

from __future__ import annotations

from ctypes import byref, c_int32, c_int64, c_void_p

import numpy as np
import pytest

from tests.aoti_helpers import INVALID, shim
from tests.cpu_shim_tensors import gen, last_error, strided, torch_error
from tests.proxy_driver import refused

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow
aten = torch.ops.aten
DTYPES = [torch.complex64, torch.complex128]
U = {torch.complex64: 2.0**-24, torch.complex128: 2.0**-53}


def crandn(*shape, seed=0, dtype=torch.complex64) -> torch.Tensor:
    return torch.randn(*shape, dtype=dtype, generator=gen(seed))


def fake(op, *args, **kwargs):
    """op's result under FakeTensorMode: the layout inductor compiles the call's consumers against."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        return op(*(mode.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in args), **kwargs)


def as_real(t: torch.Tensor) -> torch.Tensor:
    return torch.view_as_real(t.resolve_conj()).double() if t.is_complex() else t.double()


def check(got: torch.Tensor, expected: torch.Tensor, bound: torch.Tensor | float = 0.0, layout: bool = True):
    """dtype, shape, strides (with layout) as expected's; |got - expected| <= bound per part."""
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, got.shape, expected.shape)
    if layout:
        assert got.stride() == expected.stride(), (got.stride(), expected.stride())
    g, e = as_real(got), as_real(expected)
    diff = torch.where((g == e) | (g.isnan() & e.isnan()), 0.0, (g - e).abs())  # inf == inf, NaN as NaN
    limit = bound.unsqueeze(-1) if isinstance(bound, torch.Tensor) and expected.is_complex() else bound
    assert bool((diff <= limit).all()), f"max diff {diff.max()}"
# ---- C shims: slice_Tensor, reshape ----

def _slice(rt, hs, x, dim, start, end, step):
    out = c_void_p()
    s = None if start is None else byref(c_int64(start))
    e = None if end is None else byref(c_int64(end))
    code = shim(rt, "aoti_torch_cpu_slice_Tensor")(hs.of(x), c_int64(dim), s, e, c_int64(step), byref(out))
    return code, out


def _view_place(rt, handle: c_void_p) -> tuple[int, int]:
    data, offset = c_void_p(), c_int64()
    assert shim(rt, "aoti_torch_get_data_ptr")(handle, byref(data)) == 0
    assert shim(rt, "aoti_torch_get_storage_offset")(handle, byref(offset)) == 0
    return data.value or 0, offset.value


@pytest.mark.parametrize("dtype", [*DTYPES, torch.float32])
def test_slice_is_torchs_view(rt, hs, dtype):
    base = torch.randn(5, 8, 6, generator=gen(1)).to(dtype)
    inputs = (base, base.transpose(0, 2), strided(base), base[1:, 2:])
    cases = [(2, 0, 4, 1), (1, None, 4, 1), (-1, -3, None, 1), (0, 1, 100, 2), (1, -100, -2, 3), (1, 5, 2, 1),
             (0, None, None, 4), (2, 7, 9, 1), (-2, 2, 3, 5)]
    for x in inputs:
        for dim, start, end, step in cases:
            code, out = _slice(rt, hs, x, dim, start, end, step)
            assert code == 0, last_error(rt)
            expected = aten.slice.Tensor(x, dim, start, end, step)
            data, offset = _view_place(rt, c_void_p(out.value))
            # A view of self's memory: torch's first element and torch's offset from self's.
            assert offset == expected.storage_offset() - x.storage_offset()
            if expected.numel():
                assert data == expected.data_ptr()
            check(hs.tensor(c_void_p(out.value)), expected)
            assert fake(aten.slice.Tensor, x, dim, start, end, step).stride() == expected.stride()


def test_slice_refuses_what_torch_refuses(rt, hs):
    x = crandn(4, 3, seed=2)
    assert _slice(rt, hs, x, 0, 0, 2, 0)[0] == INVALID and "slice step must be positive" in last_error(rt)
    assert "slice step must be positive" in torch_error(aten.slice.Tensor, x, 0, 0, 2, 0)
    assert _slice(rt, hs, x, 2, 0, 2, 1)[0] == INVALID and "out of range" in last_error(rt)
    code, out = _slice(rt, hs, torch.tensor(1.0 + 2.0j), 0, 0, 1, 1)
    assert code == INVALID and "slice() cannot be applied to a 0-dim tensor." in last_error(rt) and out.value is None


def _reshape(rt, hs, x, shape):
    out = c_void_p()
    array = (c_int64 * max(len(shape), 1))(*shape)
    code = shim(rt, "aoti_torch_cpu_reshape")(hs.of(x), array, c_int64(len(shape)), byref(out))
    return code, out


@pytest.mark.parametrize("dtype", [*DTYPES, torch.float32])
def test_reshape_views_where_torch_does_and_copies_where_it_copies(rt, hs, dtype):
    base = torch.randn(4, 6, 10, generator=gen(3)).to(dtype)
    cases = [
        (base, [24, 10]), (base, [-1]), (base, [4, 3, 2, 5, 2]), (base, [1, 4, 1, 60, 1]),  # contiguous: views
        (base.permute(1, 0, 2), [6, 40]), (base.permute(2, 0, 1), [10, 24]),  # permuted, dims kept adjacent: views
        (base.transpose(0, 1), [24, 10]), (base.transpose(1, 2), [-1, 6]),  # no view: contiguous copies
        (base[:, ::2], [12, 10]), (base[:, :, 1:4], [24, 3]), (strided(base), [-1]),
        (base[:, :1].expand(4, 5, 10), [20, 10]), (base[:, :1].expand(4, 5, 10), [4, 5, 10, 1]),
        (base[0, 0, 0], [1, 1]), (base[:0], [0, 60]), (base[:0], [6, 0, 10]), (base[:0], [0, 6, 10]),
    ]
    for x, shape in cases:
        code, out = _reshape(rt, hs, x, shape)
        assert code == 0, last_error(rt)
        expected = torch.reshape(x, shape)
        data, offset = _view_place(rt, c_void_p(out.value))
        if expected.untyped_storage().data_ptr() == x.untyped_storage().data_ptr():  # torch's is a view
            assert offset == expected.storage_offset() - x.storage_offset()
            assert data == expected.data_ptr() or not expected.numel()
        else:  # torch copied: so did the runtime, into a new contiguous tensor
            assert offset == 0 and data != x.data_ptr(), (x.shape, x.stride(), shape)
        check(hs.tensor(c_void_p(out.value)), expected)
        assert fake(torch.reshape, x, shape).stride() == expected.stride()


def test_reshape_refuses_bad_shapes_in_torchs_words(rt, hs):
    x = crandn(2, 3, seed=4)
    for shape in ([4, -1], [-1, -1], [-2, 3], [5]):
        code, out = _reshape(rt, hs, x, shape)
        assert code == INVALID and out.value is None
        assert torch_error(torch.reshape, x, shape) in last_error(rt), (last_error(rt), shape)


# ---- proxy targets: matmuls ----

def _matmul_bound(a: torch.Tensor, b: torch.Tensor, dtype) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The exact product (long double), |A| @ |B| and k, for the tolerances of the module docstring."""
    exact = np.matmul(a.resolve_conj().numpy().astype(np.clongdouble), b.resolve_conj().numpy().astype(np.clongdouble))
    scale = torch.from_numpy(np.matmul(np.abs(a.numpy()).astype(np.float64), np.abs(b.numpy()).astype(np.float64)))
    return exact, scale, a.shape[-1]


def _check_matmul(got, a, b, expected, dtype):
    exact, scale, k = _matmul_bound(a, b, dtype)
    u = U[dtype]
    check(got, expected, 2 * (k + 2) * u * scale + 1e-300)
    # Against the exact product: the runtime rounds once after a double accumulation.
    err = np.abs(got.numpy().astype(np.clongdouble) - exact).astype(np.float64)
    limit = u * np.abs(exact).astype(np.float64) + 2 * k * 2.0**-53 * scale.numpy() * 1.5 + 1e-300
    assert (err <= limit).all(), float((err - limit).max())


@pytest.mark.parametrize("dtype", DTYPES)
def test_mm_matches_torch(driver, hs, dtype):
    a, b = crandn(6, 40, seed=5, dtype=dtype), crandn(40, 7, seed=6, dtype=dtype)
    cases = [(a, b), (a[:, :9], b[:9].t().contiguous().t()), (strided(a), strided(b.t().contiguous()).t()),
             (a[2:3], b), (a[:, :0], b[:0]), (crandn(300, 5, seed=7, dtype=dtype).t(), crandn(300, 3, seed=8, dtype=dtype))]
    for x, y in cases:
        (got,) = driver.call(hs, "aten::mm", [("self", x), ("mat2", y)])
        expected = aten.mm(x, y)
        _check_matmul(got, x, y, expected, dtype)
        assert got.stride() == fake(aten.mm, x, y).stride()


@pytest.mark.parametrize("dtype", DTYPES)
def test_bmm_matches_torch(driver, hs, dtype):
    a, b = crandn(3, 5, 24, seed=9, dtype=dtype), crandn(3, 24, 4, seed=10, dtype=dtype)
    cases = [(a, b), (a.transpose(1, 2).contiguous().transpose(1, 2), b[:, :, 1:3]), (strided(a), b),
             (a[:, :0], b), (a[:, :, :0], b[:, :0]), (crandn(16, 2, 3, seed=11, dtype=dtype).permute(1, 0, 2).contiguous()
                                                       .permute(1, 0, 2), crandn(16, 3, 5, seed=12, dtype=dtype))]
    for x, y in cases:
        (got,) = driver.call(hs, "aten::bmm", [("self", x), ("mat2", y)])
        expected = aten.bmm(x, y)
        if expected.numel():
            exact = [_matmul_bound(x[i], y[i], dtype) for i in range(x.shape[0])]
            u, k = U[dtype], x.shape[-1]
            scale = torch.stack([s for _, s, _ in exact])
            check(got, expected, 2 * (k + 2) * u * scale + 1e-300)
            err = np.abs(got.numpy().astype(np.clongdouble) - np.stack([e for e, _, _ in exact])).astype(np.float64)
            assert (err <= u * np.abs(np.stack([e for e, _, _ in exact])).astype(np.float64)
                    + 3 * k * 2.0**-53 * scale.numpy() + 1e-300).all()
        else:
            check(got, expected)
        assert got.stride() == fake(aten.bmm, x, y).stride()


@pytest.mark.parametrize("dtype", DTYPES)
def test_addmm_matches_torch(driver, hs, dtype):
    """F.linear with a bias on complex tensors: beta * self (broadcast) + alpha * mat1 @ mat2."""
    a, b = crandn(5, 30, seed=30, dtype=dtype), crandn(30, 4, seed=31, dtype=dtype)
    biases = [crandn(4, seed=32, dtype=dtype), crandn(5, 1, seed=33, dtype=dtype), crandn(5, 4, seed=34, dtype=dtype).t()
              .contiguous().t(), torch.tensor(0.5 - 1j, dtype=dtype)]
    for bias in biases:
        for beta, alpha in ((None, None), (0.5, 2), (2, -0.25)):
            scalars = [] if beta is None else [("beta", beta), ("alpha", alpha)]
            (got,) = driver.call(hs, "aten::addmm", [("self", bias), ("mat1", a), ("mat2", b.t().contiguous().t()),
                                                     *scalars], defaulted_ints=(1, 1) if beta is None else ())
            beta_, alpha_ = (1, 1) if beta is None else (beta, alpha)
            expected = aten.addmm(bias, a, b, beta=beta_, alpha=alpha_)
            _, scale, k = _matmul_bound(a, b, dtype)
            bound = 2 * (k + 2) * U[dtype] * (abs(alpha_) * scale + abs(beta_) * bias.abs().double().expand(5, 4)) + 1e-300
            check(got, expected, bound)
            assert got.stride() == fake(aten.addmm, bias, a, b, beta=beta_, alpha=alpha_).stride()
    # beta 0: self ignored, NaN and all (torch's BLAS rule).
    nan = torch.full((4,), complex(float("nan"), 0), dtype=dtype)
    (got,) = driver.call(hs, "aten::addmm", [("self", nan), ("mat1", a), ("mat2", b), ("beta", 0), ("alpha", 1)])
    assert not torch.isnan(torch.view_as_real(got)).any()
    check(got, aten.addmm(nan, a, b, beta=0), 2 * 32 * U[dtype] * _matmul_bound(a, b, dtype)[1] + 1e-300)


def test_matmuls_refuse_what_torch_refuses(driver, hs):
    a, b = crandn(2, 3, seed=13), crandn(4, 2, seed=14)
    for target, op, args in [("aten::mm", aten.mm, (a, b)), ("aten::mm", aten.mm, (a, crandn(3, 2, dtype=torch.complex128))),
                             ("aten::mm", aten.mm, (crandn(3), crandn(3, 2))),
                             ("aten::bmm", aten.bmm, (crandn(2, 2, 3), crandn(3, 3, 2))),
                             ("aten::bmm", aten.bmm, (crandn(2, 2, 3), crandn(2, 3, 2, dtype=torch.complex128))),
                             ("aten::bmm", aten.bmm, (crandn(2, 3), crandn(2, 3, 2)))]:
        message = refused(driver, hs, target, [("self", args[0]), ("mat2", args[1])])
        assert torch_error(op, *args) in message, message
    for args in [(crandn(3), crandn(2, 3), crandn(3, 2)), (crandn(3, 4), crandn(2, 3), crandn(3, 2)),
                 (crandn(2), crandn(2, 3), crandn(3, 2, dtype=torch.complex128)), (crandn(2), crandn(3), crandn(3, 2)),
                 (crandn(1, 2, 2), crandn(2, 3), crandn(3, 2))]:
        message = refused(driver, hs, "aten::addmm", [("self", args[0]), ("mat1", args[1]), ("mat2", args[2]),
                                                      ("beta", 1), ("alpha", 1)])
        expected = torch_error(aten.addmm, *args)
        assert expected.split(": ", 1)[-1] in message, (message, expected)
    # Real matmuls never reach the proxy (mm_out / bmm_out); one that did is refused, not guessed.
    message = refused(driver, hs, "aten::mm", [("self", torch.randn(2, 3)), ("mat2", torch.randn(3, 2))])
    assert "complex64/128" in message


# ---- clone, constant_pad_nd, _conj, expand ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_clone_takes_torchs_memory_format_rule(driver, hs, dtype):
    x = crandn(2, 3, 4, 5, seed=15, dtype=dtype)
    inputs = [x, x.permute(0, 2, 3, 1), x.contiguous(memory_format=torch.channels_last), x[:, :, 1:3],
              x.transpose(1, 3)[:, ::2], x[:, :1].expand(2, 3, 4, 5), x[:1, :, :1], strided(x)]
    formats = [None, torch.preserve_format, torch.contiguous_format, torch.channels_last]
    for t in inputs:
        for memory_format in formats:
            arguments = [("self", t)] + ([] if memory_format is None else [("memory_format", memory_format)])
            (got,) = driver.call(hs, "aten::clone", arguments)
            kwargs = {} if memory_format is None else {"memory_format": memory_format}
            expected = aten.clone(t, **kwargs)
            check(got, expected)
            assert got.stride() == fake(aten.clone, t, **kwargs).stride()
            assert got.address != t.data_ptr()
    volume = crandn(2, 3, 2, 4, 5, seed=16, dtype=dtype)[:, :, :, ::2]
    (got,) = driver.call(hs, "aten::clone", [("self", volume), ("memory_format", torch.channels_last_3d)])
    check(got, aten.clone(volume, memory_format=torch.channels_last_3d))
    # Any dtype: a copy of the bytes (inductor copies real tensors itself; this is not a complex op).
    real = torch.arange(24, dtype=torch.int64).view(2, 3, 4).transpose(0, 2)
    (got,) = driver.call(hs, "aten::clone", [("self", real)])
    check(got, aten.clone(real))
    message = refused(driver, hs, "aten::clone", [("self", crandn(2, 3, 4)), ("memory_format", torch.channels_last)])
    assert torch_error(aten.clone, crandn(2, 3, 4), memory_format=torch.channels_last) in message


@pytest.mark.parametrize("dtype", DTYPES)
def test_constant_pad_nd_matches_torch(driver, hs, dtype):
    x = crandn(2, 3, 4, 5, seed=17, dtype=dtype)
    cases = [(x, [0, 1, 0, 4]), (x, [0, 1, 0, 4, 0, 0, 0, 0]), (x, [2, 3]), (x, [-1, 2, 1, -2]), (x, [-1, -2, 0, -1]),
             (x, [0, 0]), (x.transpose(1, 3), [1, 1, 2, 0]), (strided(x), [1, 0, 0, 2, 1, 1]),
             (x.contiguous(memory_format=torch.channels_last), [1, 2, 0, 1]),
             (x.contiguous(memory_format=torch.channels_last)[:, :, 1:], [-1, -1]), (x[0, 0, 0], [3, 1])]
    for t, pad in cases:
        for value in (None, 0, 0.5, -2):  # None: left out of the JSON, its default 0 in the int array
            arguments = [("self", t), ("pad", pad)] + ([] if value is None else [("value", value)])
            (got,) = driver.call(hs, "aten::constant_pad_nd", arguments, defaulted_ints=(0,) if value is None else ())
            expected = aten.constant_pad_nd(t, pad, 0 if value is None else value)
            check(got, expected)
            assert got.stride() == fake(aten.constant_pad_nd, t, pad, 0 if value is None else value).stride()


def test_constant_pad_nd_refuses_what_torch_refuses(driver, hs):
    x = crandn(2, 3, seed=18)
    for pad in ([1], [1, 1, 1, 1, 1, 1], [-2, -2]):
        message = refused(driver, hs, "aten::constant_pad_nd", [("self", x), ("pad", pad), ("value", 0.0)])
        assert torch_error(aten.constant_pad_nd, x, pad) in message, message
    assert "complex64/128" in refused(driver, hs, "aten::constant_pad_nd",
                                      [("self", torch.randn(2, 3)), ("pad", [1, 1]), ("value", 0.0)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_conj_reads_as_torchs_conjugate_view(driver, hs, dtype):
    base = crandn(4, 7, 6, seed=19, dtype=dtype)
    for t in (base, base[1:, 2:5].transpose(0, 2), strided(base)[:, 1:], base[:, :1].expand(4, 3, 6)):
        (got,) = driver.call(hs, "aten::_conj", [("self", t)])
        expected = aten._conj(t)
        assert expected.is_conj()
        check(got, expected)  # the conjugated values, at torch's view's strides
        assert got.offset == expected.storage_offset() - t.storage_offset() and got.address != t.data_ptr()
    message = refused(driver, hs, "aten::_conj", [("self", torch.randn(3))])
    assert "is not complex" in message


def test_conj_conjugates_the_whole_storage(rt, driver, hs):
    """Inductor takes _conj's result for an alias of self and may read it through another view of
    the buffer: every element of self's storage is conjugated there, not only self's, at self's
    offset in it."""
    from tests.cpu_shim_tensors import CODES

    base = crandn(5, 4, seed=20, dtype=torch.complex128)
    view = base[1:3, 1:3]
    handle = c_void_p()  # the view on base's storage, at its offset (as a buffer inductor sliced)
    sizes, strides = (c_int64 * 2)(*view.shape), (c_int64 * 2)(*view.stride())
    assert shim(rt, "aoti_torch_create_tensor_from_blob_v2")(
        c_void_p(base.data_ptr()), c_int64(2), sizes, strides, c_int64(view.storage_offset()),
        c_int32(CODES[base.dtype]), c_int32(0), c_int32(0), byref(handle), c_int32(0), None, c_int64(0)) == 0
    hs.keep.append(base)
    hs.made.append(handle)
    (got,) = driver.call(hs, "aten::_conj", [("self", handle)])
    assert got.offset == view.storage_offset()
    check(got, aten._conj(view))
    # The storage as 1-d: the runtime's storage ends where the view's last element is.
    whole = c_void_p()
    span = view.storage_offset() + 1 + sum((n - 1) * s for n, s in zip(view.shape, view.stride()))
    one, unit = (c_int64 * 1)(span), (c_int64 * 1)(1)
    assert shim(rt, "aoti_torch__reinterpret_tensor")(got.handle, c_int64(1), one, unit, c_int64(-got.offset),
                                                      byref(whole)) == 0, last_error(rt)  # offset: from the view's
    check(hs.tensor(c_void_p(whole.value)), base.flatten()[:span].conj().resolve_conj())


@pytest.mark.parametrize("dtype", DTYPES)
def test_expand_is_torchs_view(driver, hs, dtype):
    x = crandn(3, 1, 4, seed=21, dtype=dtype)
    for t, size in [(x, [2, 3, 5, 4]), (x, [-1, 6, -1]), (x[:, :, 1:3], [3, 2, 2]), (x[0, 0, :1], [2, 3, 5]),
                    (torch.tensor(1 + 1j, dtype=dtype), [2, 3]), (torch.tensor(1 + 1j, dtype=dtype), [1]), (x, [3, 1, 4])]:
        (got,) = driver.call(hs, "aten::expand", [("self", t), ("size", size)])
        expected = t.expand(size)
        check(got, expected)
        assert got.address == expected.data_ptr() and got.offset == 0
    message = refused(driver, hs, "aten::expand", [("self", x), ("size", [3, 2, 5])])
    assert torch_error(x.expand, [3, 2, 5]) in message
    assert torch_error(x.expand, [-1, 3, 1, 4]) in refused(driver, hs, "aten::expand", [("self", x), ("size", [-1, 3, 1, 4])])


# ---- the FNO's output spectrum: full, copy, slice_scatter ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_full_matches_torch(driver, hs, dtype):
    for size, value in (([2, 8, 16, 9], 0), ([3, 1], 2.5), ([0, 4], -1), ([], 1.0)):
        arguments = [("size", size), ("fill_value", value), ("dtype", dtype), ("pin_memory", False)]
        (got,) = driver.call(hs, "aten::full", arguments)
        check(got, torch.full(size, value, dtype=dtype))
    message = refused(driver, hs, "aten::full", [("size", [2, -3]), ("fill_value", 1.0), ("dtype", dtype)])
    assert torch_error(torch.full, [2, -3], 1.0, dtype=dtype) in message
    assert "complex64/128" in refused(driver, hs, "aten::full", [("size", [2]), ("fill_value", 1.0),
                                                                 ("dtype", torch.float32)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_copy_matches_torch(driver, hs, dtype):
    x = crandn(3, 4, 5, seed=35, dtype=dtype)
    for self_ in (x, x.transpose(0, 2), x[:, 1:3], strided(x)):
        a, b, c = self_.shape
        sources = [crandn(a, b, c, seed=36, dtype=dtype), crandn(c, seed=37, dtype=dtype), crandn(b, 1, seed=38),
                   crandn(b, a, c, seed=39, dtype=torch.complex128).transpose(0, 1),
                   torch.randn(b, c, generator=gen(40)), torch.randn(b, c, generator=gen(41), dtype=torch.float64)]
        for src in sources:
            (got,) = driver.call(hs, "aten::copy", [("self", self_), ("src", src), ("non_blocking", False)])
            expected = aten.copy(self_, src)
            check(got, expected)  # one rounding of a complex128 or float64 src: torch's, exactly
            meta = fake(aten.copy, self_, src)  # torch 2.13: clone_preserve_strides(self), offset kept
            assert got.stride() == meta.stride() and got.offset == meta.storage_offset() - self_.storage_offset()
    message = refused(driver, hs, "aten::copy", [("self", x), ("src", crandn(4, 4))])
    assert torch_error(aten.copy, x, crandn(4, 4)) in message, message


@pytest.mark.parametrize("dtype", DTYPES)
def test_slice_scatter_matches_torch(driver, hs, dtype):
    out = crandn(2, 8, 16, 9, seed=42, dtype=dtype)
    cases = [(out, crandn(2, 8, 4, 9, seed=43, dtype=dtype), 2, 0, 4, 1),  # FNO: the low modes of dim -2
             (out, crandn(2, 8, 4, 9, seed=44, dtype=dtype), 2, -4, 2**63 - 1, 1),  # and the high ones
             (out, crandn(2, 8, 16, 3, seed=45, dtype=dtype), 3, 0, 3, 1),
             (out, crandn(2, 8, 16, 3, seed=46), 3, None, None, 4), (out[:, 2:5], crandn(2, 3, 8, 9, seed=47), 2, 1, None, 2),
             (out.transpose(1, 3), crandn(2, 9, 16, 2, seed=48, dtype=torch.complex128), 3, 3, 5, 1),
             (crandn(9, seed=49, dtype=dtype).expand(4, 9), crandn(2, 9, seed=50, dtype=dtype), 0, 1, 3, 1)]
    for self_, src, dim, start, end, step in cases:
        arguments = [("self", self_), ("src", src), ("dim", dim), ("start", start), ("end", end), ("step", step)]
        (got,) = driver.call(hs, "aten::slice_scatter", arguments)
        expected = aten.slice_scatter(self_, src, dim, start, end, step)
        check(got, expected)
        meta = fake(aten.slice_scatter, self_, src, dim, start, end, step)
        assert got.stride() == meta.stride() and got.offset == meta.storage_offset() - self_.storage_offset()
        assert got.address != self_.data_ptr()
    message = refused(driver, hs, "aten::slice_scatter", [("self", out), ("src", crandn(2, 8, 2, 9)), ("dim", 2),
                                                          ("start", 0), ("end", 3), ("step", 1)])
    assert torch_error(aten.slice_scatter, out, crandn(2, 8, 2, 9), 2, 0, 3) in message


@pytest.mark.parametrize("dtype", DTYPES)
def test_select_is_torchs_view(driver, hs, dtype):
    x = crandn(3, 5, 4, seed=51, dtype=dtype)
    for t in (x, x.transpose(0, 2), strided(x)[:, 1:]):
        for dim, index in ((0, 0), (0, -1), (1, 2), (-1, 2), (2, -3)):
            (got,) = driver.call(hs, "aten::select.int", [("self", t), ("dim", dim), ("index", index)])
            expected = t.select(dim, index)
            check(got, expected)
            assert got.address == expected.data_ptr() and got.offset == expected.storage_offset() - t.storage_offset()
    for t, dim, index in ((x, 1, 5), (x, 0, -4), (torch.tensor(1j, dtype=dtype), 0, 0)):
        message = refused(driver, hs, "aten::select.int", [("self", t), ("dim", dim), ("index", index)])
        assert torch_error(t.select, dim, index) in message, message


# ---- sums and means ----

def _sum_bound(t: torch.Tensor, dims, keepdim, mean):
    """sum |x| over the reduced dims (divided by n for a mean) and the count n: the tolerances'."""
    import math

    magnitude = t.abs().double()
    dims_all = dims if dims else list(range(t.dim()))
    scale = magnitude.sum(dims_all, keepdim=keepdim) if t.dim() else magnitude
    n = math.prod(t.shape[d] for d in dims_all) if t.dim() else 1
    if mean and n:
        scale = scale / n
    return scale, max(n, 1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sum_and_mean_match_torch(driver, hs, dtype):
    x = crandn(3, 40, 5, seed=22, dtype=dtype)
    cases = [([1], False), ([0, 2], True), ([-1], True), ([], False), (None, False), ([1, 0], False)]
    for t in (x, x.transpose(0, 2), strided(x)[:, 3:]):
        for dims, keepdim in cases:
            for target, op, mean in (("aten::sum.dim_IntList", aten.sum.dim_IntList, False),
                                     ("aten::mean.dim", aten.mean.dim, True)):
                (got,) = driver.call(hs, target, [("self", t), ("dim", dims), ("keepdim", keepdim)])
                expected = op(t, dims, keepdim)
                scale, n = _sum_bound(t, dims, keepdim, mean)
                check(got, expected, 2 * (n + 1) * U[dtype] * scale + 1e-300)
                assert got.stride() == fake(op, t, dims, keepdim).stride()
    for target, op in (("aten::sum", aten.sum.default), ("aten::mean", aten.mean.default)):
        (got,) = driver.call(hs, target, [("self", x)])
        scale, n = _sum_bound(x, None, False, target == "aten::mean")
        check(got, op(x), 2 * (n + 1) * U[dtype] * scale)


def test_sum_dtypes_and_edges_match_torch(driver, hs):
    x = crandn(4, 6, seed=23)
    # dtype= widens complex64 to complex128, or takes the real part (as torch casts before it sums).
    for dtype in (torch.complex128, torch.float32, torch.float64):
        (got,) = driver.call(hs, "aten::sum.dim_IntList", [("self", x), ("dim", [1]), ("keepdim", False), ("dtype", dtype)])
        check(got, aten.sum.dim_IntList(x, [1], False, dtype=dtype), 1e-5)
        (got,) = driver.call(hs, "aten::sum", [("self", x), ("dtype", dtype)])
        check(got, aten.sum.default(x, dtype=dtype), 1e-5)
    empty = crandn(0, 3)
    (got,) = driver.call(hs, "aten::sum.dim_IntList", [("self", empty), ("dim", [0]), ("keepdim", False)])
    check(got, aten.sum.dim_IntList(empty, [0]))
    (got,) = driver.call(hs, "aten::mean.dim", [("self", empty), ("dim", [0]), ("keepdim", True)])
    assert got.shape == (1, 3) and torch.isnan(torch.view_as_real(got)).all()
    scalar = torch.tensor(2 - 3j, dtype=torch.complex64)
    (got,) = driver.call(hs, "aten::sum.dim_IntList", [("self", scalar), ("dim", [0]), ("keepdim", True)])
    check(got, aten.sum.dim_IntList(scalar, [0], True))
    # Cancellation: the compensated sum keeps what a float accumulation loses (exact here: 1e-3 + 1e-3j).
    big = torch.tensor([1e8 + 1e8j, 1e-3 + 1e-3j, -1e8 - 1e8j], dtype=torch.complex128)
    (got,) = driver.call(hs, "aten::sum", [("self", big)])
    assert complex(got.item()) == pytest.approx(1e-3 + 1e-3j, rel=1e-9)
    inf = torch.tensor([float("inf") + 0j, 1 + 1j], dtype=torch.complex64)
    (got,) = driver.call(hs, "aten::sum", [("self", inf)])
    check(got, aten.sum.default(inf))


def test_sums_refuse_what_torch_refuses(driver, hs):
    x = crandn(2, 3, seed=24)
    for dims in ([1, -1], [2]):
        message = refused(driver, hs, "aten::sum.dim_IntList", [("self", x), ("dim", dims), ("keepdim", False)])
        expected = torch_error(aten.sum.dim_IntList, x, dims)
        assert expected in message or ("out of range" in expected and "out of range" in message), message
    assert "complex64/128" in refused(driver, hs, "aten::sum", [("self", torch.randn(3))])
