"""torch tensors as runtime tensor handles and back, for the native-op tests that call the runtime's
CPU shims through ctypes with torch's exact C-shim signatures (tests/integration/test_cpu_*_ops.py;
their `rt` and `hs` fixtures: tests/integration/conftest.py)."""

from __future__ import annotations

import ctypes
from ctypes import POINTER, byref, c_int32, c_int64, c_void_p

import pytest

from tests.aoti_helpers import shim

torch = pytest.importorskip("torch")
CODES = {torch.float32: 6, torch.float64: 7, torch.bfloat16: 15, torch.float16: 5, torch.int64: 4, torch.int32: 3,
         torch.int16: 2, torch.int8: 1, torch.uint8: 0, torch.bool: 11, torch.complex64: 9, torch.complex128: 10,
         torch.float8_e5m2: 23, torch.float8_e4m3fn: 24, torch.float8_e5m2fnuz: 25, torch.float8_e4m3fnuz: 26}
DTYPES = {code: dtype for dtype, code in CODES.items()}


def last_error(rt) -> str:
    return rt.lib.shimgen_runtime_last_error().decode()


class Handles:
    """torch tensors as runtime handles over the same memory (any dtype, any strides), and back."""

    def __init__(self, rt):
        self.rt, self.keep, self.made = rt, [], []

    def of(self, t) -> c_void_p:
        self.keep.append(t)
        out = c_void_p()
        sizes, strides = (c_int64 * max(t.dim(), 1))(*t.shape), (c_int64 * max(t.dim(), 1))(*t.stride())
        code = shim(self.rt, "aoti_torch_create_tensor_from_blob_v2")(
            c_void_p(t.data_ptr() if t.numel() else 0), c_int64(t.dim()), sizes, strides,
            c_int64(0), c_int32(CODES[t.dtype]), c_int32(0), c_int32(0), byref(out), c_int32(0), None, c_int64(0))
        assert code == 0, last_error(self.rt)
        self.made.append(out)
        return out

    def tensor(self, handle) -> torch.Tensor:
        """A torch copy of a runtime tensor, with its strides (so layouts can be compared)."""
        self.made.append(handle)
        get = lambda name, kind: (kind(), shim(self.rt, name))  # noqa: E731
        dim, f = get("aoti_torch_get_dim", c_int64)
        assert f(handle, byref(dim)) == 0
        sizes, f_sizes = POINTER(c_int64)(), shim(self.rt, "aoti_torch_get_sizes")
        strides, f_strides = POINTER(c_int64)(), shim(self.rt, "aoti_torch_get_strides")
        dtype, data = c_int32(), c_void_p()
        assert f_sizes(handle, byref(sizes)) == 0 and f_strides(handle, byref(strides)) == 0
        assert shim(self.rt, "aoti_torch_get_dtype")(handle, byref(dtype)) == 0
        assert shim(self.rt, "aoti_torch_get_data_ptr")(handle, byref(data)) == 0
        shape, stride = [sizes[i] for i in range(dim.value)], [strides[i] for i in range(dim.value)]
        kind = DTYPES[dtype.value]
        span = 1 + sum((s - 1) * st for s, st in zip(shape, stride)) if all(shape) else 0
        flat = torch.empty(span, dtype=kind)
        if span:
            ctypes.memmove(flat.data_ptr(), data.value, span * flat.element_size())
        return torch.as_strided(flat, shape, stride)

    def close(self):
        for handle in self.made:
            self.rt.delete(handle)


def strided(t: torch.Tensor) -> torch.Tensor:
    """A non-contiguous view with t's values: transposed storage, every other element."""
    wide = torch.empty(*t.shape[:-1], t.shape[-1] * 2, dtype=t.dtype)
    wide[..., ::2] = t
    return wide[..., ::2]


def assert_same(got: torch.Tensor, expected: torch.Tensor, atol: float = 0.0, strides: bool = True):
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if strides:
        assert got.stride() == expected.stride()
    assert torch.allclose(got.double(), expected.double(), atol=atol, rtol=0, equal_nan=True), \
        f"max diff {(got.double() - expected.double()).abs().max()}"


def got_(hs, handle: c_void_p) -> torch.Tensor:
    """The runtime tensor in ``handle`` as torch (freed with the test's handles); the ctypes slot may
    be reused for the next call."""
    return hs.tensor(c_void_p(handle.value))


def gen(seed: int = 0) -> torch.Generator:
    """A seeded torch generator: each test's data is fixed."""
    return torch.Generator().manual_seed(seed)


def ints(values) -> tuple:
    """An int64 array and its length, as the C shims take an ``int[]`` argument."""
    values = list(values)
    return (c_int64 * max(len(values), 1))(*values), c_int64(len(values))


def torch_error(fn, *args, **kwargs) -> str:
    """The first line of what torch raises for ``fn(*args, **kwargs)`` (RuntimeError, NotImplementedError, ...)."""
    with pytest.raises(Exception) as caught:
        fn(*args, **kwargs)
    return str(caught.value).splitlines()[0]
