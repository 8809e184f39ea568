"""Run AOTInductor models on shimgen's runtime through ctypes: numpy in, numpy out, no torch.

The runtime library (libshimgen_runtime.so) carries both the prefixed shims and the model loader
(shimgen/runtime/include/shimgen_runtime/model_loader.h), bound once in shimgen.aoti.capi. Inputs become
tensors made by the runtime's own shims (``create_tensor_from_blob_v2`` over the numpy buffer: no
copy); outputs are copied into numpy arrays and their handles freed.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from shimgen.aoti.capi import ML_DTYPES, ModelError, Runtime, cuda_device_count
from shimgen.errors import InputError
from shimgen.files import same_file

if TYPE_CHECKING:
    from shimgen.project.config import Config

log = logging.getLogger(__name__)

RUNTIME_ENV = "SHIMGEN_RUNTIME"
# AOTInductor's generated code validates input dtype/sizes/strides only when this is set (non-"0"),
# and reads it once per model library. Unchecked, a wrong-shaped input is read out of bounds.
CHECK_INPUTS_ENV = "AOTI_RUNTIME_CHECK_INPUTS"

_handle = ctypes.c_void_p  # AtenTensorHandle

def find_runtime(explicit: Path | None = None, *, config: Config | None = None, device: str = "cpu") -> Path:
    """The runtime library, looked for in this order:

    1. ``explicit`` (``--runtime``);
    2. ``$SHIMGEN_RUNTIME``;
    3. the runtime ``shimgen build`` made for ``config`` (default: the bundled config), wherever it
       was built: recorded in the per-user cache (``shimgen.builder.runtime_cache``);
    4. else built now into that cache, on first use (announced by one line on stderr).

    A CUDA device needs a runtime built with CUDA. The path returned is absolute: ``dlopen`` looks a
    name without a slash (``./x.so`` becomes ``x.so`` in a Path) up on the library path, where another
    copy may be found."""
    if explicit is not None:
        return _usable(Path(explicit), "--runtime")
    env = os.environ.get(RUNTIME_ENV)
    if env:
        return _usable(Path(env), f"${RUNTIME_ENV}")
    from shimgen.builder.runtime_cache import find_or_build

    return find_or_build(config or bundled_config(), need_cuda=device.startswith("cuda"))


def _usable(library: Path, given_by: str) -> Path:
    """A runtime the user named, checked by reading it before anything dlopens it."""
    from shimgen.binary.runtime_library import runtime_problem

    if not library.is_file():
        raise InputError(f"{library}: runtime library not found (from {given_by})")
    problem = runtime_problem(library)
    if problem:
        raise InputError(f"{problem} (from {given_by}: delete or rebuild it with 'shimgen build', "
                         "or point to another runtime)")
    return library.absolute()


class Model:
    """One opened model: a private copy of its .so and a model container."""

    def __init__(self, runtime: Runtime, path: Path, *, device: str = "cpu", model_name: str | None = None,
                 num_models: int = 1) -> None:
        self.runtime = runtime
        self.path = Path(path)
        self.device_type, self.device_index = parse_device(device, runtime)
        self._ptr = ctypes.c_void_p()
        _check_package_listing(self.path)
        lib = runtime.lib
        with native_stderr() as printed:  # the model's own C++ writes its errors to stderr itself
            code = lib.shimgen_model_open(os.fsencode(self.path), model_name.encode() if model_name else None,
                                          device.encode(), num_models, ctypes.byref(self._ptr))
        if code != 0:
            message = (lib.shimgen_model_last_error() or b"").decode(errors="replace") or f"{self.path}: cannot open"
            if "undefined symbol: aoti_torch_" in message:
                message += " (the model imports the plain shims; run 'shimgen prefix-imports' on it first)"
            if "choose a model by name" in message:
                message = (message.replace("choose a model by name", f"no model named {model_name!r}")
                           if model_name else message + " (pass --model NAME)")
            raise InputError(with_model_output(message, printed))
        replay(printed)
        count = ctypes.c_size_t()
        lib.shimgen_model_num_inputs(self._ptr, ctypes.byref(count))
        self.num_inputs = count.value
        lib.shimgen_model_num_outputs(self._ptr, ctypes.byref(count))
        self.num_outputs = count.value
        self.so_path = Path(os.fsdecode(lib.shimgen_model_so_path(self._ptr)))
        # run_handles is the per-call path: its ctypes array types and bound function made once.
        self._inputs_type = _handle * max(self.num_inputs, 1)
        self._outputs_type = _handle * max(self.num_outputs, 1)
        self._run = lib.shimgen_model_run

    def run_handles(self, inputs: Sequence, stream: int | None = None) -> list:
        """Runs on tensor handles (borrowed); returns new output handles the caller frees."""
        count = len(inputs)
        ins = self._inputs_type(*inputs) if count == self.num_inputs else (_handle * max(count, 1))(*inputs)
        outs = self._outputs_type()
        if self._run(self._ptr, ins, count, outs, self.num_outputs, stream) != 0:
            message = (self.runtime.lib.shimgen_model_last_error() or b"").decode(errors="replace")
            hint = lower_bound_hint(message)
            raise ModelError([message, hint] if hint else message)
        return outs[: self.num_outputs]

    def run(self, inputs: Sequence, stream: Any = None) -> list:
        """numpy arrays in (C-contiguous copies are made where needed), numpy arrays out.

        For a CUDA model the inputs are copied to the device and the outputs back, all on
        ``stream`` (a cudaStream_t or a stream object, selected as the caller's stream) when one is
        given."""
        import numpy as np

        from shimgen.aoti.dlpack import stream_pointer

        stream = stream_pointer(stream)

        if len(inputs) != self.num_inputs:
            raise InputError(f"{self.path}: the model takes {self.num_inputs} input(s); got {len(inputs)}")
        rt = self.runtime
        # AOTInductor kernels index inputs with the strides they were compiled for (contiguous),
        # checking them only when asked to: hand them contiguous memory, in this machine's byte
        # order (a big-endian '>f4' .npy holds the same values in other bytes). np.asarray, not
        # np.ascontiguousarray, which turns a 0-d array (a while_loop's counter) into shape (1,).
        arrays = [native_order(np.asarray(a, order="C")) for a in inputs]
        handles: list = []
        outputs: list = []
        with rt.caller_stream(stream):
            try:
                for array in arrays:
                    handles.append(self._placed(rt.tensor_from_array(array), self.device_type == rt.cpu))
                outputs = self.run_handles(handles, stream)
                return [rt.array_from_tensor(h) for h in outputs]
            finally:
                for h in [*handles, *outputs]:
                    rt.delete(h)

    def _placed(self, handle: Any, usable: bool) -> Any:
        """``handle`` itself when ``usable`` as a model input, else a contiguous copy on the model's
        device (and ``handle`` deleted)."""
        if usable:
            return handle
        try:
            return self.runtime.copy_to(handle, self.device_type, self.device_index)
        finally:
            self.runtime.delete(handle)

    def run_dlpack(self, inputs: Sequence, stream: Any = None) -> list:
        """DLPack-capable arrays in (numpy, torch, CuPy, JAX), DLPack producers out
        (``torch.from_dlpack(out)``, ``np.from_dlpack(out)``): no copies on the model's device.

        An input on the model's device and row-major contiguous is used in place; one elsewhere or
        strided is copied to a contiguous tensor on the model's device (AOTInductor indexes inputs
        with the strides it was compiled for). ``stream`` is the caller's: the producers are asked
        for their data on it, the model runs on it, and the outputs are ready on it. Each output owns
        its tensor until its last consumer lets go, and that tensor is freed on the stream: pass the
        stream object (torch's, CuPy's, anything with ``__cuda_stream__``) and the outputs keep it
        alive; a bare cudaStream_t (int) must outlive them, as for ``torch.cuda.ExternalStream``."""
        from shimgen.aoti.dlpack import is_dlpack, stream_pointer

        owner, stream = stream, stream_pointer(stream)

        if len(inputs) != self.num_inputs:
            raise InputError(f"{self.path}: the model takes {self.num_inputs} input(s); got {len(inputs)}")
        rt = self.runtime
        handles: list = []
        keep: list = []
        outputs: list = []
        with rt.caller_stream(stream):
            try:
                for index, value in enumerate(inputs):
                    if not is_dlpack(value):
                        raise InputError(f"input {index}: {type(value).__name__} is not DLPack-capable "
                                         "(no __dlpack__/__dlpack_device__)")
                    handle, view = rt.tensor_from_dlpack(value, stream)
                    keep.append(view)
                    device = rt.cpu if view.device_type == 1 else rt.cuda
                    in_place = (device, view.device_id if device != rt.cpu else 0) == (
                        self.device_type, self.device_index if self.device_type != rt.cpu else 0)
                    handles.append(self._placed(handle, in_place and _row_major(view.shape, view.strides)))
                outputs = self.run_handles(handles, stream)
                exported = []
                for handle in outputs:
                    exported.append(rt.to_dlpack(handle, owner))
                outputs = []  # each output's handle now belongs to its DLPackTensor
                return exported
            finally:
                for h in [*handles, *outputs]:
                    rt.delete(h)

    def close(self) -> None:
        if self._ptr:
            self.runtime.lib.shimgen_model_close(self._ptr)
            self._ptr = ctypes.c_void_p()

    def __enter__(self) -> Model:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # interpreter shutdown may have torn ctypes down
            self.close()


_SMALL_DIM = re.compile(r"dim value is too small at \d+, expected it to be >= 2, but got: [01]\b")


def lower_bound_hint(message: str) -> str | None:
    """How to run a size of 0 or 1 that a model with dynamic dims refused (pure), else None.

    AOTInductor's input check (on under ``$AOTI_RUNTIME_CHECK_INPUTS``, which ``shimgen run`` sets)
    asserts every backed dynamic size >= 2, inductor's own assumption, even where the export declared
    the dim from 1: the model then refuses one prompt or one image that torch's loader (unchecked by
    default) runs. The refusal is the model's own; the hint names torch's switch for it."""
    if not _SMALL_DIM.search(message):
        return None
    return ("the model's own input check assumes every dynamic size is at least 2 (inductor's default): "
            "compile it with inductor_configs={'aot_inductor.check_lowerbound': False} to run sizes 0 and 1 "
            f"with the check on, or set {CHECK_INPUTS_ENV}=0 to run it unchecked")


def _check_package_listing(path: Path) -> None:
    """A .pt2's member names checked as prefix-imports checks them (absolute, '..', given twice)
    before the C loader reads it: the loader and Python's zipfile would pick different copies of a
    repeated name, so such a package is refused rather than run."""
    from shimgen.aoti.package import open_package, read_magic
    from shimgen.binary.magic import ZIP_MAGIC

    if path.is_file() and read_magic(path, str(path)) == ZIP_MAGIC:
        open_package(path, str(path)).close()


def _row_major(shape: Sequence[int], strides: Sequence[int]) -> bool:
    step = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != step:
            return False
        step *= size
    return True


def native_order(array: Any) -> Any:
    """``array`` itself when its bytes are in this machine's order, else a converted copy."""
    return array if array.dtype.isnative else array.astype(array.dtype.newbyteorder("="))


@contextlib.contextmanager
def native_stderr() -> Iterator[list[str]]:
    """Collect what native code writes to file descriptor 2 inside the block (a model's C++ prints
    its own "Error: ..." lines with std::cerr, which would reach the terminal before shimgen's
    line, unescaped). The lines are in the yielded list after the block. Not for per-call paths:
    it costs two dup2 calls and a file."""
    import sys
    import tempfile

    lines: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            lines.extend(line.rstrip() for line in sink.read(1 << 20).decode("utf-8", "replace").splitlines()
                         if line.strip())


def with_model_output(message: str, printed: Sequence[str]) -> list[str]:
    """shimgen's line first, then each line the model printed that it does not already hold (after
    AOTInductor's own "Error: " tag): one problem a line (the CLI escapes and prefixes each)."""
    return [message, *(f"the model printed: {line.strip()}" for line in printed
                       if line.strip() and line.strip().removeprefix("Error:").strip() not in message)]


def replay(printed: Sequence[str]) -> None:
    """What a model printed on success (a warning of its own), through the logger: escaped, and
    silenced by -q like any progress."""
    for line in printed:
        log.info("the model printed: %s", line)


def device_parts(device: str) -> tuple[str, int]:
    """'cpu', 'cuda' or 'cuda:N' -> (kind, index) (pure); InputError for anything else."""
    kind, colon, index = device.partition(":")
    if (kind not in ("cpu", "cuda") or (colon and not (index.isascii() and index.isdigit()))
            or (kind == "cpu" and index not in ("", "0"))):
        raise InputError(f"device '{device}': expected cpu, cuda or cuda:N")
    return kind, int(index or 0)


def check_device(device: str, count: Callable[[], int] | None = None) -> None:
    """Before any runtime is found or built: the device string is well formed and, for CUDA, the
    driver reports that device (a CUDA runtime build takes about a minute; the probe, milliseconds)."""
    kind, index = device_parts(device)
    if kind != "cuda":
        return
    available = (count or cuda_device_count)()
    if available == 0:
        raise InputError(f"device '{device}': no CUDA device here (the CUDA driver, libcuda.so.1, is missing "
                         "or reports none); use --device cpu")
    if index >= available:
        raise InputError(f"device '{device}': this machine has {available} CUDA device(s), "
                         f"cuda:0 to cuda:{available - 1}")


def parse_device(device: str, runtime: Runtime) -> tuple[int, int]:
    """'cpu', 'cuda' or 'cuda:N' -> (device type code, index)."""
    kind, index = device_parts(device)
    return (runtime.cpu if kind == "cpu" else runtime.cuda), index


def open_regular(path: Path, what: str) -> BinaryIO:
    """``path`` opened for reading if it is a regular file; InputError otherwise. Opened without
    blocking and checked on the open descriptor, so a FIFO or a device never hangs the caller
    (a FIFO's open blocks until a writer comes; its read, forever)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(f"{path}: no such {what}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read the {what}: {exc.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise InputError(f"{path}: not a regular file (the {what} must be one)")
    return os.fdopen(fd, "rb")


def bundled_config() -> Config:
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    return load_config(default_config())


def open_model(path: Path, *, runtime: Path | None = None, device: str = "cpu", prefix: str | None = None,
               model_name: str | None = None, config: Config | None = None) -> Model:
    """Open a model on the runtime found by ``find_runtime``; the shims carry ``prefix``, else the
    prefix of ``config`` (default: the bundled config)."""
    open_regular(Path(path), "model file").close()  # a FIFO or device would block the loader
    check_device(device)
    config = config or bundled_config()
    loaded = Runtime(find_runtime(runtime, config=config, device=device), prefix or config.prefix)
    return Model(loaded, Path(path), device=device, model_name=model_name)


# The .npy convention for the dtypes numpy lacks (ML_DTYPES; docs/aoti.md): the header's descr is
# the dtype's name ('bfloat16', 'float8_e4m3fn', ...), the data its little-endian values. np.load
# reads such a file once ml_dtypes is imported; np.save of an ml_dtypes array would write '<V2' or
# '|V1' instead, losing the type.


def load_inputs(paths: Iterable[Path]) -> list:
    import numpy as np

    with contextlib.suppress(ImportError):
        import ml_dtypes  # noqa: F401 - registers 'bfloat16', 'float8_*' with numpy, so such .npy headers parse
    arrays = []
    for path in paths:
        try:
            with open_regular(Path(path), "input .npy file") as handle:
                array = np.load(handle, allow_pickle=False)
        except TypeError as exc:  # a descr numpy cannot name: 'bfloat16' without ml_dtypes
            raise InputError(f"{path}: dtype not understood ({exc}); bfloat16 and float8 .npy files need ml_dtypes: "
                             "python -m pip install ml_dtypes") from None
        except (OSError, ValueError, EOFError) as exc:
            raise InputError(f"{path}: not a readable .npy file ({exc})") from None
        if array.dtype.type is np.void:  # not ml_dtypes' types, whose kind is 'V' too
            raise InputError(f"{path}: raw {array.dtype.itemsize}-byte records ('{array.dtype.str}'), no number type; "
                             "np.save writes this for an ml_dtypes array: save it with descr 'bfloat16' (or its float8 name) "
                             "(shimgen.aoti.runner.save_array; docs/aoti.md)")
        arrays.append(array)
    return arrays


def npy_bytes(array: Any) -> bytes:
    """``array`` as a .npy file; an ml_dtypes array with its dtype's name as descr (``ML_DTYPES``)."""
    import io

    import numpy as np

    buffer = io.BytesIO()
    if array.dtype.name in ML_DTYPES:
        array = np.asarray(array, order="C")  # keeps a 0-d array 0-d
        header = {"descr": array.dtype.name, "fortran_order": False, "shape": array.shape}
        np.lib.format.write_array_header_1_0(buffer, header)
        buffer.write(array.astype(array.dtype.newbyteorder("<")).tobytes())
    else:
        np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def save_array(path: Path, array: Any) -> Path:
    """Write ``array`` as .npy (atomically), bfloat16 and float8 by shimgen's convention."""
    from shimgen.files import write_if_changed

    write_if_changed(Path(path), npy_bytes(array))
    return Path(path)


OUTPUT_NAME = re.compile(r"output_[0-9]+\.npy")
"""What ``save_outputs`` names its files."""


def check_output_dir(directory: Path, inputs: Iterable[Path]) -> None:
    """Before the model runs: refuse an output directory that is an existing non-directory (the
    write at the end would fail after the run), and an input the outputs would replace
    (``-i output_0.npy`` with outputs going to the same directory)."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise InputError(f"-o {directory}: not a directory (outputs go to OUT_DIR/output_<i>.npy)")
    for path in inputs:
        path = Path(path)
        if OUTPUT_NAME.fullmatch(path.name) and (path.resolve().parent == directory.resolve()
                                                 or same_file(path, directory / path.name)):
            raise InputError(f"{path}: the input would be overwritten by the output {directory / path.name} "
                             "(choose another -o OUT_DIR, or rename the input)")


def save_outputs(outputs: Sequence, directory: Path) -> list[Path]:
    """Every output as ``directory/output_<i>.npy``, written as one set (all or none replaced)."""
    from shimgen.files import write_all_if_changed

    directory = Path(directory)
    files = {directory / f"output_{index}.npy": npy_bytes(array) for index, array in enumerate(outputs)}
    write_all_if_changed(files)
    return list(files)
