"""The CPU ops the second round of the ring imports (tests/arch_ring.py: FNet, the fft, mode_counts
models; src/ops/cpu/): FFTs (_fft_c2c, _fft_r2c), complex tensors (view_as_real, abs, mul_Tensor,
polar, and the permute/squeeze_dim views inductor falls back to for them, copy_ from real to
complex), advanced indexing (index_Tensor) and mode, called through ctypes with torch's exact C-shim
signatures and compared with torch eager (values) and torch's meta functions (the strides the
generated code assumes). The proxy-executor halves (_fft_c2r, complex) run end to end in the ring's
fft model."""

from __future__ import annotations

from ctypes import POINTER, byref, c_int32, c_int64, c_void_p

import pytest

from tests.aoti_helpers import INVALID, UNSUPPORTED, shim
from tests.cpu_shim_tensors import gen, ints, last_error, strided

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow
aten = torch.ops.aten


def crandn(*shape, seed=0, dtype=torch.complex64) -> torch.Tensor:
    return torch.randn(*shape, 2, generator=gen(seed), dtype=torch.float64).to(dtype.to_real()).contiguous() \
        .view(dtype).squeeze(-1)


def fake(op, x, *args):
    """op's result under FakeTensorMode: the layout export and inductor see (and the generated code
    assumes); the meta device's C++ kernels can differ (e.g. _fft_r2c over dims [0, 1])."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        return op(mode.from_tensor(x), *(mode.from_tensor(a) if isinstance(a, torch.Tensor) else a for a in args))


def check(got: torch.Tensor, expected: torch.Tensor, meta: torch.Tensor | None = None, atol: float = 1e-5):
    """Values as eager's, shape and dtype; strides as torch's fake tensors promise."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if meta is not None:
        assert got.stride() == meta.stride(), (got.stride(), meta.stride())
    as_real = (lambda t: torch.view_as_real(t).double()) if got.is_complex() else (lambda t: t.double())
    assert torch.allclose(as_real(got), as_real(expected), atol=atol, rtol=0), \
        f"max diff {(as_real(got) - as_real(expected)).abs().max()}"


def call(rt, hs, name, *args) -> torch.Tensor:
    out = c_void_p()
    assert shim(rt, name)(*args, byref(out)) == 0, last_error(rt)
    return hs.tensor(c_void_p(out.value))


# ---- FFTs ----

@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("dims, norm, forward", [([1], 0, 1), ([0, 1], 2, 0), ([2, 1], 1, 1), ([2], 0, 0)])
def test_fft_c2c_matches_torch(rt, hs, dtype, dims, norm, forward):
    for x in (crandn(3, 8, 6, seed=1, dtype=dtype), crandn(3, 6, 8, seed=2, dtype=dtype).transpose(1, 2),
              strided(crandn(3, 8, 6, seed=3, dtype=dtype))):
        got = call(rt, hs, "aoti_torch_cpu__fft_c2c", hs.of(x), *ints(dims), c_int64(norm), c_int32(forward))
        check(got, aten._fft_c2c(x, dims, norm, bool(forward)), fake(aten._fft_c2c, x, dims, norm, bool(forward)),
              atol=1e-4 if dtype == torch.complex64 else 1e-10)


@pytest.mark.parametrize("dims, norm, onesided", [([1], 0, 1), ([0, 1], 1, 1), ([1], 2, 0), ([2, 0], 0, 1)])
def test_fft_r2c_matches_torch(rt, hs, dims, norm, onesided):
    for x in (torch.randn(4, 7, 6, generator=gen(4)), torch.randn(4, 6, 7, generator=gen(5)).transpose(1, 2),
              strided(torch.randn(4, 7, 6, generator=gen(6)))):
        got = call(rt, hs, "aoti_torch_cpu__fft_r2c", hs.of(x), *ints(dims), c_int64(norm), c_int32(onesided))
        check(got, aten._fft_r2c(x, dims, norm, bool(onesided)), fake(aten._fft_r2c, x, dims, norm, bool(onesided)),
              atol=1e-4)


def test_fft_refuses_the_wrong_dtypes(rt, hs):
    out = c_void_p()
    real, cplx = torch.randn(4), crandn(4)
    assert shim(rt, "aoti_torch_cpu__fft_c2c")(hs.of(real), *ints([0]), c_int64(0), c_int32(1), byref(out)) == UNSUPPORTED
    assert shim(rt, "aoti_torch_cpu__fft_r2c")(hs.of(cplx), *ints([0]), c_int64(0), c_int32(1), byref(out)) == UNSUPPORTED
    assert shim(rt, "aoti_torch_cpu__fft_c2c")(hs.of(cplx), *ints([1]), c_int64(0), c_int32(1), byref(out)) == INVALID
    assert out.value is None


# ---- complex tensors ----

def test_view_as_real_shares_memory_with_torch_layout(rt, hs):
    for x in (crandn(3, 4, seed=7), crandn(4, 3, seed=8).t(), crandn(3, 8, seed=9)[:, 1::2]):
        got = call(rt, hs, "aoti_torch_cpu_view_as_real", hs.of(x))
        check(got, torch.view_as_real(x), torch.view_as_real(x), atol=0)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_abs_mul_polar_match_torch(rt, hs, dtype):
    a, b = crandn(3, 5, seed=10, dtype=dtype), crandn(5, seed=11, dtype=dtype)
    real = torch.randn(3, 1, generator=gen(12), dtype=dtype.to_real())
    tol = 1e-6 if dtype == torch.complex64 else 1e-12
    check(call(rt, hs, "aoti_torch_cpu_abs", hs.of(a)), a.abs(), fake(aten.abs, a), atol=tol)
    check(call(rt, hs, "aoti_torch_cpu_abs", hs.of(a.t())), a.t().abs(), fake(aten.abs, a.t()), atol=tol)
    check(call(rt, hs, "aoti_torch_cpu_mul_Tensor", hs.of(a), hs.of(b)), a * b, fake(lambda u, v: u * v, a, b), atol=tol)
    check(call(rt, hs, "aoti_torch_cpu_mul_Tensor", hs.of(real), hs.of(a)), real * a, atol=tol)
    mag, ang = torch.rand(4, 6, generator=gen(13), dtype=dtype.to_real()), torch.randn(6, generator=gen(14), dtype=dtype.to_real())
    check(call(rt, hs, "aoti_torch_cpu_polar", hs.of(mag), hs.of(ang)), torch.polar(mag, ang.expand(4, 6)), atol=tol)


def test_permute_and_squeeze_are_views(rt, hs):
    x = crandn(2, 1, 3, 4, seed=15)
    got = call(rt, hs, "aoti_torch_cpu_permute", hs.of(x), *ints([3, 0, 2, 1]))
    check(got, x.permute(3, 0, 2, 1), x.permute(3, 0, 2, 1), atol=0)
    got = call(rt, hs, "aoti_torch_cpu_squeeze_dim", hs.of(x), c_int64(1))
    check(got, x.squeeze(1), x.squeeze(1), atol=0)


def test_copy_promotes_real_to_complex(rt, hs):
    src = torch.randn(3, 4, generator=gen(16))
    for dst in (torch.zeros(3, 4, dtype=torch.complex64), torch.zeros(4, 3, dtype=torch.complex128).t()):
        assert shim(rt, "aoti_torch_copy_")(hs.of(dst), hs.of(src), c_int32(0)) == 0, last_error(rt)
        check(dst, src.to(dst.dtype), atol=0)
    row = torch.randn(4, generator=gen(17))  # broadcast along dim 0
    dst = torch.zeros(3, 4, dtype=torch.complex64)
    assert shim(rt, "aoti_torch_copy_")(hs.of(dst), hs.of(row), c_int32(0)) == 0, last_error(rt)
    check(dst, row.expand(3, 4).to(torch.complex64), atol=0)
    ints64 = torch.ones(3, 4, dtype=torch.int64)
    assert shim(rt, "aoti_torch_copy_")(hs.of(dst), hs.of(ints64), c_int32(0)) == UNSUPPORTED


# ---- advanced indexing, mode ----

def _index(rt, hs, x, indices):
    handles = [None if i is None else hs.of(i) for i in indices]
    slots = [None if h is None else c_void_p(h.value) for h in handles]
    array = (POINTER(c_void_p) * len(slots))(*[None if s is None else POINTER(c_void_p)(s) for s in slots])
    out = c_void_p()
    code = shim(rt, "aoti_torch_cpu_index_Tensor")(hs.of(x), array, c_int64(len(slots)), byref(out))
    return code, out


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16, torch.complex64])
def test_index_tensor_matches_torch(rt, hs, dtype):
    x = torch.randn(4, 5, 6, generator=gen(18)).to(dtype) if dtype != torch.complex64 else crandn(4, 5, 6, seed=18)
    mask = torch.randn(4, 5, generator=gen(19)) > 0
    i, j = torch.tensor([3, -1, 0]), torch.tensor([[1], [4]])
    for indices in ([mask], [None, torch.tensor([4, 0, -2])], [i, None, torch.tensor([5, 0, 1])],
                    [None, j, torch.tensor([2, 3, 0])], [torch.randn(4, 5, 6, generator=gen(20)) > 0.5],
                    [strided(i.view(1, 3)).view(3)]):
        code, out = _index(rt, hs, x, indices)
        assert code == 0, last_error(rt)
        expected = aten.index.Tensor(x, indices)
        check(hs.tensor(c_void_p(out.value)), expected, atol=0)
    code, out = _index(rt, hs, x, [torch.tensor([4])])
    assert code == INVALID and "out of bounds" in last_error(rt) and out.value is None


def test_index_tensor_takes_torchs_layout(rt, hs):
    """The result's strides are the ones torch's fake tensors give, which inductor compiles against
    (and the CUDA op, host-staged through this one, inherits): channels last kept, a permuted self's
    order, indexed dims in front when not adjacent; control: a contiguous self gives contiguous."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    image = torch.randn(2, 3, 4, 5, generator=gen(30)).to(memory_format=torch.channels_last)
    cases = [(image, [torch.tensor([1, 0])]), (image, [None, torch.tensor([2, 0])]),
             (image, [None, None, torch.tensor([3, 1, 0])]),
             (torch.randn(6, 5, 4, generator=gen(31)).permute(1, 0, 2), [None, torch.tensor([5, 0, -6])]),
             (torch.randn(6, 5, 4, generator=gen(32)).permute(2, 1, 0), [torch.tensor([1, 3]), None, torch.tensor([0, 2])]),
             (torch.randn(3, 4, generator=gen(33)), [torch.tensor([2, 0])])]
    for x, indices in cases:
        code, out = _index(rt, hs, x, indices)
        assert code == 0, last_error(rt)
        with FakeTensorMode() as mode:
            meta = aten.index.Tensor(mode.from_tensor(x), [None if t is None else mode.from_tensor(t) for t in indices])
        got = hs.tensor(c_void_p(out.value))
        check(got, aten.index.Tensor(x, indices), meta, atol=0)
    assert got.is_contiguous() and not hs.tensor(_index(rt, hs, image, [torch.tensor([1, 0])])[1]).is_contiguous()


@pytest.mark.parametrize("dtype", [torch.int64, torch.float32, torch.int32, torch.bool])
@pytest.mark.parametrize("keepdim", [0, 1])
@pytest.mark.parametrize("width", [9, 40, 200])
def test_mode_matches_torch(rt, hs, dtype, keepdim, width):
    # Lines over 16 elements: torch's unstable sort decides the index, and the runtime replays it.
    x = torch.randint(0, 4, (6, width), generator=gen(21)).to(dtype)
    if dtype == torch.float32:
        x[0, ::3] = float("nan")
    for view, dim in ((x, 1), (x, 0), (x.t(), 1), (strided(x), -1)):
        values, indices = c_void_p(), c_void_p()
        assert shim(rt, "aoti_torch_cpu_mode")(hs.of(view), c_int64(dim), c_int32(keepdim), byref(values),
                                               byref(indices)) == 0, last_error(rt)
        ref = torch.mode(view, dim, keepdim=bool(keepdim))
        got_v, got_i = hs.tensor(c_void_p(values.value)), hs.tensor(c_void_p(indices.value))
        check(got_v, ref.values, atol=0)
        check(got_i, ref.indices, atol=0)


def test_view_as_complex_and_scalar_to_tensor_match_torch(rt, hs):
    for x in (torch.randn(3, 4, 2, generator=gen(22)), torch.randn(3, 8, 2, generator=gen(23))[:, ::2]):
        got = call(rt, hs, "aoti_torch_cpu_view_as_complex", hs.of(x))
        check(got, torch.view_as_complex(x), torch.view_as_complex(x), atol=0)
    out = c_void_p()
    assert shim(rt, "aoti_torch_cpu_view_as_complex")(hs.of(torch.randn(3, 3)), byref(out)) == INVALID
    from ctypes import c_double

    got = call(rt, hs, "aoti_torch_scalar_to_tensor_float64", c_double(0.25))
    check(got, torch.scalar_tensor(0.25, dtype=torch.float64), torch.scalar_tensor(0.25, dtype=torch.float64), atol=0)
    got = call(rt, hs, "aoti_torch_scalar_to_tensor_int64", c_int64(-7))
    check(got, torch.scalar_tensor(-7, dtype=torch.int64), atol=0)
