"""Float tanh and erf: the runtime's vector code vs libtorch's own SLEEF vs the per-lane glibc path, one run.

    python benchmarks/vector_math.py [--runtime LIB] [--functions tanh,erf] [--elements 65536] [--repeats 15]

Per function and width (AVX-512 ``f16`` and AVX2 ``f8``, those this CPU runs), three rows:

  runtime          ``executorch_Sleef_<fn><w>_u10`` of the runtime (--runtime, else one is built)
  libtorch SLEEF   ``Sleef_<fn><w>_u10`` of the installed torch's libtorch_cpu.so
  glibc per lane   the runtime's path before this vector code, recreated in the loop library below:
                   the vector stored, ``tanhf``/``erff`` per lane, loaded back (what vector_math.cpp's
                   SHIMGEN_SLEEF_UNARY still does for the functions without vector code)

The entry points take and return vectors in registers, which ctypes cannot pass, so a small loop
library is compiled here with g++ and loaded with ctypes; it is handed each function's address
(``ctypes.cast`` of the symbol in its ``ctypes.CDLL``) and calls it over the whole input array,
one vector at a time, one thread. Inputs: ``--elements`` floats uniform in [-5, 5] (both of erf's
polynomials, tanh short of saturation), shuffled. Each figure is ns per element, the median of
``--repeats`` interleaved rounds (each ~20 ms of calls per row); each ratio is the median of per-round
ratios, other row / runtime (> 1: the runtime is faster). ``exp`` may be added to --functions (the
runtime's vector exp, for comparison). Results are checked first: the runtime within 1 ulp of the
correctly rounded result (the function in double, rounded once; glibc 2.36's own tanhf is up to 2 ulp
off it).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
PREFIX = "executorch_"

# One loop per width over an array, through a function pointer; the per-lane rows are defined
# here, with the target attributes the runtime's entry points carry.
LOOP = r"""
#include <immintrin.h>
#include <math.h>
#include <string.h>
#define AVX512 __attribute__((target("avx512f")))
#define AVX2 __attribute__((target("avx2,fma")))

#define LANES(NAME, TARGET, VEC, N, FN)                   \
  extern "C" TARGET VEC NAME(VEC a) {                     \
    float x[N];                                           \
    memcpy(x, &a, sizeof a);                              \
    for (int i = 0; i < N; ++i) x[i] = FN(x[i]);          \
    memcpy(&a, x, sizeof a);                              \
    return a;                                             \
  }
LANES(lanes_tanh16, AVX512, __m512, 16, tanhf)
LANES(lanes_erf16, AVX512, __m512, 16, erff)
LANES(lanes_exp16, AVX512, __m512, 16, expf)
LANES(lanes_tanh8, AVX2, __m256, 8, tanhf)
LANES(lanes_erf8, AVX2, __m256, 8, erff)
LANES(lanes_exp8, AVX2, __m256, 8, expf)

extern "C" AVX512 void loop16(void* fn, const float* in, float* out, long n, long passes) {
  __m512 (*f)(__m512) = (__m512 (*)(__m512))fn;
  for (long p = 0; p < passes; ++p)
    for (long i = 0; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, f(_mm512_loadu_ps(in + i)));
}
extern "C" AVX2 void loop8(void* fn, const float* in, float* out, long n, long passes) {
  __m256 (*f)(__m256) = (__m256 (*)(__m256))fn;
  for (long p = 0; p < passes; ++p)
    for (long i = 0; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, f(_mm256_loadu_ps(in + i)));
}
"""


def cpu_flags() -> set[str]:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def build_runtime(work: Path) -> Path:
    from shimgen.builder.builder import BuildOptions, build
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    options = BuildOptions(work / "runtime", cuda="off", jobs=min(os.cpu_count() or 2, 2))
    return build(load_config(default_config()), options).artifacts[0].path


def build_loop(work: Path) -> ctypes.CDLL:
    source, library = work / "loop.cpp", work / "loop.so"
    source.write_text(LOOP)
    subprocess.run(["g++", "-O2", "-std=c++17", "-shared", "-fPIC", str(source), "-o", str(library), "-lm"],
                   check=True, capture_output=True, text=True)
    return ctypes.CDLL(str(library))


def address(library: ctypes.CDLL, name: str) -> int:
    return ctypes.cast(getattr(library, name), ctypes.c_void_p).value


def ulp_distance(a, b):
    """Per-element distance in float ulps (bit patterns on one ordered integer line)."""
    import numpy as np

    def ordered(x):
        bits = x.view(np.int32).astype(np.int64)
        return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)

    return np.abs(ordered(a) - ordered(b))


def exact(function: str, x):
    """The function in double, rounded once to float."""
    import math

    import numpy as np

    wide = x.astype(np.float64)
    if function == "erf":
        return np.array([math.erf(v) for v in wide]).astype(np.float32)
    return getattr(np, function)(wide).astype(np.float32)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runtime", type=Path, help="libshimgen_runtime.so (CPU; default: build one)")
    parser.add_argument("--functions", default="tanh,erf", help="comma-separated, of tanh, erf, exp")
    parser.add_argument("--elements", type=int, default=65536)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args(argv)
    functions = args.functions.split(",")
    if not set(functions) <= {"tanh", "erf", "exp"} or args.elements < 16 or args.repeats < 1:
        parser.error("--functions of tanh, erf, exp; --elements >= 16; --repeats >= 1")
    flags = cpu_flags()
    widths = [w for w, needed in (("f16", {"avx512f"}), ("f8", {"avx2", "fma"})) if needed <= flags]
    if not widths:
        print("vector_math.py: this CPU has neither AVX-512F nor AVX2 with FMA", file=sys.stderr)
        return 2
    import numpy as np
    import torch

    libtorch = ctypes.CDLL(str(Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"))
    rng = np.random.default_rng(0)
    inputs = rng.permutation(np.linspace(-5, 5, args.elements, dtype=np.float32))
    out = np.empty_like(inputs)
    with tempfile.TemporaryDirectory() as scratch:
        runtime = ctypes.CDLL(str(args.runtime or build_runtime(Path(scratch))))
        loop_library = build_loop(Path(scratch))
        print(f"ns per element, median of {args.repeats} interleaved rounds; {args.elements} floats in [-5, 5]; "
              f"torch {torch.__version__}")
        print(f"{'function':>20} {'runtime':>8} {'SLEEF':>8} {'glibc/lane':>10}  {'SLEEF/runtime':>13} "
              f"{'glibc/runtime':>13}")
        for width in widths:
            lanes = 16 if width == "f16" else 8
            loop = getattr(loop_library, f"loop{lanes}")
            loop.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long, ctypes.c_long]
            for function in functions:
                name = f"Sleef_{function}{width}_u10"
                rows = {"runtime": address(runtime, PREFIX + name), "sleef": address(libtorch, name),
                        "glibc": address(loop_library, f"lanes_{function}{lanes}")}
                results = {}
                for row, fn in rows.items():
                    loop(fn, inputs.ctypes.data, out.ctypes.data, len(inputs), 1)
                    results[row] = out.copy()
                far = int(ulp_distance(results["runtime"], exact(function, inputs)).max())
                if far > 1:
                    raise SystemExit(f"{name}: the runtime is {far} ulp from the correctly rounded {function}")
                start = time.perf_counter()
                loop(rows["runtime"], inputs.ctypes.data, out.ctypes.data, len(inputs), 1)
                passes = max(1, int(0.02 / max(time.perf_counter() - start, 1e-7)))
                samples: dict[str, list[float]] = {row: [] for row in rows}
                for _ in range(args.repeats):
                    for row, fn in rows.items():
                        start = time.perf_counter()
                        loop(fn, inputs.ctypes.data, out.ctypes.data, len(inputs), passes)
                        samples[row].append((time.perf_counter() - start) / passes / len(inputs) * 1e9)
                med = {row: statistics.median(s) for row, s in samples.items()}
                ratio = {row: statistics.median(x / y for x, y in zip(s, samples["runtime"]))
                         for row, s in samples.items()}
                print(f"{name:>20} {med['runtime']:8.3f} {med['sleef']:8.3f} {med['glibc']:10.3f}  "
                      f"{ratio['sleef']:13.2f} {ratio['glibc']:13.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
