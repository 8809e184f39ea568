"""CPU GEMM and transformer-block latency on shimgen's runtime, each against a baseline in the same run.

    python benchmarks/cpu_ops.py [--device cpu|cuda] [--runtime LIB] [--sizes 256,1024,2048] [--calls 500]

1. GEMM: the runtime's ``aoti_torch_cpu_mm_out`` (scipy-openblas32 sgemm, called through ctypes on
   float32 square matrices) vs ``numpy.matmul`` on the same arrays. Both BLAS use their default
   thread count, all cores (OpenBLAS's default; set OPENBLAS_NUM_THREADS to change both). Median of
   5 repeats; the printed ratio is numpy's time / the runtime's time (>= 1 means the runtime is faster).
2. The zoo's transformer block (tests/aoti_zoo.py), per call: shimgen's runtime (``Model.run_handles``,
   input handles made once) vs eager torch (``torch.no_grad``) vs torch's ``aoti_load_package`` on
   the same model compiled with libtorch linked. Median of 5 batches of ``--calls`` calls.

``--device cuda`` is reserved for the CUDA runtime (the CUDA half extends this script); the GEMM part
is CPU only.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
PREFIX = "executorch_"


def median_time(fn, repeats: int = 5, inner: int = 1) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times)


def build_runtime(work: Path) -> Path:
    from shimgen.build.builder import BuildOptions, build
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    result = build(load_config(default_config()), BuildOptions(work / "runtime", cuda="off", jobs=2), echo=lambda line: None)
    return result.artifacts[0].path


def gemm(runtime_path: Path, sizes: list[int]) -> None:
    import numpy as np

    from shimgen.aoti.runner import Runtime

    rt = Runtime(runtime_path, PREFIX)
    mm = getattr(rt.lib, PREFIX + "aoti_torch_cpu_mm_out")
    mm.restype = ctypes.c_int32
    print("GEMM float32, C = A @ B (square); both on their default (all-core) OpenBLAS threads")
    print(f"{'n':>6} {'runtime mm_out ms':>18} {'numpy matmul ms':>16} {'runtime GFLOP/s':>16} {'numpy/runtime':>14}")
    rng = np.random.default_rng(0)
    for n in sizes:
        a, b = rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)
        out = np.empty((n, n), np.float32)
        handles = [rt.tensor_from_array(x) for x in (out, a, b)]
        args = [ctypes.c_void_p(h.value) for h in handles]
        assert mm(*args) == 0, rt.lib.shimgen_runtime_last_error()
        assert np.allclose(out, a @ b, atol=1e-2 * np.sqrt(n))
        inner = max(1, int(2e8 / n**3))
        ours = median_time(lambda args=args: mm(*args), inner=inner)
        theirs = median_time(lambda a=a, b=b, out=out: np.matmul(a, b, out=out), inner=inner)
        print(f"{n:>6} {ours * 1e3:>18.3f} {theirs * 1e3:>16.3f} {2 * n**3 / ours / 1e9:>16.1f} {theirs / ours:>14.2f}")
        for h in handles:
            rt.delete(h)


def transformer(runtime_path: Path, calls: int, work: Path) -> None:
    import aoti_zoo
    import numpy as np

    from shimgen.aoti.prefix_imports import prefix_imports_with_config
    from shimgen.aoti.runner import Model, Runtime
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    plain = aoti_zoo.ensure_compiled(["transformer_block"])["transformer_block"]
    linked = aoti_zoo.ensure_compiled(["transformer_block"], link_libtorch=True)["transformer_block"]
    prefixed = work / "transformer_block.prefixed.pt2"
    prefix_imports_with_config(plain / "model.pt2", prefixed, load_config(default_config()))
    inputs = [np.load(p) for p in aoti_zoo.inputs_of(plain)]
    expected = np.load(aoti_zoo.expected_of(plain)[0])

    import torch

    rt = Runtime(runtime_path, PREFIX)
    rows = {}
    with Model(rt, prefixed) as model:
        handles = [rt.tensor_from_array(a) for a in inputs]

        def run_ours():
            for out in model.run_handles(handles):
                rt.delete(out)

        got = model.run(inputs)[0]
        assert np.allclose(got, expected, atol=aoti_zoo.ZOO["transformer_block"].atol)
        run_ours()
        rows["shimgen runtime (Model.run_handles)"] = median_time(run_ours, inner=calls)
    runner = torch._inductor.aoti_load_package(str(linked / "model.pt2"))
    tensors = [torch.from_numpy(a) for a in inputs]
    namespace: dict = {"torch": torch}
    exec(aoti_zoo.source("transformer_block"), namespace)
    torch.manual_seed(0)
    module = namespace["M"]().eval()
    with torch.no_grad():
        assert np.allclose(module(*tensors).numpy(), expected, atol=1e-6)
        rows["eager torch"] = median_time(lambda: module(*tensors), inner=calls)
        rows["torch aoti_load_package"] = median_time(lambda: runner(*tensors), inner=calls)
    print(f"\ntransformer block {list(inputs[0].shape)}, per call, median of 5 x {calls} calls "
          f"(torch threads: {torch.get_num_threads()})")
    ours = rows["shimgen runtime (Model.run_handles)"]
    for name, seconds in rows.items():
        print(f"  {name:<38} {seconds * 1e6:>9.1f} us   runtime/this = {ours / seconds:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--runtime", type=Path)
    parser.add_argument("--sizes", default="256,1024,2048")
    parser.add_argument("--calls", type=int, default=500)
    args = parser.parse_args(argv)
    if args.device != "cpu":
        parser.error("--device cuda: not implemented in this script yet (the CUDA half adds it)")
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        runtime = args.runtime or build_runtime(work)
        gemm(runtime, [int(s) for s in args.sizes.split(",")])
        transformer(runtime, args.calls, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
