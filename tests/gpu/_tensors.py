"""numpy <-> runtime tensors for the GPU tests (through the runtime's own shims, no torch)."""

from __future__ import annotations

import ctypes
from ctypes import byref, c_double, c_int32, c_int64, c_void_p

import numpy as np

from shimgen.aoti.capi import int64_array

CPU, CUDA = 0, 1
CODES = {np.dtype(np.float32): 6, np.dtype(np.float16): 5, np.dtype(np.int64): 4, np.dtype(np.complex128): 10,
         np.dtype(np.bool_): 11}
DTYPES = {code: dtype for dtype, code in CODES.items()}


def to_device(rt, array: np.ndarray, strides=None) -> int:
    """A CUDA tensor with ``array``'s values and the given element strides (default contiguous)."""
    array = np.array(array, order="C", copy=True)  # (ascontiguousarray would make a 0-d array 1-d)
    code = CODES[array.dtype]
    host = rt.empty(list(array.shape), dtype=code)
    if array.nbytes:
        ctypes.memmove(rt.data_ptr(host), array.ctypes.data, array.nbytes)
    device = rt.empty(list(array.shape), strides, dtype=code, device_type=CUDA)
    rt.copy_(device, host)
    rt.delete(host)
    return device


def to_host(rt, handle: int) -> np.ndarray:
    sizes = rt.sizes(handle)
    dtype = DTYPES[rt.scalar(handle, "aoti_torch_get_dtype", c_int32)]
    host = rt.empty(sizes, dtype=CODES[dtype])
    rt.copy_(host, handle)
    out = np.empty(sizes, dtype=dtype)
    if out.nbytes:
        ctypes.memmove(out.ctypes.data, rt.data_ptr(host), out.nbytes)
    rt.delete(host)
    return out


def view(rt, handle: int, sizes, strides, offset: int = 0) -> int:
    """aoti_torch__reinterpret_tensor: a strided view of ``handle``'s storage."""
    fn = rt.lib[rt.prefix + "aoti_torch__reinterpret_tensor"]
    fn.restype = c_int32
    fn.argtypes = [c_void_p, c_int64, ctypes.POINTER(c_int64), ctypes.POINTER(c_int64), c_int64, ctypes.POINTER(c_void_p)]
    out = c_void_p()
    rt.check(fn(handle, len(sizes), int64_array(sizes), int64_array(strides), offset, byref(out)), "_reinterpret_tensor")
    return out.value


def op(rt, name: str, *argtypes):
    fn = rt.lib[rt.prefix + name]
    fn.restype = c_int32
    fn.argtypes = list(argtypes)
    return fn


H = c_void_p
HP = ctypes.POINTER(c_void_p)
I64P = ctypes.POINTER(c_int64)
DP = ctypes.POINTER(c_double)


def run_case_driver(script, rt) -> dict[str, dict]:
    """Runs a GPU case driver (``script RUNTIME PREFIX``, cuda_fallback_cases.run_cases) in a child
    process; its rows by case name. Asserts the driver printed at least one row."""
    import json
    import subprocess
    import sys

    completed = subprocess.run([sys.executable, str(script), str(rt.path), rt.prefix],
                               capture_output=True, text=True, timeout=600, check=False)
    rows = {}
    for line in completed.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            rows[row["case"]] = row
    assert rows, f"the case runner printed nothing (exit {completed.returncode}):\n{completed.stderr[-3000:]}"
    return rows
