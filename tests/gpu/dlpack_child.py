"""The CUDA DLPack path in one process with torch (run by tests/gpu/test_dlpack_cuda.py, in a child so
that a crash is a failed test, not a dead pytest). Prints one JSON line of observations.

    python tests/gpu/dlpack_child.py RUNTIME MODEL.pt2 MODELS_DIR
"""

from __future__ import annotations

import ctypes
import json
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
    return report


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:4])))
