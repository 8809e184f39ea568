"""The CUDA DLPack path in one process with torch (run by tests/gpu/test_dlpack_cuda.py, in a child so
that a crash is a failed test, not a dead pytest). Prints one JSON line of observations.

    python tests/gpu/dlpack_child.py RUNTIME MODEL.pt2 MODELS_DIR [--jax]
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
from pathlib import Path

import numpy as np
import torch

from shimgen.aoti.capi import Runtime
from shimgen.aoti.runner import Model


def bits(t: torch.Tensor) -> np.ndarray:
    t = t.contiguous().cpu()
    return t.view(torch.int16).numpy().view(np.uint16) if t.element_size() == 2 else t.numpy()


def main(runtime: str, model_path: str, models: str) -> dict:
    directory = Path(models)
    x = torch.from_numpy(np.load(directory / "mixed_half.in0.npy").view(np.int16)).view(torch.bfloat16).cuda()
    y = torch.from_numpy(np.load(directory / "mixed_half.in1.npy")).view(torch.float16).cuda()
    expected = [np.load(directory / f"mixed_half.out{i}.npy") for i in range(3)]
    rt = Runtime(Path(runtime), "executorch_")
    report: dict = {}
    handle, keep = rt.tensor_from_dlpack(x)
    report["input_in_place"] = rt.data_ptr(handle) == x.data_ptr()
    report["input_device"] = rt.scalar(handle, "aoti_torch_get_device_type", ctypes.c_int32) == rt.cuda
    rt.delete(handle)
    del keep
    stream = torch.cuda.Stream()
    with Model(rt, Path(model_path), device="cuda:0") as model:
        with torch.cuda.stream(stream):
            torch.cuda._sleep(50_000_000)  # the inputs' producer is still busy on the caller's stream
            x2 = x * 1  # written on `stream` after the sleep: the model must wait for it
            outs = model.run_dlpack([x2, y], stream=stream.cuda_stream)
            tensors = [torch.from_dlpack(o) for o in outs]
            report["outputs_in_place"] = [t.data_ptr() == o.data_ptr for t, o in zip(tensors, outs)]
            report["output_devices"] = [str(t.device) for t in tensors]
            report["match"] = [bool(np.array_equal(bits(t), e)) for t, e in zip(tensors, expected)]
        # Another stream consumes: the export synchronises the run's stream first.
        other = [torch.from_dlpack(o) for o in model.run_dlpack([x, y], stream=stream.cuda_stream)]
        report["match_default_stream"] = [bool(np.array_equal(bits(t), e)) for t, e in zip(other, expected)]
        cpu_in = [torch.from_dlpack(o) for o in model.run_dlpack([x.cpu(), y.cpu()])]  # copied to the device
        report["match_cpu_inputs"] = [bool(np.array_equal(bits(t), e)) for t, e in zip(cpu_in, expected)]
        try:  # Model.run on the device: ml_dtypes bfloat16 and numpy float16 in, host copies out
            import ml_dtypes

            xs = np.load(directory / "mixed_half.in0.npy").view(ml_dtypes.bfloat16)
            ys = np.load(directory / "mixed_half.in1.npy").view(np.float16)
            host = model.run([xs, ys])
            report["match_numpy_run"] = [bool(np.array_equal(h.view(np.uint16) if h.dtype.itemsize == 2 else h, e))
                                         for h, e in zip(host, expected)]
        except ImportError:
            report["match_numpy_run"] = None
        report["cupy"] = cupy_round_trip(rt, model, x, y, expected)
    return report


def main_jax(runtime: str, model_path: str, models: str) -> dict | None:
    """JAX in a process of its own: its CUDA libraries beside torch's are a risk of their own."""
    directory = Path(models)
    x = torch.from_numpy(np.load(directory / "mixed_half.in0.npy").view(np.int16)).view(torch.bfloat16).cuda()
    y = torch.from_numpy(np.load(directory / "mixed_half.in1.npy")).view(torch.float16).cuda()
    expected = [np.load(directory / f"mixed_half.out{i}.npy") for i in range(3)]
    rt = Runtime(Path(runtime), "executorch_")
    with Model(rt, Path(model_path), device="cuda:0") as model:
        return jax_round_trip(rt, model, x, y, expected)


def same_bits(array: np.ndarray, expected: np.ndarray) -> bool:
    return bool(np.array_equal(array.view(np.uint16) if array.dtype.itemsize == 2 else array, expected))


def cupy_round_trip(rt: Runtime, model: Model, x: torch.Tensor, y: torch.Tensor, expected: list) -> dict | None:
    """CuPy (no bfloat16) holds the float16 input and takes the outputs it has a dtype for."""
    try:
        import cupy
    except ImportError:
        return None
    cy = cupy.from_dlpack(y)
    handle, keep = rt.tensor_from_dlpack(cy)
    in_place = rt.data_ptr(handle) == cy.data.ptr
    rt.delete(handle)
    del keep
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        # the stream object, not its pointer: the outputs keep it alive (CuPy destroys a stream with its
        # last reference, here at this function's return, before the outputs; that crashed the child)
        outs = model.run_dlpack([x, cy], stream=stream)
        pairs = [(o, e) for o, e in zip(outs, expected) if o.dtype != "bfloat16"]
        arrays = [cupy.from_dlpack(o) for o, _ in pairs]
        match = [same_bits(cupy.asnumpy(a), e) for a, (_, e) in zip(arrays, pairs)]
    return {"input_in_place": in_place, "outputs": len(pairs), "match": match,
            "outputs_in_place": [a.data.ptr == o.data_ptr for a, (o, _) in zip(arrays, pairs)]}


def jax_round_trip(rt: Runtime, model: Model, x: torch.Tensor, y: torch.Tensor, expected: list) -> dict | None:
    """JAX arrays on the GPU (bfloat16 and float16) in, JAX arrays out, through DLPack."""
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave the GPU's memory to the others
    try:
        import jax
        import jax.dlpack
    except ImportError:
        return None
    try:
        jax.devices("gpu")
    except RuntimeError as exc:  # a CPU-only jaxlib: nothing to prove on the device
        return {"skipped": f"JAX sees no GPU: {exc}"}
    jx, jy = jax.dlpack.from_dlpack(x), jax.dlpack.from_dlpack(y)
    handle, keep = rt.tensor_from_dlpack(jx)
    in_place = rt.data_ptr(handle) == jx.unsafe_buffer_pointer()
    rt.delete(handle)
    del keep
    outs = [jax.dlpack.from_dlpack(o) for o in model.run_dlpack([jx, jy])]
    return {"input_in_place": in_place, "devices": sorted({str(d) for o in outs for d in o.devices()}),
            "match": [same_bits(np.asarray(o), e) for o, e in zip(outs, expected)]}


if __name__ == "__main__":
    print(json.dumps(main_jax(*sys.argv[1:4]) if "--jax" in sys.argv[4:] else main(*sys.argv[1:4])))
