"""ctypes binding of a built shim runtime: call its prefixed shims and its C API from Python.

Used by the runtime's tests and by anything that drives the runtime from Python. Signatures mirror
runtime/include/shimgen_runtime/*.h.
"""

from __future__ import annotations

import ctypes
from ctypes import POINTER, c_bool, c_char_p, c_int32, c_int64, c_size_t, c_uint8, c_uint32, c_uint64, c_void_p
from pathlib import Path

_i64p = POINTER(c_int64)

# name -> (restype, argtypes); shims are looked up under the prefix.
SHIMS: dict[str, tuple[object, list[object]]] = {
    "aoti_torch_delete_tensor_object": (c_int32, [c_void_p]),
    "aoti_torch_get_data_ptr": (c_int32, [c_void_p, POINTER(c_void_p)]),
    "aoti_torch_get_storage_size": (c_int32, [c_void_p, _i64p]),
    "aoti_torch_get_storage_numel": (c_int32, [c_void_p, _i64p]),
    "aoti_torch_get_dim": (c_int32, [c_void_p, _i64p]),
    "aoti_torch_get_numel": (c_int32, [c_void_p, _i64p]),
    "aoti_torch_get_sizes": (c_int32, [c_void_p, POINTER(_i64p)]),
    "aoti_torch_get_strides": (c_int32, [c_void_p, POINTER(_i64p)]),
    "aoti_torch_get_size": (c_int32, [c_void_p, c_int64, _i64p]),
    "aoti_torch_get_stride": (c_int32, [c_void_p, c_int64, _i64p]),
    "aoti_torch_get_dtype": (c_int32, [c_void_p, POINTER(c_int32)]),
    "aoti_torch_get_device_type": (c_int32, [c_void_p, POINTER(c_int32)]),
    "aoti_torch_get_device_index": (c_int32, [c_void_p, POINTER(c_int32)]),
    "aoti_torch_get_storage_offset": (c_int32, [c_void_p, _i64p]),
    "aoti_torch_is_contiguous": (c_int32, [c_void_p, POINTER(c_bool)]),
    "aoti_torch_new_tensor_handle": (c_int32, [c_void_p, POINTER(c_void_p)]),
    "aoti_torch__reinterpret_tensor": (c_int32, [c_void_p, c_int64, _i64p, _i64p, c_int64, POINTER(c_void_p)]),
    "aoti_torch_empty_strided": (c_int32, [c_int64, _i64p, _i64p, c_int32, c_int32, c_int32, POINTER(c_void_p)]),
    "aoti_torch_empty_strided_pinned": (c_int32, [c_int64, _i64p, _i64p, c_int32, c_int32, c_int32, POINTER(c_void_p)]),
    "aoti_torch_create_tensor_from_blob": (
        c_int32, [c_void_p, c_int64, _i64p, _i64p, c_int64, c_int32, c_int32, c_int32, POINTER(c_void_p)]),
    "aoti_torch_create_tensor_from_blob_v2": (
        c_int32, [c_void_p, c_int64, _i64p, _i64p, c_int64, c_int32, c_int32, c_int32, POINTER(c_void_p), c_int32,
                  POINTER(c_uint8), c_int64]),
    "aoti_torch_clone": (c_int32, [c_void_p, POINTER(c_void_p)]),
    "aoti_torch_clone_preserve_strides": (c_int32, [c_void_p, POINTER(c_void_p)]),
    "aoti_torch_copy_": (c_int32, [c_void_p, c_void_p, c_int32]),
    "aoti_torch_grad_mode_is_enabled": (c_bool, []),
    "aoti_torch_grad_mode_set_enabled": (None, [c_bool]),
    "aoti_torch_dtype_element_size": (c_size_t, [c_int32]),
    "aoti_torch_warn": (None, [c_char_p, c_char_p, c_uint32, c_char_p]),
    "aoti_torch_create_cuda_guard": (c_int32, [c_int32, POINTER(c_void_p)]),
    "aoti_torch_delete_cuda_guard": (c_int32, [c_void_p]),
    "aoti_torch_cuda_guard_set_index": (c_int32, [c_void_p, c_int32]),
    "aoti_torch_create_cuda_stream_guard": (c_int32, [c_void_p, c_int32, POINTER(c_void_p)]),
    "aoti_torch_delete_cuda_stream_guard": (c_int32, [c_void_p]),
    "aoti_torch_get_current_cuda_stream": (c_int32, [c_int32, POINTER(c_void_p)]),
}

API: dict[str, tuple[object, list[object]]] = {
    "shimgen_runtime_caller_stream_guard_create": (c_int32, [c_void_p, POINTER(c_void_p)]),
    "shimgen_runtime_caller_stream_guard_delete": (c_int32, [c_void_p]),
    "shimgen_runtime_get_caller_stream": (c_int32, [POINTER(c_int32), POINTER(c_void_p)]),
    "shimgen_runtime_last_error": (c_char_p, []),
    "shimgen_runtime_clear_last_error": (None, []),
    "shimgen_runtime_shim_call_count": (c_uint64, []),
    "shimgen_runtime_has_cuda": (c_int32, []),
}


def int64_array(values) -> ctypes.Array:
    values = list(values)
    return (c_int64 * max(len(values), 1))(*values)


class Runtime:
    """A loaded runtime. ``rt.shim("aoti_torch_get_dim")`` is the prefixed function."""

    def __init__(self, path: Path, prefix: str, mode: int = ctypes.RTLD_LOCAL) -> None:
        self.path = Path(path)
        self.prefix = prefix
        self.lib = ctypes.CDLL(str(path), mode=mode)
        for name, (restype, argtypes) in API.items():
            function = getattr(self.lib, name)
            function.restype, function.argtypes = restype, argtypes

    def shim(self, name: str):
        function = getattr(self.lib, self.prefix + name)
        if name in SHIMS:
            function.restype, function.argtypes = SHIMS[name]
        elif name.startswith(("aoti_torch_dtype_", "aoti_torch_device_type_", "aoti_torch_layout_",
                              "aoti_torch_memory_format_")):
            function.restype, function.argtypes = c_int32, []
        return function

    def api(self, name: str):
        return getattr(self.lib, name)

    def last_error(self) -> str:
        return (self.lib.shimgen_runtime_last_error() or b"").decode()

    def calls(self) -> int:
        return int(self.lib.shimgen_runtime_shim_call_count())

    # ---- conveniences: raise on error ----
    def check(self, code: int, what: str) -> None:
        if code != 0:
            raise RuntimeError(f"{what} failed with {code}: {self.last_error()}")

    def empty(self, sizes, strides=None, *, dtype=6, device_type=0, device_index=0, pinned=False) -> int:
        handle = c_void_p()
        name = "aoti_torch_empty_strided_pinned" if pinned else "aoti_torch_empty_strided"
        code = self.shim(name)(len(sizes), int64_array(sizes), None if strides is None else int64_array(strides),
                               dtype, device_type, device_index, ctypes.byref(handle))
        self.check(code, name)
        return handle.value

    def delete(self, handle: int) -> None:
        self.check(self.shim("aoti_torch_delete_tensor_object")(handle), "delete_tensor_object")

    def data_ptr(self, handle: int) -> int:
        out = c_void_p()
        self.check(self.shim("aoti_torch_get_data_ptr")(handle, ctypes.byref(out)), "get_data_ptr")
        return out.value or 0

    def sizes(self, handle: int) -> list[int]:
        return self._shape(handle, "aoti_torch_get_sizes")

    def strides(self, handle: int) -> list[int]:
        return self._shape(handle, "aoti_torch_get_strides")

    def scalar(self, handle: int, getter: str, ctype=c_int64) -> int:
        out = ctype()
        self.check(self.shim(getter)(handle, ctypes.byref(out)), getter)
        return out.value

    def _shape(self, handle: int, getter: str) -> list[int]:
        dim = self.scalar(handle, "aoti_torch_get_dim")
        out = _i64p()
        self.check(self.shim(getter)(handle, ctypes.byref(out)), getter)
        return [out[i] for i in range(dim)]

    def copy_(self, dst: int, src: int, non_blocking: bool = False) -> None:
        self.check(self.shim("aoti_torch_copy_")(dst, src, int(non_blocking)), "copy_")

    def caller_stream_guard(self, stream: int | None) -> int:
        guard = c_void_p()
        self.check(self.api("shimgen_runtime_caller_stream_guard_create")(stream, ctypes.byref(guard)),
                   "caller_stream_guard_create")
        return guard.value

    def end_caller_stream_guard(self, guard: int) -> None:
        self.check(self.api("shimgen_runtime_caller_stream_guard_delete")(guard), "caller_stream_guard_delete")

    def current_cuda_stream(self, device: int) -> int:
        out = c_void_p()
        self.check(self.shim("aoti_torch_get_current_cuda_stream")(device, ctypes.byref(out)), "get_current_cuda_stream")
        return out.value or 0


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
