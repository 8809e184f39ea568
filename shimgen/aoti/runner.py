"""Run AOTInductor models on shimgen's runtime through ctypes: numpy in, numpy out, no torch.

The runtime library (libshimgen_runtime.so) carries both the prefixed shims and the model loader
(runtime/include/shimgen_runtime/model_loader.h). Inputs become tensors made by the runtime's own
shims (``create_tensor_from_blob_v2`` over the numpy buffer: no copy); outputs are copied into
numpy arrays and their handles freed.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from shimgen.errors import InputError, ShimgenError

RUNTIME_ENV = "SHIMGEN_RUNTIME"
# AOTInductor's generated code validates input dtype/sizes/strides only when this is set (non-"0"),
# and reads it once per model library. Unchecked, a wrong-shaped input is read out of bounds.
CHECK_INPUTS_ENV = "AOTI_RUNTIME_CHECK_INPUTS"
RUNTIME_NAME = "libshimgen_runtime.so"

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
    "bool": "aoti_torch_dtype_bool",
    "complex64": "aoti_torch_dtype_complex64",
    "complex128": "aoti_torch_dtype_complex128",
}

_handle = ctypes.c_void_p
_i64p = ctypes.POINTER(ctypes.c_int64)


class ModelError(ShimgenError):
    """The runtime or the model reported a failure while running."""


def find_runtime(explicit: Path | None = None, start: Path | None = None) -> Path:
    """``explicit``, else ``$SHIMGEN_RUNTIME``, else the newest libshimgen_runtime.so under ./build."""
    if explicit is not None:
        if not Path(explicit).is_file():
            raise InputError(f"{explicit}: runtime library not found")
        return Path(explicit)
    env = os.environ.get(RUNTIME_ENV)
    if env:
        if not Path(env).is_file():
            raise InputError(f"{env}: runtime library not found (from ${RUNTIME_ENV})")
        return Path(env)
    build = (start or Path.cwd()) / "build"
    found = sorted(build.rglob(RUNTIME_NAME), key=lambda p: p.stat().st_mtime) if build.is_dir() else []
    if not found:
        raise InputError(f"no {RUNTIME_NAME}: build it with 'shimgen build', then pass --runtime or set ${RUNTIME_ENV}")
    return found[-1]


class Runtime:
    """The loaded runtime library, with the C signatures of the functions Python calls."""

    def __init__(self, path: Path, prefix: str = "executorch_") -> None:
        self.path = Path(path)
        self.prefix = prefix
        try:
            # RTLD_GLOBAL: the models' prefixed shim imports must resolve against this library. (The
            # loader also promotes itself to global, so a C caller need not know this.)
            self.lib = ctypes.CDLL(str(self.path), mode=ctypes.RTLD_GLOBAL)
        except OSError as exc:
            raise InputError(f"{self.path}: cannot load the runtime: {exc}") from None
        lib = self.lib
        self._shim("aoti_torch_create_tensor_from_blob_v2", [
            ctypes.c_void_p, ctypes.c_int64, _i64p, _i64p, ctypes.c_int64, ctypes.c_int32, ctypes.c_int32,
            ctypes.c_int32, ctypes.POINTER(_handle), ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64])
        self._shim("aoti_torch_delete_tensor_object", [_handle])
        for name in ("aoti_torch_get_dim", "aoti_torch_get_numel"):
            self._shim(name, [_handle, _i64p])
        for name in ("aoti_torch_get_sizes", "aoti_torch_get_strides"):
            self._shim(name, [_handle, ctypes.POINTER(_i64p)])
        self._shim("aoti_torch_get_data_ptr", [_handle, ctypes.POINTER(ctypes.c_void_p)])
        self._shim("aoti_torch_get_dtype", [_handle, ctypes.POINTER(ctypes.c_int32)])
        self._shim("aoti_torch_get_device_type", [_handle, ctypes.POINTER(ctypes.c_int32)])
        self._shim("aoti_torch_empty_strided", [ctypes.c_int64, _i64p, _i64p, ctypes.c_int32, ctypes.c_int32,
                                                ctypes.c_int32, ctypes.POINTER(_handle)])
        self._shim("aoti_torch_copy_", [_handle, _handle, ctypes.c_int32])
        for fn, res, args in (
            ("shimgen_model_open", ctypes.c_int32,
             [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_void_p)]),
            ("shimgen_model_close", ctypes.c_int32, [ctypes.c_void_p]),
            ("shimgen_model_num_inputs", ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]),
            ("shimgen_model_num_outputs", ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]),
            ("shimgen_model_so_path", ctypes.c_char_p, [ctypes.c_void_p]),
            ("shimgen_model_run", ctypes.c_int32,
             [ctypes.c_void_p, ctypes.POINTER(_handle), ctypes.c_size_t, ctypes.POINTER(_handle), ctypes.c_size_t,
              ctypes.c_void_p]),
            ("shimgen_model_last_error", ctypes.c_char_p, []),
            ("shimgen_runtime_last_error", ctypes.c_char_p, []),
            ("shimgen_runtime_shim_call_count", ctypes.c_uint64, []),
            ("shimgen_runtime_caller_stream_guard_create", ctypes.c_int32, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]),
            ("shimgen_runtime_caller_stream_guard_delete", ctypes.c_int32, [ctypes.c_void_p]),
        ):
            try:
                func = getattr(lib, fn)
            except AttributeError:
                raise InputError(f"{self.path}: not shimgen's runtime (no {fn})") from None
            func.restype, func.argtypes = res, args
        self.cpu = self._code("aoti_torch_device_type_cpu")
        self.cuda = self._code("aoti_torch_device_type_cuda")
        self.dtype_codes: dict[str, int] = {}
        for name, shim in _DTYPE_SHIMS.items():
            try:
                self.dtype_codes[name] = self._code(shim)
            except InputError:
                continue
        self.dtype_names = {code: name for name, code in self.dtype_codes.items()}

    def _shim(self, name: str, argtypes: list) -> None:
        try:
            func = getattr(self.lib, self.prefix + name)
        except AttributeError:
            raise InputError(f"{self.path}: the runtime does not export {self.prefix + name}") from None
        func.restype, func.argtypes = ctypes.c_int32, argtypes
        setattr(self, name.removeprefix("aoti_torch_"), func)

    def _code(self, shim: str) -> int:
        try:
            func = getattr(self.lib, self.prefix + shim)
        except AttributeError:
            raise InputError(f"{self.path}: the runtime does not export {self.prefix + shim}") from None
        func.restype, func.argtypes = ctypes.c_int32, []
        return int(func())

    def shim_call_count(self) -> int:
        """Shim calls this runtime has served (all threads): proof that a model used it."""
        return int(self.lib.shimgen_runtime_shim_call_count())

    def _check(self, code: int, what: str) -> None:
        if code != 0:
            message = (self.lib.shimgen_runtime_last_error() or b"").decode(errors="replace")
            raise ModelError(f"{what} failed (code {code}): {message}")

    def tensor_from_array(self, array):
        """A new handle over ``array``'s memory (borrowed: keep the array alive while it is used)."""
        code = self.dtype_codes.get(array.dtype.name)
        if code is None:
            raise InputError(f"dtype {array.dtype} has no tensor dtype in this runtime")
        ndim = array.ndim
        sizes = (ctypes.c_int64 * max(ndim, 1))(*array.shape)
        strides = (ctypes.c_int64 * max(ndim, 1))(*(s // array.itemsize for s in array.strides))
        out = _handle()
        data = array.ctypes.data if array.size else None
        self._check(self.create_tensor_from_blob_v2(data, ndim, sizes, strides, 0, code, self.cpu, 0,
                                                    ctypes.byref(out), 0, None, 0),
                    "aoti_torch_create_tensor_from_blob_v2")
        return out

    @contextlib.contextmanager
    def caller_stream(self, stream: int | None):
        """Selects ``stream`` (a cudaStream_t; None: no selection) for this thread's runtime work."""
        if stream is None:
            yield
            return
        guard = ctypes.c_void_p()
        self._check(self.lib.shimgen_runtime_caller_stream_guard_create(stream, ctypes.byref(guard)),
                    "shimgen_runtime_caller_stream_guard_create")
        try:
            yield
        finally:
            self.lib.shimgen_runtime_caller_stream_guard_delete(guard)

    def copy_to(self, handle, device_type: int, device_index: int = 0):
        """A new contiguous tensor on the given device holding ``handle``'s values (aoti_torch_copy_)."""
        dim = ctypes.c_int64()
        sizes = _i64p()
        dtype = ctypes.c_int32()
        self._check(self.get_dim(handle, ctypes.byref(dim)), "aoti_torch_get_dim")
        self._check(self.get_sizes(handle, ctypes.byref(sizes)), "aoti_torch_get_sizes")
        self._check(self.get_dtype(handle, ctypes.byref(dtype)), "aoti_torch_get_dtype")
        shape = [sizes[i] for i in range(dim.value)]
        strides, step = [0] * len(shape), 1
        for i in reversed(range(len(shape))):
            strides[i], step = step, step * max(shape[i], 1)
        out = _handle()
        n = max(len(shape), 1)
        self._check(self.empty_strided(dim.value, (ctypes.c_int64 * n)(*shape), (ctypes.c_int64 * n)(*strides),
                                       dtype.value, device_type, device_index, ctypes.byref(out)),
                    "aoti_torch_empty_strided")
        code = self.copy_(out, handle, 0)
        if code != 0:
            self.delete(out)
            self._check(code, "aoti_torch_copy_")
        return out

    def array_from_tensor(self, handle):
        """A numpy copy of a tensor (any strides; device tensors are copied to the host first); the
        handle stays the caller's."""
        import numpy as np

        device = ctypes.c_int32()
        self._check(self.get_device_type(handle, ctypes.byref(device)), "aoti_torch_get_device_type")
        if device.value != self.cpu:
            host = self.copy_to(handle, self.cpu)
            try:
                return self.array_from_tensor(host)
            finally:
                self.delete(host)

        dim, numel = ctypes.c_int64(), ctypes.c_int64()
        sizes, strides = _i64p(), _i64p()
        data = ctypes.c_void_p()
        dtype, device = ctypes.c_int32(), ctypes.c_int32()
        self._check(self.get_dim(handle, ctypes.byref(dim)), "aoti_torch_get_dim")
        self._check(self.get_numel(handle, ctypes.byref(numel)), "aoti_torch_get_numel")
        self._check(self.get_sizes(handle, ctypes.byref(sizes)), "aoti_torch_get_sizes")
        self._check(self.get_strides(handle, ctypes.byref(strides)), "aoti_torch_get_strides")
        self._check(self.get_data_ptr(handle, ctypes.byref(data)), "aoti_torch_get_data_ptr")
        self._check(self.get_dtype(handle, ctypes.byref(dtype)), "aoti_torch_get_dtype")
        self._check(self.get_device_type(handle, ctypes.byref(device)), "aoti_torch_get_device_type")
        name = self.dtype_names.get(dtype.value)
        if name is None:
            raise ModelError(f"output dtype code {dtype.value} has no numpy equivalent")
        np_dtype = np.dtype(name)
        shape = tuple(sizes[i] for i in range(dim.value))
        if numel.value == 0:
            return np.empty(shape, dtype=np_dtype)
        elem = tuple(strides[i] for i in range(dim.value))
        if any(s < 0 for s in elem):
            raise ModelError("negative strides are not supported")
        span = 1 + sum((n - 1) * s for n, s in zip(shape, elem))  # elements the view reaches
        buffer = (ctypes.c_char * (span * np_dtype.itemsize)).from_address(data.value)
        base = np.frombuffer(buffer, dtype=np_dtype, count=span)
        view = np.lib.stride_tricks.as_strided(base, shape=shape, strides=[s * np_dtype.itemsize for s in elem])
        return np.array(view, copy=True, order="C")

    def delete(self, handle) -> None:
        self.delete_tensor_object(handle)


class Model:
    """One opened model: a private copy of its .so and a model container."""

    def __init__(self, runtime: Runtime, path: Path, *, device: str = "cpu", model_name: str | None = None,
                 num_models: int = 1) -> None:
        self.runtime = runtime
        self.path = Path(path)
        self.device_type, self.device_index = parse_device(device, runtime)
        self._ptr = ctypes.c_void_p()
        lib = runtime.lib
        code = lib.shimgen_model_open(os.fsencode(self.path), model_name.encode() if model_name else None,
                                      device.encode(), num_models, ctypes.byref(self._ptr))
        if code != 0:
            message = (lib.shimgen_model_last_error() or b"").decode(errors="replace") or f"{self.path}: cannot open"
            if "undefined symbol: aoti_torch_" in message:
                message += " (the model imports the plain shims; run 'shimgen prefix-imports' on it first)"
            raise InputError(message)
        count = ctypes.c_size_t()
        lib.shimgen_model_num_inputs(self._ptr, ctypes.byref(count))
        self.num_inputs = count.value
        lib.shimgen_model_num_outputs(self._ptr, ctypes.byref(count))
        self.num_outputs = count.value
        self.so_path = Path(os.fsdecode(lib.shimgen_model_so_path(self._ptr)))

    def run_handles(self, inputs: Sequence, stream: int | None = None) -> list:
        """Runs on tensor handles (borrowed); returns new output handles the caller frees."""
        ins = (_handle * max(len(inputs), 1))(*inputs)
        outs = (_handle * max(self.num_outputs, 1))()
        code = self.runtime.lib.shimgen_model_run(self._ptr, ins, len(inputs), outs, self.num_outputs, stream)
        if code != 0:
            raise ModelError((self.runtime.lib.shimgen_model_last_error() or b"").decode(errors="replace"))
        return [outs[i] for i in range(self.num_outputs)]

    def run(self, inputs: Sequence, stream: int | None = None) -> list:
        """numpy arrays in (C-contiguous copies are made where needed), numpy arrays out.

        For a CUDA model the inputs are copied to the device and the outputs back, all on
        ``stream`` (a cudaStream_t, selected as the caller's stream) when one is given."""
        import numpy as np

        if len(inputs) != self.num_inputs:
            raise InputError(f"{self.path}: the model takes {self.num_inputs} input(s); got {len(inputs)}")
        rt = self.runtime
        # AOTInductor kernels index inputs with the strides they were compiled for (contiguous),
        # checking them only when asked to: hand them contiguous memory.
        arrays = [np.ascontiguousarray(a) for a in inputs]
        handles: list = []
        outputs: list = []
        with rt.caller_stream(stream):
            try:
                for array in arrays:
                    host = rt.tensor_from_array(array)
                    if self.device_type == rt.cpu:
                        handles.append(host)
                        continue
                    try:
                        handles.append(rt.copy_to(host, self.device_type, self.device_index))
                    finally:
                        rt.delete(host)
                outputs = self.run_handles(handles, stream)
                return [rt.array_from_tensor(h) for h in outputs]
            finally:
                for h in [*handles, *outputs]:
                    rt.delete(h)

    def close(self) -> None:
        if self._ptr:
            self.runtime.lib.shimgen_model_close(self._ptr)
            self._ptr = ctypes.c_void_p()

    def __enter__(self) -> "Model":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown may have torn ctypes down
            pass


def parse_device(device: str, runtime: Runtime) -> tuple[int, int]:
    """'cpu', 'cuda' or 'cuda:N' -> (device type code, index)."""
    kind, _, index = device.partition(":")
    if kind not in ("cpu", "cuda") or (index and not index.isdigit()) or (kind == "cpu" and index not in ("", "0")):
        raise InputError(f"device '{device}': expected cpu, cuda or cuda:N")
    return (runtime.cpu if kind == "cpu" else runtime.cuda), int(index or 0)


def default_prefix() -> str:
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    return load_config(default_config()).prefix


def open_model(path: Path, *, runtime: Path | None = None, device: str = "cpu", prefix: str | None = None,
               model_name: str | None = None) -> Model:
    if not Path(path).is_file():
        raise InputError(f"{path}: no such model file")
    loaded = Runtime(find_runtime(runtime), prefix or default_prefix())
    return Model(loaded, Path(path), device=device, model_name=model_name)


def load_inputs(paths: Iterable[Path]) -> list:
    import numpy as np

    arrays = []
    for path in paths:
        try:
            arrays.append(np.load(path, allow_pickle=False))
        except (OSError, ValueError) as exc:
            raise InputError(f"{path}: not a readable .npy file ({exc})") from None
    return arrays


def save_outputs(outputs: Sequence, directory: Path) -> list[Path]:
    import io

    import numpy as np

    from shimgen.files import write_if_changed

    directory = Path(directory)
    written = []
    for index, array in enumerate(outputs):
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        target = directory / f"output_{index}.npy"
        write_if_changed(target, buffer.getvalue())
        written.append(target)
    return written
