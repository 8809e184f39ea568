"""Per-call latency of one small AOTInductor model: shimgen's runtime vs torch's own loader, one run.

    python benchmarks/model_latency.py [--runtime LIB] [--calls 2000] [--repeats 5] [--work DIR]

The model is the pointwise one, ``(x.sin() * 2 + y).relu()`` on two 8x16 float32 inputs. It is
compiled twice by the installed torch: with libtorch linked (the default) for
``torch._inductor.aoti_load_package``, and with ``link_libtorch=False`` then ``shimgen
prefix-imports`` for shimgen's runtime. Both run in this process, libtorch and the runtime side by
side. Each figure is the median over ``--repeats`` batches of ``--calls`` calls, in microseconds.

Rows:
  torch  aoti_load_package runner(x, y)       torch tensors in and out (pybind11)
  shimgen  native loop                         a C++ loop calling shimgen_model_run (no Python)
  shimgen  Model.run_handles                    ctypes, existing input handles, output handle freed
  shimgen  Model.run (numpy in/out)             plus numpy -> tensor handles and output copy to numpy
The ratio printed is shimgen (handles, from Python) over torch (tensors, from Python): the like-for-
like pair. The native row shows how much of shimgen's time is the model and loader themselves.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DRIVER = r"""
// Times shimgen_model_run in a loop: the runtime's native per-call cost, no Python.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
extern "C" {
typedef struct shimgen_model shimgen_model;
int32_t shimgen_model_open(const char*, const char*, const char*, size_t, shimgen_model**);
int32_t shimgen_model_run(shimgen_model*, void* const*, size_t, void**, size_t, void*);
int32_t shimgen_model_close(shimgen_model*);
const char* shimgen_model_last_error(void);
int32_t PREFIXaoti_torch_create_tensor_from_blob_v2(void*, int64_t, const int64_t*, const int64_t*, int64_t, int32_t,
                                                   int32_t, int32_t, void**, int32_t, const uint8_t*, int64_t);
int32_t PREFIXaoti_torch_delete_tensor_object(void*);
}
int main(int argc, char** argv) {
  const int calls = std::atoi(argv[2]), repeats = std::atoi(argv[3]);
  shimgen_model* model = nullptr;
  if (shimgen_model_open(argv[1], nullptr, "cpu", 1, &model) != 0) { std::puts(shimgen_model_last_error()); return 1; }
  std::vector<float> x(128, 0.5f), y(128, -0.25f);
  const int64_t sizes[2] = {8, 16}, strides[2] = {16, 1};
  void* in[2];
  PREFIXaoti_torch_create_tensor_from_blob_v2(x.data(), 2, sizes, strides, 0, 6, 0, 0, &in[0], 0, nullptr, 0);
  PREFIXaoti_torch_create_tensor_from_blob_v2(y.data(), 2, sizes, strides, 0, 6, 0, 0, &in[1], 0, nullptr, 0);
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) {
      void* out = nullptr;
      if (shimgen_model_run(model, in, 2, &out, 1, nullptr) != 0) { std::puts(shimgen_model_last_error()); return 1; }
      PREFIXaoti_torch_delete_tensor_object(out);
    }
    std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    std::printf("%.4f\n", took.count() / calls);
  }
  PREFIXaoti_torch_delete_tensor_object(in[0]);
  PREFIXaoti_torch_delete_tensor_object(in[1]);
  shimgen_model_close(model);
  return 0;
}
"""

SOURCE = """
import sys, torch
import torch._inductor.config as c
c.aot_inductor.link_libtorch = sys.argv[2] != "free"
class M(torch.nn.Module):
    def forward(self, x, y):
        return (x.sin() * 2 + y).relu()
args = (torch.randn(8, 16), torch.randn(8, 16))
torch._inductor.aoti_compile_and_package(torch.export.export(M(), args), package_path=sys.argv[1])
"""


def median_us(fn, calls: int, repeats: int) -> tuple[float, list[float]]:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples), samples


def compile_model(path: Path, mode: str) -> None:
    if path.exists():
        return
    # A fresh process (the setting is global) and a private inductor cache per variant.
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(path.with_suffix(".inductor-cache"))}
    subprocess.run([sys.executable, "-c", SOURCE, str(path), mode], check=True, stderr=subprocess.DEVNULL, env=env)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runtime", type=Path, help="libshimgen_runtime.so (default: $SHIMGEN_RUNTIME or build/)")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--work", type=Path, help="where the compiled models are kept (reused when present)")
    args = parser.parse_args()

    from shimgen.aoti.capi import Runtime
    from shimgen.aoti.prefix_imports import prefix_imports_with_config
    from shimgen.aoti.runner import Model, find_runtime
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    work = args.work or Path(tempfile.mkdtemp(prefix="shimgen-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    linked, free, rewritten = work / "linked.pt2", work / "free.pt2", work / "free.prefixed.pt2"
    compile_model(linked, "linked")
    compile_model(free, "free")
    config = load_config(default_config())
    if not rewritten.exists():
        prefix_imports_with_config(free, rewritten, config)
    runtime_path = find_runtime(args.runtime, REPO)

    import numpy as np
    import torch

    torch.set_num_threads(1)
    x, y = torch.randn(8, 16), torch.randn(8, 16)
    runner = torch._inductor.aoti_load_package(str(linked))
    expected = (x.sin() * 2 + y).relu()

    runtime = Runtime(runtime_path, config.prefix)
    model = Model(runtime, rewritten)
    xs, ys = x.numpy(), y.numpy()
    got = model.run([xs, ys])[0]
    assert np.allclose(got, expected.numpy(), atol=1e-6, rtol=0), "shimgen's result differs from eager"
    reference = runner(x, y)
    reference = reference[0] if isinstance(reference, (list, tuple)) else reference
    assert torch.allclose(reference, expected, atol=1e-6), "torch's loader result differs from eager"

    handles = [runtime.tensor_from_array(xs), runtime.tensor_from_array(ys)]

    def shimgen_handles() -> None:
        for out in model.run_handles(handles):
            runtime.delete(out)

    rows = []
    for _ in range(2):  # warm both paths (first calls allocate, page in, and resolve)
        runner(x, y)
        shimgen_handles()
    torch_us, torch_all = median_us(lambda: runner(x, y), args.calls, args.repeats)
    handles_us, handles_all = median_us(shimgen_handles, args.calls, args.repeats)
    numpy_us, numpy_all = median_us(lambda: model.run([xs, ys]), args.calls, args.repeats)
    ctypes_us, _ = median_us(runtime.lib.shimgen_runtime_shim_call_count, args.calls, args.repeats)

    # The native loop, compiled against the runtime here.
    driver_src = work / "driver.cpp"
    driver_src.write_text(DRIVER.replace("PREFIX", config.prefix))
    driver = work / "driver"
    subprocess.run(["g++", "-O2", "-std=c++17", str(driver_src), "-o", str(driver), str(runtime_path),
                    f"-Wl,-rpath,{runtime_path.parent}"], check=True)
    native = subprocess.run([str(driver), str(rewritten), str(args.calls), str(args.repeats)], check=True,
                            capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    native_all = [float(v) for v in native.stdout.split()]
    native_us = statistics.median(native_all)
    for h in handles:
        runtime.delete(h)
    model.close()

    rows = [
        ("torch   aoti_load_package runner(x, y)", torch_us, torch_all),
        ("shimgen native loop (C++, no Python)", native_us, native_all),
        ("shimgen Model.run_handles (ctypes)", handles_us, handles_all),
        ("shimgen Model.run (numpy in/out)", numpy_us, numpy_all),
        ("ctypes: one empty C call", ctypes_us, []),
    ]
    print(f"model (x.sin()*2+y).relu(), 8x16 float32; median of {args.repeats} x {args.calls} calls; torch "
          f"{torch.__version__}, {torch.get_num_threads()} thread(s)")
    for label, value, samples in rows:
        spread = f"  [{min(samples):.2f} .. {max(samples):.2f}]" if samples else ""
        print(f"  {label:42s} {value:8.2f} us{spread}")
    print(f"ratio shimgen (run_handles) / torch (runner): {handles_us / torch_us:.2f}")
    print(f"ratio shimgen native / torch (runner):        {native_us / torch_us:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
