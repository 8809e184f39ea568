"""The one ctypes binding of a built shim runtime: its prefixed shims, its C API and its model loader.

Signatures mirror shimgen/runtime/include/shimgen_runtime/*.h; tests/unit/test_capi.py reads those headers
and fails when an entry here disagrees with its declaration, or when the C API names here, in the
headers and in shimgen/runtime/shimgen.toml's ``exports`` differ. The runner (shimgen.aoti.runner), the
runtime's tests and the benchmarks all load the library through ``Runtime``.
"""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Iterable, Iterator
from ctypes import (
    POINTER,
    c_bool,
    c_char_p,
    c_double,
    c_int32,
    c_int64,
    c_size_t,
    c_uint8,
    c_uint32,
    c_uint64,
    c_void_p,
)
from pathlib import Path
from typing import Any

from shimgen.errors import InputError, ShimgenError

Signature = tuple[Any, list[Any]]
"""(restype, argtypes) as ctypes wants them."""

_i64p = POINTER(c_int64)
_handle = c_void_p  # AtenTensorHandle and the other opaque handles
_out = POINTER(c_void_p)  # AtenTensorHandle* and friends

# Shims, by plain name; the runtime exports them under the prefix.
SHIMS: dict[str, Signature] = {
    "aoti_torch_delete_tensor_object": (c_int32, [_handle]),
    "aoti_torch_get_data_ptr": (c_int32, [_handle, POINTER(c_void_p)]),
    "aoti_torch_get_storage_size": (c_int32, [_handle, _i64p]),
    "aoti_torch_get_storage_numel": (c_int32, [_handle, _i64p]),
    "aoti_torch_get_dim": (c_int32, [_handle, _i64p]),
    "aoti_torch_get_numel": (c_int32, [_handle, _i64p]),
    "aoti_torch_get_sizes": (c_int32, [_handle, POINTER(_i64p)]),
    "aoti_torch_get_strides": (c_int32, [_handle, POINTER(_i64p)]),
    "aoti_torch_get_size": (c_int32, [_handle, c_int64, _i64p]),
    "aoti_torch_get_stride": (c_int32, [_handle, c_int64, _i64p]),
    "aoti_torch_get_dtype": (c_int32, [_handle, POINTER(c_int32)]),
    "aoti_torch_get_device_type": (c_int32, [_handle, POINTER(c_int32)]),
    "aoti_torch_get_device_index": (c_int32, [_handle, POINTER(c_int32)]),
    "aoti_torch_get_storage_offset": (c_int32, [_handle, _i64p]),
    "aoti_torch_is_contiguous": (c_int32, [_handle, POINTER(c_bool)]),
    "aoti_torch_new_tensor_handle": (c_int32, [_handle, _out]),
    "aoti_torch__reinterpret_tensor": (c_int32, [_handle, c_int64, _i64p, _i64p, c_int64, _out]),
    "aoti_torch_empty_strided": (c_int32, [c_int64, _i64p, _i64p, c_int32, c_int32, c_int32, _out]),
    "aoti_torch_empty_strided_pinned": (c_int32, [c_int64, _i64p, _i64p, c_int32, c_int32, c_int32, _out]),
    "aoti_torch_create_tensor_from_blob": (
        c_int32,
        [c_void_p, c_int64, _i64p, _i64p, c_int64, c_int32, c_int32, c_int32, _out],
    ),
    "aoti_torch_create_tensor_from_blob_v2": (
        c_int32,
        [c_void_p, c_int64, _i64p, _i64p, c_int64, c_int32, c_int32, c_int32, _out, c_int32, POINTER(c_uint8), c_int64],
    ),
    "aoti_torch_clone": (c_int32, [_handle, _out]),
    "aoti_torch_clone_preserve_strides": (c_int32, [_handle, _out]),
    "aoti_torch_copy_": (c_int32, [_handle, _handle, c_int32]),
    "aoti_torch_grad_mode_is_enabled": (c_bool, []),
    "aoti_torch_grad_mode_set_enabled": (None, [c_bool]),
    "aoti_torch_dtype_element_size": (c_size_t, [c_int32]),
    "aoti_torch_warn": (None, [c_char_p, c_char_p, c_uint32, c_char_p]),
    "aoti_torch_create_cuda_guard": (c_int32, [c_int32, _out]),
    "aoti_torch_delete_cuda_guard": (c_int32, [_handle]),
    "aoti_torch_cuda_guard_set_index": (c_int32, [_handle, c_int32]),
    "aoti_torch_create_cuda_stream_guard": (c_int32, [c_void_p, c_int32, _out]),
    "aoti_torch_delete_cuda_stream_guard": (c_int32, [_handle]),
    "aoti_torch_get_current_cuda_stream": (c_int32, [c_int32, POINTER(c_void_p)]),
    "aoti_torch_cpu_mm_out": (c_int32, [_handle, _handle, _handle]),
    "aoti_torch_cpu_addmm_out": (c_int32, [_handle, _handle, _handle, _handle, c_double, c_double]),
    "aoti_torch_cpu_bmm_out": (c_int32, [_handle, _handle, _handle]),
}

# Shims named like these take nothing and return a code (``int32_t aoti_torch_dtype_float32(void)``).
CODE_SHIM_PREFIXES = ("aoti_torch_dtype_", "aoti_torch_device_type_", "aoti_torch_layout_", "aoti_torch_memory_format_")
_CODE: Signature = (c_int32, [])

# The runtime's own C API (runtime.h) and its model loader (model_loader.h), exported unprefixed.
API: dict[str, Signature] = {
    "shimgen_runtime_caller_stream_guard_create": (c_int32, [c_void_p, _out]),
    "shimgen_runtime_caller_stream_guard_delete": (c_int32, [_handle]),
    "shimgen_runtime_get_caller_stream": (c_int32, [POINTER(c_int32), POINTER(c_void_p)]),
    "shimgen_runtime_last_error": (c_char_p, []),
    "shimgen_runtime_clear_last_error": (None, []),
    "shimgen_runtime_shim_call_count": (c_uint64, []),
    "shimgen_runtime_has_cuda": (c_int32, []),
    "shimgen_model_open": (c_int32, [c_char_p, c_char_p, c_char_p, c_size_t, _out]),
    "shimgen_model_close": (c_int32, [_handle]),
    "shimgen_model_num_inputs": (c_int32, [_handle, POINTER(c_size_t)]),
    "shimgen_model_num_outputs": (c_int32, [_handle, POINTER(c_size_t)]),
    "shimgen_model_so_path": (c_char_p, [_handle]),
    "shimgen_model_run": (c_int32, [_handle, POINTER(_handle), c_size_t, POINTER(_handle), c_size_t, c_void_p]),
    "shimgen_model_last_error": (c_char_p, []),
}

# numpy dtype name -> the shim that returns PyTorch's code for it (asked of the runtime, not hard-coded).
_DTYPE_SHIMS = {
    "float32": "aoti_torch_dtype_float32",
    "float64": "aoti_torch_dtype_float64",
    "float16": "aoti_torch_dtype_float16",
    "int8": "aoti_torch_dtype_int8",
    "int16": "aoti_torch_dtype_int16",
    "int32": "aoti_torch_dtype_int32",
    "int64": "aoti_torch_dtype_int64",
    "uint8": "aoti_torch_dtype_uint8",
    "uint16": "aoti_torch_dtype_uint16",
    "uint32": "aoti_torch_dtype_uint32",
    "uint64": "aoti_torch_dtype_uint64",
    "bool": "aoti_torch_dtype_bool",
    "complex64": "aoti_torch_dtype_complex64",
    "complex128": "aoti_torch_dtype_complex128",
}
ML_DTYPES = ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu")
"""Runtime dtypes numpy lacks: ml_dtypes provides each under torch's name, one element per byte (or two
for bfloat16). torch's float4_e2m1fn_x2 packs two values a byte and ml_dtypes' float4 does not: left out."""
_DTYPE_SHIMS.update({name: f"aoti_torch_dtype_{name}" for name in ML_DTYPES})


def numpy_dtype(name: str) -> Any:
    """The numpy dtype of a runtime dtype name; bfloat16 and the float8 formats come from ml_dtypes."""
    import numpy as np

    if name in ML_DTYPES:
        try:
            import ml_dtypes
        except ImportError:
            raise InputError(f"{name} arrays need ml_dtypes: python -m pip install ml_dtypes") from None
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


class ModelError(ShimgenError):
    """The runtime or a model reported a failure while running."""


def int64_array(values: Iterable[int]) -> ctypes.Array[c_int64]:
    items = list(values)
    return (c_int64 * max(len(items), 1))(*items)


def _signature(name: str) -> Signature | None:
    if name in SHIMS:
        return SHIMS[name]
    if name.startswith(CODE_SHIM_PREFIXES):
        return _CODE
    return None


class Runtime:
    """A loaded runtime. ``rt.shim("aoti_torch_get_dim")`` is the prefixed function, with its C
    signature; ``rt.lib.shimgen_model_open`` and the rest of ``API`` are bound on load."""

    def __init__(self, path: Path, prefix: str, mode: int = ctypes.RTLD_GLOBAL) -> None:
        # RTLD_GLOBAL by default: the models' prefixed shim imports must resolve against this
        # library. (The loader also promotes itself to global, so a C caller need not know this.)
        # Absolute: given 'x.so' (what Path('./x.so') prints as), dlopen searches the library path.
        self.path = Path(path).absolute()
        self.prefix = prefix
        try:
            self.lib = ctypes.CDLL(str(self.path), mode=mode)
        except OSError as exc:
            raise InputError(f"{self.path}: cannot load the runtime: {exc}") from None
        for name, (restype, argtypes) in API.items():
            try:
                function = getattr(self.lib, name)
            except AttributeError:
                raise InputError(f"{self.path}: not shimgen's runtime (no {name})") from None
            function.restype, function.argtypes = restype, argtypes
        self._shims: dict[str, Any] = {}
        self.cpu = self.code("aoti_torch_device_type_cpu")
        self.cuda = self.code("aoti_torch_device_type_cuda")
        self.dtype_codes: dict[str, int] = {}
        for dtype, shim in _DTYPE_SHIMS.items():
            with contextlib.suppress(InputError):
                self.dtype_codes[dtype] = self.code(shim)
        self.dtype_names = {code: dtype for dtype, code in self.dtype_codes.items()}

    # ---- raw functions ----

    def shim(self, name: str) -> Any:
        """The prefixed shim ``name`` (its plain name), bound to its C signature."""
        function = self._shims.get(name)
        if function is None:
            signature = _signature(name)
            if signature is None:
                raise InputError(f"no ctypes signature for {name}; add it to SHIMS in shimgen/aoti/capi.py")
            try:
                function = getattr(self.lib, self.prefix + name)
            except AttributeError:
                raise InputError(f"{self.path}: the runtime does not export {self.prefix + name}") from None
            function.restype, function.argtypes = signature
            self._shims[name] = function
        return function

    def api(self, name: str) -> Any:
        """A function of the runtime's unprefixed C API (``API``)."""
        if name not in API:
            raise InputError(f"{name} is not part of the runtime's C API")
        return getattr(self.lib, name)

    def code(self, name: str) -> int:
        """The value of a code shim: ``code("aoti_torch_dtype_float32")``."""
        return int(self.shim(name)())

    def last_error(self) -> str:
        return (self.lib.shimgen_runtime_last_error() or b"").decode(errors="replace")

    def shim_call_count(self) -> int:
        """Shim calls this runtime has served (all threads): proof that a model used it."""
        return int(self.lib.shimgen_runtime_shim_call_count())

    calls = shim_call_count

    def check(self, code: int, what: str) -> None:
        if code != 0:
            raise ModelError(f"{what} failed (code {code}): {self.last_error()}")

    # ---- tensors ----

    def empty(
        self,
        sizes: list[int],
        strides: list[int] | None = None,
        *,
        dtype: int = 6,
        device_type: int = 0,
        device_index: int = 0,
        pinned: bool = False,
    ) -> int:
        """A new tensor (aoti_torch_empty_strided[_pinned]); dtype 6 is float32."""
        handle = c_void_p()
        name = "aoti_torch_empty_strided_pinned" if pinned else "aoti_torch_empty_strided"
        strides_array = None if strides is None else int64_array(strides)
        code = self.shim(name)(len(sizes), int64_array(sizes), strides_array, dtype, device_type, device_index,
                               ctypes.byref(handle))
        self.check(code, name)
        return int(handle.value or 0)

    def delete(self, handle: Any) -> None:
        self.check(self.shim("aoti_torch_delete_tensor_object")(handle), "aoti_torch_delete_tensor_object")

    def data_ptr(self, handle: Any) -> int:
        out = c_void_p()
        self.check(self.shim("aoti_torch_get_data_ptr")(handle, ctypes.byref(out)), "aoti_torch_get_data_ptr")
        return out.value or 0

    def scalar(self, handle: Any, getter: str, ctype: Any = c_int64) -> Any:
        """What a one-value getter (``aoti_torch_get_dim``, ``..._get_dtype`` with c_int32) returns."""
        out = ctype()
        self.check(self.shim(getter)(handle, ctypes.byref(out)), getter)
        return out.value

    def sizes(self, handle: Any) -> list[int]:
        return self._shape(handle, "aoti_torch_get_sizes")

    def strides(self, handle: Any) -> list[int]:
        return self._shape(handle, "aoti_torch_get_strides")

    def _shape(self, handle: Any, getter: str) -> list[int]:
        dim = self.scalar(handle, "aoti_torch_get_dim")
        out = _i64p()
        self.check(self.shim(getter)(handle, ctypes.byref(out)), getter)
        return [out[i] for i in range(dim)]

    def copy_(self, dst: Any, src: Any, non_blocking: bool = False) -> None:
        self.check(self.shim("aoti_torch_copy_")(dst, src, int(non_blocking)), "aoti_torch_copy_")

    def copy_to(self, handle: Any, device_type: int, device_index: int = 0) -> int:
        """A new contiguous tensor on the given device holding ``handle``'s values (aoti_torch_copy_)."""
        shape = self.sizes(handle)
        strides, step = [0] * len(shape), 1
        for i in reversed(range(len(shape))):
            strides[i], step = step, step * max(shape[i], 1)
        dtype = self.scalar(handle, "aoti_torch_get_dtype", c_int32)
        out = self.empty(shape, strides, dtype=dtype, device_type=device_type, device_index=device_index)
        try:
            self.copy_(out, handle)
        except ModelError:
            self.delete(out)
            raise
        return out

    # ---- numpy ----

    def tensor_from_array(self, array: Any) -> c_void_p:
        """A new handle over ``array``'s memory (borrowed: keep the array alive while it is used)."""
        code = self.dtype_codes.get(array.dtype.name)
        if code is None:
            raise InputError(f"dtype {array.dtype} has no tensor dtype in this runtime")
        if not array.dtype.isnative:
            # The handle borrows the bytes as they are: a '>f4' array read as float32 is garbage.
            raise InputError(f"dtype {array.dtype.str} is not in this machine's byte order; convert it first "
                             "(array.astype(array.dtype.newbyteorder('=')))")
        strides = [s // array.itemsize for s in array.strides]
        out = c_void_p()
        data = array.ctypes.data if array.size else None
        name = "aoti_torch_create_tensor_from_blob_v2"
        self.check(self.shim(name)(data, array.ndim, int64_array(array.shape), int64_array(strides), 0, code,
                                   self.cpu, 0, ctypes.byref(out), 0, None, 0), name)
        return out

    def array_from_tensor(self, handle: Any) -> Any:
        """A numpy copy of a tensor (any strides; device tensors are copied to the host first); the
        handle stays the caller's."""
        import numpy as np

        if self.scalar(handle, "aoti_torch_get_device_type", c_int32) != self.cpu:
            host = self.copy_to(handle, self.cpu)
            try:
                return self.array_from_tensor(host)
            finally:
                self.delete(host)
        dtype = self.scalar(handle, "aoti_torch_get_dtype", c_int32)
        name = self.dtype_names.get(dtype)
        if name is None:
            raise ModelError(f"output dtype code {dtype} has no numpy equivalent")
        np_dtype = numpy_dtype(name)
        shape, elem = tuple(self.sizes(handle)), tuple(self.strides(handle))
        if self.scalar(handle, "aoti_torch_get_numel") == 0:
            return np.empty(shape, dtype=np_dtype)
        if any(s < 0 for s in elem):
            raise ModelError("negative strides are not supported")
        span = 1 + sum((n - 1) * s for n, s in zip(shape, elem))  # elements the view reaches
        buffer = (ctypes.c_char * (span * np_dtype.itemsize)).from_address(self.data_ptr(handle))
        # as_strided goes through __array_interface__, whose typestr numpy cannot read back for
        # ml_dtypes' float8 ('<f1'): stride their bytes as unsigned integers of the same width.
        raw = np.dtype(f"u{np_dtype.itemsize}") if name in ML_DTYPES else np_dtype
        base = np.frombuffer(memoryview(buffer), dtype=raw, count=span)
        view = np.lib.stride_tricks.as_strided(base, shape=shape, strides=[s * np_dtype.itemsize for s in elem])
        return np.array(view, copy=True, order="C").view(np_dtype)

    # ---- DLPack (shimgen.aoti.dlpack) ----

    def tensor_from_dlpack(self, value: Any, stream: int | None = None) -> tuple[c_void_p, Any]:
        """A new handle over a DLPack-capable array's memory, on its own device (no copy), and
        what keeps that memory alive: hold the second value as long as the handle is used."""
        from shimgen.aoti.dlpack import KDL_CPU, borrow

        view = borrow(value, stream)
        code = self.dtype_codes.get(view.dtype)
        if code is None:
            raise InputError(f"dtype {view.dtype} has no tensor dtype in this runtime")
        device = self.cpu if view.device_type == KDL_CPU else self.cuda
        out = c_void_p()
        name = "aoti_torch_create_tensor_from_blob_v2"
        self.check(self.shim(name)(view.data or None, len(view.shape), int64_array(view.shape),
                                   int64_array(view.strides), 0, code, device, view.device_id, ctypes.byref(out),
                                   0, None, 0), name)
        return out, view

    def to_dlpack(self, handle: Any, stream: Any = None) -> Any:
        """``handle`` as a DLPack producer (``torch.from_dlpack(x)``, ``np.from_dlpack(x)``), no
        copy; the handle becomes the returned object's, deleted when no consumer holds it.
        ``stream``: a cudaStream_t or a stream object, which the producer then keeps alive."""
        from shimgen.aoti.dlpack import KDL_CPU, KDL_CUDA, DLPackTensor, stream_pointer

        dtype = self.scalar(handle, "aoti_torch_get_dtype", c_int32)
        name = self.dtype_names.get(dtype)
        if name is None:
            raise ModelError(f"output dtype code {dtype} has no DLPack equivalent")
        on_cpu = self.scalar(handle, "aoti_torch_get_device_type", c_int32) == self.cpu
        index = 0 if on_cpu else self.scalar(handle, "aoti_torch_get_device_index", c_int32)
        return DLPackTensor(int(getattr(handle, "value", handle) or 0), data=self.data_ptr(handle),
                            shape=self.sizes(handle), strides=self.strides(handle), dtype=name,
                            device=(KDL_CPU, 0) if on_cpu else (KDL_CUDA, index), stream=stream_pointer(stream),
                            free=self.delete, synchronize=_cuda_stream_synchronize,
                            stream_owner=None if isinstance(stream, int) else stream)

    # ---- streams ----

    def caller_stream_guard(self, stream: int | None) -> int:
        """Selects ``stream`` for this thread until ``end_caller_stream_guard``; None selects NULL."""
        guard = c_void_p()
        name = "shimgen_runtime_caller_stream_guard_create"
        self.check(self.lib.shimgen_runtime_caller_stream_guard_create(stream, ctypes.byref(guard)), name)
        return int(guard.value or 0)

    def end_caller_stream_guard(self, guard: int) -> None:
        name = "shimgen_runtime_caller_stream_guard_delete"
        self.check(self.lib.shimgen_runtime_caller_stream_guard_delete(guard), name)

    @contextlib.contextmanager
    def caller_stream(self, stream: int | None) -> Iterator[None]:
        """Selects ``stream`` (a cudaStream_t; None: no selection) for this thread's runtime work."""
        if stream is None:
            yield
            return
        guard = self.caller_stream_guard(stream)
        try:
            yield
        finally:
            self.lib.shimgen_runtime_caller_stream_guard_delete(guard)

    def current_cuda_stream(self, device: int) -> int:
        out = c_void_p()
        name = "aoti_torch_get_current_cuda_stream"
        self.check(self.shim(name)(device, ctypes.byref(out)), name)
        return out.value or 0


def _cuda_stream_synchronize(stream: int | None) -> None:
    """Wait for ``stream`` (None: the legacy default stream) through the CUDA runtime the process has
    loaded (the CUDA runtime library, or a library exporting it)."""
    for name in (None, "libcudart.so", "libcudart.so.13", "libcudart.so.12"):
        try:
            function = ctypes.CDLL(name).cudaStreamSynchronize
        except (OSError, AttributeError):
            continue
        function.restype, function.argtypes = c_int32, [c_void_p]
        if function(stream) != 0:
            raise ModelError(f"cudaStreamSynchronize({stream}) failed")
        return
    raise ModelError("no CUDA runtime in this process to synchronise the model's stream with the consumer's")


def cuda_device_count() -> int:
    """Devices the CUDA driver reports (0 without a driver or GPU); initialises no CUDA runtime."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if driver.cuInit(0) != 0 or driver.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value
