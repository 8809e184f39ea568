"""Loads a prefixed CUDA AOTInductor model in the process shapes that crashed (issue 13), one per child.

    python scripts/gpu_process_shapes.py probe SHAPE FLAGS RUNTIME MODEL.pt2 [IN.npy... --expect OUT.npy...]

SHAPE: what the process holds before the model is opened:
    numpy-lief-cudart   numpy and LIEF imported, libcudart dlopened RTLD_GLOBAL through ctypes
    torch-first         torch imported (and CUDA initialised) first
    libtorch-global     libtorch_cpu.so and libtorch_cuda.so dlopened RTLD_GLOBAL first (no torch import)
FLAGS: 'local' (the runtime's loader) or 'deepbind' (the model .so dlopened RTLD_LOCAL|RTLD_DEEPBIND by
ctypes, the container created directly: the alternative fix, for the record).
Prints one line 'OK ...' or 'FAIL ...'; a crash shows as the child's signal in the parent's report.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
import tempfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def prepare(shape: str) -> None:
    if shape == "numpy-lief-cudart":
        import lief  # noqa: F401
        import numpy  # noqa: F401

        for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so"):
            try:
                ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
                return
            except OSError:
                continue
        raise SystemExit("libcudart not found")
    if shape == "torch-first":
        import torch

        torch.zeros(1, device="cuda")
        return
    if shape == "libtorch-global":
        spec = importlib.util.find_spec("torch")
        lib = Path(spec.origin).parent / "lib"
        for name in ("libtorch_cpu.so", "libtorch_cuda.so"):
            ctypes.CDLL(str(lib / name), mode=ctypes.RTLD_GLOBAL)
        for name in ("libcudart.so.13", "libcudart.so.12"):
            try:
                ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
                break
            except OSError:
                continue
        return
    raise SystemExit(f"unknown shape {shape}")


def deepbind_open(runtime: Path, pt2: Path) -> str:
    ctypes.CDLL(str(runtime), mode=ctypes.RTLD_GLOBAL)
    work = Path(tempfile.mkdtemp(prefix="shapes-"))
    with zipfile.ZipFile(pt2) as archive:
        for name in archive.namelist():
            if name.endswith((".so", ".cubin")) and "/data/aotinductor/" in f"/{name}":
                (work / Path(name).name).write_bytes(archive.read(name))
    (so,) = list(work.glob("*.so"))
    model = ctypes.CDLL(str(so), mode=os.RTLD_NOW | os.RTLD_LOCAL | os.RTLD_DEEPBIND)
    container = ctypes.c_void_p()
    code = model.AOTInductorModelContainerCreateWithDevice(ctypes.byref(container), ctypes.c_size_t(1), b"cuda:0",
                                                           str(work).encode())
    return f"container created (code {code})"


def local_run(runtime: Path, pt2: Path, inputs: list[Path], expected: list[Path]) -> tuple[bool, str]:
    import numpy as np

    from shimgen.aoti.runner import Model, Runtime

    rt = Runtime(runtime, "executorch_")
    arrays = [np.load(p) for p in inputs]
    with Model(rt, pt2, device="cuda:0") as model:
        got = model.run(arrays)
    errors = [float(np.abs(g.astype(np.float64) - np.load(e)).max()) if g.size else 0.0 for g, e in zip(got, expected)]
    worst = max(errors, default=0.0)
    return worst <= 1e-4 and len(got) == len(expected), f"max |runtime - eager| = {worst:.3g}"


def main(argv: list[str]) -> int:
    shape, flags, runtime, pt2 = argv[1], argv[2], Path(argv[3]), Path(argv[4])
    rest = argv[5:]
    split = rest.index("--expect") if "--expect" in rest else len(rest)
    inputs, expected = [Path(p) for p in rest[:split]], [Path(p) for p in rest[split + 1:]]
    prepare(shape)
    if flags == "deepbind":
        print(f"OK {shape} {flags}: {deepbind_open(runtime, pt2)}", flush=True)
        return 0
    ok, text = local_run(runtime, pt2, inputs, expected)
    print(f"{'OK' if ok else 'FAIL'} {shape} {flags} {pt2.name}: {text}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) < 5 or sys.argv[1] != "probe":
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
