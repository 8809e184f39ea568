"""Runtime tensor handles onto torch's own memory (no copies), for the benchmarks that run torch and
shimgen's runtime in one process."""

from __future__ import annotations

from ctypes import POINTER, byref, c_int32, c_int64, c_void_p
from typing import Any

from shimgen.aoti.capi import Runtime, int64_array

# c10::ScalarType codes of the torch dtypes the benchmarks pass.
CODES = {"torch.int32": 3, "torch.int64": 4, "torch.float16": 5, "torch.float32": 6, "torch.bfloat16": 15}


def wrap(rt: Runtime, tensor: Any) -> int:
    """aoti_torch_create_tensor_from_blob over ``tensor`` (keep it alive while the handle lives)."""
    blob = rt.lib[rt.prefix + "aoti_torch_create_tensor_from_blob"]
    blob.restype, blob.argtypes = c_int32, [c_void_p, c_int64, POINTER(c_int64), POINTER(c_int64), c_int64, c_int32,
                                            c_int32, c_int32, POINTER(c_void_p)]
    out = c_void_p()
    base = tensor.data_ptr() - tensor.storage_offset() * tensor.element_size()
    code = blob(base, tensor.dim(), int64_array(tensor.shape), int64_array(tensor.stride()), tensor.storage_offset(),
                CODES[str(tensor.dtype)], 1 if tensor.is_cuda else 0, tensor.device.index or 0, byref(out))
    rt.check(code, "aoti_torch_create_tensor_from_blob")
    return int(out.value or 0)


def copy_into(rt: Runtime, tensor: Any, handle: int) -> None:
    """torch ``tensor`` (same shape and dtype) <- runtime tensor ``handle``, then a device sync."""
    import torch

    target = wrap(rt, tensor)
    rt.check(rt.shim("aoti_torch_copy_")(target, handle, 0), "aoti_torch_copy_")
    torch.cuda.synchronize()
    rt.delete(target)
