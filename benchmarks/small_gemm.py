"""Tiny float32 GEMMs (the transformer block's shapes) through the runtime's mm_out vs numpy, one run.

    python benchmarks/small_gemm.py --runtime LIB [--baseline-runtime LIB] [--repeats 9] [--calls 2000]

Shapes (m, n, k): the block's four Linears (32x96x32, 32x32x32, 32x128x32, 32x32x128) and its
attention heads' two products (16x16x8, 16x8x16), each with b row-major ("nn", ``x @ W``) and
transposed ("nt", ``x @ W^T``: how every Linear calls addmm). Rows: the runtime's
``aoti_torch_cpu_mm_out`` through ctypes (handles made once), numpy's ``matmul(a, b, out=c)``, and,
with ``--baseline-runtime``, a second runtime build (say main's, OpenBLAS on every size) the same
way. Each figure is the median over ``--repeats`` interleaved rounds of ``--calls`` calls; the
ratios are medians of per-round ratios. Both sides include their per-call Python overhead (ctypes
vs numpy's C entry point), about 0.3 µs here: this compares what a caller sees, not bare kernels.
Run with ``OPENBLAS_NUM_THREADS=1`` on a shared machine.
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PREFIX = "executorch_"
SHAPES = [(32, 96, 32), (32, 32, 32), (32, 128, 32), (32, 32, 128), (16, 16, 8), (16, 8, 16)]


def mm_call(runtime: Any, out: Any, a: Any, b: Any) -> Callable[[], None]:
    function = getattr(runtime.lib, PREFIX + "aoti_torch_cpu_mm_out")
    function.restype = ctypes.c_int32
    handles = [ctypes.c_void_p(runtime.tensor_from_array(x).value) for x in (out, a, b)]
    if function(*handles) != 0:
        raise SystemExit(runtime.lib.shimgen_runtime_last_error().decode())
    return lambda: function(*handles)  # the handles stay alive for the process: a benchmark


def main() -> int:
    import numpy as np

    from shimgen.aoti.runner import Runtime

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", type=Path, required=True, help="libshimgen_runtime.so (CPU)")
    parser.add_argument("--baseline-runtime", type=Path, help="a second build to compare with")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    runtimes = {"runtime": Runtime(args.runtime, PREFIX)}
    if args.baseline_runtime:
        runtimes["baseline"] = Runtime(args.baseline_runtime, PREFIX)
    rng = np.random.default_rng(0)
    print(f"per call (µs), median of {args.repeats} interleaved rounds x {args.calls} calls")
    print(f"{'m, n, k':>14} {'b':>3} {'runtime':>9} {'numpy':>9}" + (f" {'baseline':>9}" if args.baseline_runtime else "")
          + "  numpy/runtime" + ("  baseline/runtime" if args.baseline_runtime else ""))
    for m, n, k in SHAPES:
        for layout in ("nn", "nt"):
            a = rng.standard_normal((m, k)).astype(np.float32)
            b = (rng.standard_normal((k, n)) if layout == "nn" else rng.standard_normal((n, k)).T).astype(np.float32)
            outs = {name: np.zeros((m, n), np.float32) for name in (*runtimes, "numpy")}
            rows: dict[str, Callable[[], Any]] = {name: mm_call(rt, outs[name], a, b) for name, rt in runtimes.items()}
            rows["numpy"] = lambda a=a, b=b, o=outs["numpy"]: np.matmul(a, b, out=o)
            for name, out in outs.items():
                rows[name]()
                if not np.allclose(out, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-4):
                    raise SystemExit(f"{name} computed a wrong product for {(m, n, k)} {layout}")
            samples: dict[str, list[float]] = {name: [] for name in rows}
            for _ in range(args.repeats):
                for name, call in rows.items():
                    start = time.perf_counter()
                    for _ in range(args.calls):
                        call()
                    samples[name].append((time.perf_counter() - start) / args.calls * 1e6)
            med = {name: statistics.median(s) for name, s in samples.items()}
            ratio = {name: statistics.median(x / y for x, y in zip(s, samples["runtime"])) for name, s in samples.items()}
            line = f"{f'{m}x{n}x{k}':>14} {layout:>3} {med['runtime']:9.2f} {med['numpy']:9.2f}"
            if "baseline" in med:
                line += f" {med['baseline']:9.2f}"
            line += f"  {ratio['numpy']:13.2f}" + (f"  {ratio['baseline']:17.2f}" if "baseline" in med else "")
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
