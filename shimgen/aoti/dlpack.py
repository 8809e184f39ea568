"""DLPack in and out of the runtime's tensors, through ctypes: no copy, on the tensor's own device.

An input is any object with ``__dlpack__``/``__dlpack_device__`` (numpy, torch, CuPy, JAX): its
capsule's ``DLTensor`` is wrapped by ``aoti_torch_create_tensor_from_blob_v2`` over the same memory,
and the capsule is kept alive for as long as the handle is used. The producer is asked for the data
on the caller's stream (``__dlpack__(stream=...)``, CUDA only), so its pending work is ordered
before the model's.

An output handle is handed out as a ``DLPackTensor``: ``torch.from_dlpack(out)`` or
``np.from_dlpack(out)`` views the runtime's memory, and the handle is deleted when the last
consumer lets go (the DLPack deleter). The data is ready on the stream the model ran on; a consumer
asking for another stream gets the run's stream synchronised first.

The structs follow dlpack.h (legacy, unversioned ``DLManagedTensor``, capsule name ``dltensor``).
"""

from __future__ import annotations

import contextlib
import ctypes
import threading
from collections.abc import Callable
from ctypes import POINTER, Structure, c_int32, c_int64, c_uint8, c_uint16, c_uint64, c_void_p
from dataclasses import dataclass
from typing import Any

from shimgen.errors import InputError

# DLDeviceType values (dlpack.h).
KDL_CPU, KDL_CUDA, KDL_CUDA_HOST = 1, 2, 3
# DLDataTypeCode values (dlpack.h).
KDL_INT, KDL_UINT, KDL_FLOAT, KDL_BFLOAT, KDL_COMPLEX, KDL_BOOL = 0, 1, 2, 4, 5, 6
# DLPack 1.1's float8 codes (what torch's __dlpack__ writes for its float8 dtypes).
KDL_FLOAT8_E4M3FN, KDL_FLOAT8_E4M3FNUZ, KDL_FLOAT8_E5M2, KDL_FLOAT8_E5M2FNUZ, KDL_FLOAT8_E8M0FNU = 10, 11, 12, 13, 14

DTYPES: dict[tuple[int, int], str] = {
    (KDL_FLOAT, 16): "float16", (KDL_FLOAT, 32): "float32", (KDL_FLOAT, 64): "float64",
    (KDL_BFLOAT, 16): "bfloat16",
    (KDL_INT, 8): "int8", (KDL_INT, 16): "int16", (KDL_INT, 32): "int32", (KDL_INT, 64): "int64",
    (KDL_UINT, 8): "uint8", (KDL_UINT, 16): "uint16", (KDL_UINT, 32): "uint32", (KDL_UINT, 64): "uint64",
    (KDL_BOOL, 8): "bool",
    (KDL_COMPLEX, 64): "complex64", (KDL_COMPLEX, 128): "complex128",
    (KDL_FLOAT8_E4M3FN, 8): "float8_e4m3fn", (KDL_FLOAT8_E4M3FNUZ, 8): "float8_e4m3fnuz",
    (KDL_FLOAT8_E5M2, 8): "float8_e5m2", (KDL_FLOAT8_E5M2FNUZ, 8): "float8_e5m2fnuz",
    (KDL_FLOAT8_E8M0FNU, 8): "float8_e8m0fnu",
}
"""(DLPack type code, bits) -> the dtype name the runtime's ``dtype_codes`` use; lanes are always 1."""
BY_NAME = {name: key for key, name in DTYPES.items()}


class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32), ("dtype", DLDataType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLManagedTensor(Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", _Deleter)]

_CAPSULE = b"dltensor"
_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype, _api.PyCapsule_GetPointer.argtypes = c_void_p, [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype, _api.PyCapsule_IsValid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
_Destructor = ctypes.CFUNCTYPE(None, c_void_p)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [c_void_p, ctypes.c_char_p, _Destructor]
_RawIsValid = ctypes.PYFUNCTYPE(ctypes.c_int, c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_RawGetPointer = ctypes.PYFUNCTYPE(c_void_p, c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))


@dataclass
class Borrowed:
    """The view of one DLPack input: where its data is and what it holds; ``keep`` holds the
    capsule (and so the producer's memory) alive while the runtime's handle is used."""

    data: int
    shape: list[int]
    strides: list[int]
    dtype: str
    device_type: int
    device_id: int
    keep: Any


def is_dlpack(value: Any) -> bool:
    return hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__")


def stream_pointer(stream: Any) -> int | None:
    """The cudaStream_t of ``stream``: None, an int, or a stream object (the CUDA stream protocol's
    ``__cuda_stream__``, torch's ``cuda_stream``, CuPy's ``ptr``)."""
    if stream is None or isinstance(stream, int):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if callable(protocol):
        pair = protocol()
        if isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[1], int):
            return pair[1]
    for name in ("cuda_stream", "ptr"):
        value = getattr(stream, name, None)
        if isinstance(value, int):
            return value
    raise InputError(f"stream: {type(stream).__name__} is neither a cudaStream_t (int) nor a CUDA stream object "
                     "(__cuda_stream__, cuda_stream or ptr)")


def borrow(value: Any, stream: int | None = None) -> Borrowed:
    """Read ``value``'s DLTensor through its capsule. ``stream``: the CUDA stream the data will be
    used on (passed to the producer for CUDA data; CPU producers take none)."""
    device_type, _ = value.__dlpack_device__()
    try:
        capsule = value.__dlpack__(stream=stream) if device_type == KDL_CUDA and stream is not None \
            else value.__dlpack__()
    except (BufferError, TypeError, ValueError, RuntimeError) as exc:
        raise InputError(f"{type(value).__name__}: cannot export through DLPack ({exc})") from None
    if not _api.PyCapsule_IsValid(capsule, _CAPSULE):
        raise InputError(f"{type(value).__name__}: __dlpack__ returned no 'dltensor' capsule")
    managed = ctypes.cast(_api.PyCapsule_GetPointer(capsule, _CAPSULE), POINTER(DLManagedTensor)).contents
    tensor = managed.dl_tensor
    key = (tensor.dtype.code, tensor.dtype.bits)
    if key not in DTYPES or tensor.dtype.lanes != 1:
        raise InputError(f"{type(value).__name__}: DLPack dtype (code {tensor.dtype.code}, {tensor.dtype.bits} bits, "
                         f"{tensor.dtype.lanes} lanes) has no tensor dtype in this runtime")
    if tensor.device.device_type not in (KDL_CPU, KDL_CUDA, KDL_CUDA_HOST):
        raise InputError(f"{type(value).__name__}: DLPack device type {tensor.device.device_type} is neither "
                         "CPU nor CUDA")
    shape = [tensor.shape[i] for i in range(tensor.ndim)]
    if tensor.strides:
        strides = [tensor.strides[i] for i in range(tensor.ndim)]
    else:  # NULL strides: compact row-major
        strides, step = [0] * tensor.ndim, 1
        for i in reversed(range(tensor.ndim)):
            strides[i], step = step, step * max(shape[i], 1)
    host = tensor.device.device_type in (KDL_CPU, KDL_CUDA_HOST)
    return Borrowed((tensor.data or 0) + tensor.byte_offset, shape, strides, DTYPES[key],
                    KDL_CPU if host else KDL_CUDA, tensor.device.device_id, (value, capsule))


# ---- out: a runtime tensor handle as a DLPack producer ----------------------------------------------

_LIVE: dict[int, tuple[Any, ...]] = {}
"""manager_ctx -> what one exported capsule keeps alive (its struct, arrays and the producer)."""
_LOCK = threading.Lock()
_NEXT = [1]


@_Deleter
def _delete(managed: Any) -> None:
    with _LOCK:
        _LIVE.pop(managed.contents.manager_ctx or 0, None)


@_Destructor
def _capsule_destructor(capsule: int) -> None:
    # An unconsumed capsule still carries its name: the tensor was never taken, so free it here.
    if _RawIsValid(capsule, _CAPSULE):
        pointer = _RawGetPointer(capsule, _CAPSULE)
        if pointer:
            _delete(ctypes.cast(pointer, POINTER(DLManagedTensor)))


class DLPackTensor:
    """A runtime tensor handle offered through DLPack (``torch.from_dlpack``, ``np.from_dlpack``).

    Owns the handle: it is deleted when this object and every consumer's view are gone.
    ``stream_owner``: the caller's stream object, kept alive as long as this output: the runtime frees
    the tensor on the stream it was allocated on, and CuPy destroys a stream with its last reference
    (a stream destroyed before its outputs crashed the process on the H200)."""

    def __init__(self, handle: int, *, data: int, shape: list[int], strides: list[int], dtype: str,
                 device: tuple[int, int], stream: int | None, free: Callable[[int], None],
                 synchronize: Callable[[int | None], None] | None = None, stream_owner: Any = None) -> None:
        if dtype not in BY_NAME:
            raise InputError(f"dtype {dtype} cannot be exported through DLPack")
        self.handle, self.data_ptr, self.shape, self.strides = handle, data, shape, strides
        self.dtype, self.device, self.stream = dtype, device, stream
        self._free, self._synchronize, self.stream_owner = free, synchronize, stream_owner

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.device

    def __dlpack__(self, stream: int | None = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        if copy:
            raise BufferError("shimgen's DLPack export never copies (copy=True asked)")
        if dl_device is not None and tuple(dl_device) != self.device:
            raise BufferError(f"the tensor lives on DLPack device {self.device}, not {tuple(dl_device)}")
        if self.device[0] == KDL_CUDA and stream not in (None, -1, self.stream) and self._synchronize is not None:
            self._synchronize(self.stream)  # ready on the consumer's stream too
        ndim = len(self.shape)
        shape, strides = (c_int64 * max(ndim, 1))(*self.shape), (c_int64 * max(ndim, 1))(*self.strides)
        code, bits = BY_NAME[self.dtype]
        managed = DLManagedTensor()
        managed.dl_tensor = DLTensor(self.data_ptr, DLDevice(*self.device), ndim, DLDataType(code, bits, 1),
                                     ctypes.cast(shape, POINTER(c_int64)), ctypes.cast(strides, POINTER(c_int64)), 0)
        with _LOCK:
            ctx = _NEXT[0]
            _NEXT[0] += 1
            _LIVE[ctx] = (managed, shape, strides, self)
        managed.manager_ctx = ctx
        managed.deleter = _delete
        return _api.PyCapsule_New(ctypes.addressof(managed), _CAPSULE, _capsule_destructor)

    def __del__(self) -> None:
        if self.handle:
            handle, self.handle = self.handle, 0
            with contextlib.suppress(Exception):  # interpreter shutdown may have torn ctypes down
                self._free(handle)
