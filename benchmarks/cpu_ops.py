"""GEMM through shimgen's runtime against a baseline in the same run: numpy on the CPU, torch on CUDA.

    python benchmarks/cpu_ops.py [--device cpu|cuda] [--runtime LIB] [--sizes 256,1024,2048] [--repeats 5]

float32 square matrices, C = A @ B, median of ``--repeats`` timed batches (each batch ~0.2 GFLOP
of calls or at least one call); the ratio printed is baseline time / runtime time (>= 1: the
runtime is faster).

--device cpu   the runtime's ``aoti_torch_cpu_mm_out`` (scipy-openblas32 sgemm) through ctypes vs
               ``numpy.matmul(a, b, out=c)``. Both BLAS use their default thread count (all cores;
               set OPENBLAS_NUM_THREADS to change both).
--device cuda  the runtime's ``aoti_torch_cuda_mm_out`` (cuBLAS, float32 accumulation, no TF32) vs
               ``torch.matmul(a, b, out=c)`` with TF32 off, on the same torch-allocated matrices (the
               runtime borrows them) and one non-blocking stream (the runtime's caller stream);
               timed with CUDA events on that stream: device time per GEMM, launch gaps included.
               Needs torch with CUDA and a GPU; the runtime is built with CUDA unless --runtime.

--woq          instead of the GEMM: the weight-only quantized linears (aoti_torch_cpu__weight_int8pack_mm,
               aoti_torch_cpu__weight_int4pack_mm_cpu_tensor, group size 128) vs torch's own CPU kernels
               (torch.ops.aten._weight_int8pack_mm / _weight_int4pack_mm_for_cpu, torch's default
               threads) at M = 1 (decoding) and 16, K = N = 4096 (``--sizes`` sets K = N); the ratio
               printed is runtime time / torch time (<= 1: the runtime is faster).

The transformer block's per-call latency (runtime vs eager vs torch's loader) is
benchmarks/model_latency.py.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from ctypes import c_int32, c_int64, c_void_p
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PREFIX = "executorch_"
FLOP_PER_BATCH = 2e8


def median_time(fn: Callable[[], Any], repeats: int, inner: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times)


def build_runtime(work: Path, cuda: bool) -> Path:
    from shimgen.builder.builder import BuildOptions, build
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    options = BuildOptions(work / "runtime", cuda="on" if cuda else "off", jobs=os.cpu_count() or 2)
    return build(load_config(default_config()), options).artifacts[0].path


def mm_function(rt: Any, name: str) -> Any:
    function = getattr(rt.lib, PREFIX + name)
    function.restype = c_int32
    function.argtypes = [c_void_p, c_void_p, c_void_p]
    return function


def header(baseline: str) -> None:
    print(f"{'n':>6} {'runtime mm_out ms':>18} {baseline + ' ms':>20} {'runtime GFLOP/s':>16} {'baseline/runtime':>17}")


def row(n: int, ours: float, theirs: float) -> None:
    print(f"{n:>6} {ours * 1e3:>18.3f} {theirs * 1e3:>20.3f} {2 * n**3 / ours / 1e9:>16.1f} {theirs / ours:>17.2f}")


def gemm_cpu(runtime_path: Path, sizes: list[int], repeats: int) -> None:
    import numpy as np

    from shimgen.aoti.runner import Runtime

    rt = Runtime(runtime_path, PREFIX)
    mm = mm_function(rt, "aoti_torch_cpu_mm_out")
    print("GEMM float32 on the CPU, C = A @ B (square); both on their default (all-core) OpenBLAS threads")
    header("numpy matmul")
    rng = np.random.default_rng(0)
    for n in sizes:
        a, b = rng.standard_normal((n, n), dtype=np.float32), rng.standard_normal((n, n), dtype=np.float32)
        out = np.empty((n, n), np.float32)
        handles = [rt.tensor_from_array(x) for x in (out, a, b)]
        assert mm(*handles) == 0, rt.last_error()
        assert np.allclose(out, a @ b, atol=1e-2 * np.sqrt(n))
        inner = max(1, int(FLOP_PER_BATCH / n**3))
        ours = median_time(lambda handles=handles: mm(*handles), repeats, inner)
        theirs = median_time(lambda a=a, b=b, out=out: np.matmul(a, b, out=out), repeats, inner)
        row(n, ours, theirs)
        for h in handles:
            rt.delete(h)


def woq_cpu(runtime_path: Path, sizes: list[int], repeats: int) -> None:
    import torch

    from shimgen.aoti.runner import Runtime

    rt = Runtime(runtime_path, PREFIX)
    codes = {torch.float32: 6, torch.bfloat16: 15, torch.float16: 5}

    def handle(t: Any) -> c_void_p:
        out = c_void_p()
        dims = (c_int64 * t.dim())(*t.shape), (c_int64 * t.dim())(*t.stride())
        code = rt.shim("aoti_torch_create_tensor_from_blob_v2")(
            t.data_ptr(), t.dim(), *dims, 0,
            {torch.int8: 1, torch.uint8: 0, torch.int64: 4}.get(t.dtype, codes.get(t.dtype)),
            0, 0, ctypes.byref(out), 0, None, 0)
        rt.check(code, "aoti_torch_create_tensor_from_blob_v2")
        return out

    print(f"weight-only quantized linear on the CPU, out [M, N] = A [M, K] @ dequant(W)^T; torch "
          f"{torch.__version__} on {torch.get_num_threads()} threads; the runtime on one")
    print(f"{'op':>6} {'dtype':>9} {'M':>3} {'K=N':>5} {'runtime ms':>11} {'torch ms':>9} {'runtime/torch':>14}")
    gen = torch.Generator().manual_seed(0)
    for n in sizes:
        w8 = torch.randint(-128, 128, (n, n), dtype=torch.int8, generator=gen)
        w4 = torch.ops.aten._convert_weight_to_int4pack_for_cpu(
            torch.randint(0, 16, (n, n), dtype=torch.int32, generator=gen), 2)
        group = 128
        for dtype in (torch.bfloat16, torch.float32):
            scales = (torch.rand(n, generator=gen) * 0.01).to(dtype)
            sz = torch.stack([torch.rand(n // group, n, generator=gen) * 0.01,
                              torch.randn(n // group, n, generator=gen) * 0.01], -1).to(dtype)
            group_t = torch.tensor(group)
            for m in (1, 16):
                a = torch.randn(m, n, generator=gen).to(dtype)
                cases = {
                    "int8": ("aoti_torch_cpu__weight_int8pack_mm", (a, w8, scales),
                             lambda a=a, w=w8, s=scales: torch.ops.aten._weight_int8pack_mm(a, w, s)),
                    "int4": ("aoti_torch_cpu__weight_int4pack_mm_cpu_tensor", (a, w4, group_t, sz),
                             lambda a=a, w=w4, g=group, sz=sz: torch.ops.aten._weight_int4pack_mm_for_cpu(a, w, g, sz)),
                }
                for label, (name, args, theirs_fn) in cases.items():
                    fn = getattr(rt.lib, PREFIX + name)
                    fn.restype = c_int32
                    hs = [handle(t) for t in args]
                    out = c_void_p()

                    def ours_fn(fn: Any = fn, hs: list = hs, out: c_void_p = out) -> None:
                        rt.check(fn(*hs, ctypes.byref(out)), "woq")
                        rt.delete(out.value)

                    rt.check(fn(*hs, ctypes.byref(out)), name)
                    expected = theirs_fn()
                    got = torch.empty_like(expected)
                    ctypes.memmove(got.data_ptr(), rt.data_ptr(out.value), got.numel() * got.element_size())
                    rt.delete(out.value)
                    error = float((got.double() - expected.double()).abs().max())
                    assert error <= 0.02 * float(expected.double().abs().max()), f"{label} differs by {error}"
                    inner = max(1, int(2e8 / (2 * m * n * n)))
                    ours = median_time(ours_fn, repeats, inner)
                    theirs = median_time(theirs_fn, repeats, inner)
                    print(f"{label:>6} {str(dtype)[6:]:>9} {m:>3} {n:>5} {ours * 1e3:>11.3f} {theirs * 1e3:>9.3f} "
                          f"{ours / theirs:>14.2f}")
                    for h in hs:
                        rt.delete(h.value)


def borrow_cuda(rt: Any, tensor: Any) -> int:
    """A runtime tensor handle over a torch CUDA tensor's memory (the runtime does not own it)."""
    out = c_void_p()
    sizes = (c_int64 * tensor.dim())(*tensor.shape)
    strides = (c_int64 * tensor.dim())(*tensor.stride())
    code = rt.shim("aoti_torch_create_tensor_from_blob_v2")(tensor.data_ptr(), tensor.dim(), sizes, strides, 0,
                                                           rt.dtype_codes["float32"], rt.cuda, tensor.device.index,
                                                           ctypes.byref(out), 0, None, 0)
    rt.check(code, "aoti_torch_create_tensor_from_blob_v2")
    return int(out.value or 0)


def gemm_cuda(runtime_path: Path, sizes: list[int], repeats: int) -> None:
    import torch

    from shimgen.aoti.runner import Runtime

    rt = Runtime(runtime_path, PREFIX)
    mm = mm_function(rt, "aoti_torch_cuda_mm_out")
    torch.backends.cuda.matmul.allow_tf32 = False  # the runtime's cuBLAS GEMM is full float32 too
    stream = torch.cuda.Stream()
    print(f"GEMM float32 on {torch.cuda.get_device_name(0)}, C = A @ B (square); torch {torch.__version__}, "
          f"TF32 off; CUDA-event time on one stream")
    header("torch.matmul")
    gen = torch.Generator(device="cuda").manual_seed(0)
    with torch.cuda.stream(stream), rt.caller_stream(stream.cuda_stream):
        for n in sizes:
            a = torch.randn(n, n, device="cuda", generator=gen)
            b = torch.randn(n, n, device="cuda", generator=gen)
            out, ref = torch.empty(n, n, device="cuda"), torch.empty(n, n, device="cuda")
            handles = [borrow_cuda(rt, t) for t in (out, a, b)]
            assert mm(*handles) == 0, rt.last_error()
            torch.matmul(a, b, out=ref)
            stream.synchronize()
            error = float((out - ref).abs().max())
            assert error <= 1e-3 * n**0.5, f"runtime mm_out differs from torch.matmul by {error:.3g} at n={n}"
            inner = max(1, int(FLOP_PER_BATCH * 20 / n**3))  # a GPU does ~20x a CPU's batch in the same time

            def device_time(call: Callable[[], Any], inner: int = inner) -> float:
                samples = []
                for _ in range(repeats):
                    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    begin.record(stream)
                    for _ in range(inner):
                        call()
                    end.record(stream)
                    end.synchronize()
                    samples.append(begin.elapsed_time(end) / 1e3 / inner)
                return statistics.median(samples)

            device_time(lambda handles=handles: mm(*handles), 1)  # warm both (cuBLAS picks its kernels)
            device_time(lambda a=a, b=b, ref=ref: torch.matmul(a, b, out=ref), 1)
            ours = device_time(lambda handles=handles: mm(*handles))
            theirs = device_time(lambda a=a, b=b, ref=ref: torch.matmul(a, b, out=ref))
            row(n, ours, theirs)
            for h in handles:
                rt.delete(h)


def cuda_problem() -> str:
    """Why --device cuda cannot run here ('' when it can)."""
    try:
        import torch
    except ImportError:
        return "needs torch with CUDA (import torch failed)"
    if not torch.cuda.is_available():
        return (f"no CUDA device visible to torch {torch.__version__} (CUDA build: {torch.version.cuda or 'none'}); "
                "run it on the GPU machine")
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--runtime", type=Path, help="libshimgen_runtime.so (default: build one, with CUDA for cuda)")
    parser.add_argument("--sizes", help="comma-separated n (default: 256,1024,2048; cuda adds 4096)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--woq", action="store_true", help="the weight-only quantized linears vs torch's (CPU)")
    args = parser.parse_args(argv)
    default_sizes = "256,1024,2048,4096" if args.device == "cuda" else "4096" if args.woq else "256,1024,2048"
    try:
        sizes = [int(s) for s in (args.sizes or default_sizes).split(",")]
    except ValueError:
        parser.error(f"--sizes: comma-separated integers, not {args.sizes!r}")
    if any(n < 1 for n in sizes) or args.repeats < 1:
        parser.error("--sizes and --repeats must be positive")
    if args.device == "cuda":
        problem = cuda_problem()
        if problem:
            print(f"cpu_ops.py --device cuda: {problem}", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory() as scratch:
        runtime = args.runtime or build_runtime(Path(scratch), cuda=args.device == "cuda")
        if args.device == "cuda":
            from shimgen.aoti.runner import Runtime

            if Runtime(runtime, PREFIX).lib.shimgen_runtime_has_cuda() == 0:
                print(f"cpu_ops.py --device cuda: {runtime} was built without CUDA", file=sys.stderr)
                return 2
            gemm_cuda(runtime, sizes, args.repeats)
        elif args.woq:
            woq_cpu(runtime, sizes, args.repeats)
        else:
            gemm_cpu(runtime, sizes, args.repeats)
    return 0


if __name__ == "__main__":
    sys.exit(main())
