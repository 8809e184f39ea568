"""Per-call latency of a zoo model on shimgen's runtime vs eager torch vs torch's own loader, one run.

    python benchmarks/model_latency.py [--device cpu|cuda] [--model transformer_block] [--runtime LIB]
                                       [--calls 500] [--repeats 9] [--threads N] [--work DIR]

The model (default: the transformer block of tests/aoti_zoo.py: LayerNorm, QKV Linear, causal SDPA,
MLP with SiLU, residuals; input [2, 16, 32] float32) is compiled by the installed torch twice: with
``link_libtorch=False`` then ``shimgen prefix-imports`` for the runtime, and with libtorch linked
(the default) for ``torch._inductor.aoti_load_package``. Compiles are cached (tests/aoti_zoo.py).

Rows, all in this process (libtorch and the runtime side by side):
  shimgen Model.run_handles     ctypes: input handles made once, the output handle freed each call
  eager torch                   the same nn.Module under torch.no_grad()
  torch aoti_load_package       the libtorch-linked package, torch tensors in and out
plus ``shimgen native loop``: a C++ program calling shimgen_model_run in a loop (no Python), in a
child process. On CUDA every call is followed by a synchronisation of the stream it ran on (one
non-blocking stream for all rows), so a call's time is its whole GPU work.

The machine this was written on is shared and noisy, so the three in-process rows are measured
interleaved: each of ``--repeats`` rounds times one batch of ``--calls`` calls of every row in
turn; a row's figure is the median over rounds, and each ratio is the median of the per-round
ratios, printed beside the ratio of the rows' fastest rounds (on a loaded machine the least
disturbed round of each row is the closest to its quiet cost). torch's loader is first tried in a child process; when it crashes (FACTS.md: torch 2.11+cu130
segfaulted loading CUDA packages) its row says so instead of taking this process down.

On the CPU both packages are compiled vectorized (``SHIMGEN_ZOO_VEC=on``, the code torch's loader
gets from a default, libtorch-linked build) unless ``SHIMGEN_ZOO_VEC`` says otherwise (``off``: both
scalar); the header line names each package's ISA.

``--threads N`` sets OMP_NUM_THREADS and OPENBLAS_NUM_THREADS (the model's generated kernels and the
runtime's BLAS) and torch.set_num_threads(N); without it every library keeps its default.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

# The native loop: the runtime's own per-call cost, no Python. CUDA functions are looked up in the
# process (the runtime links libcudart), so the driver needs no CUDA headers or toolkit.
DRIVER = r"""
#include <dlfcn.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
extern "C" {
typedef struct shimgen_model shimgen_model;
int32_t shimgen_model_open(const char*, const char*, const char*, size_t, shimgen_model**);
int32_t shimgen_model_run(shimgen_model*, void* const*, size_t, void**, size_t, void*);
int32_t shimgen_model_close(shimgen_model*);
int32_t shimgen_model_num_outputs(shimgen_model*, size_t*);
const char* shimgen_model_last_error(void);
const char* shimgen_runtime_last_error(void);
int32_t PREFIXaoti_torch_create_tensor_from_blob_v2(void*, int64_t, const int64_t*, const int64_t*, int64_t, int32_t,
                                                   int32_t, int32_t, void**, int32_t, const uint8_t*, int64_t);
int32_t PREFIXaoti_torch_empty_strided(int64_t, const int64_t*, const int64_t*, int32_t, int32_t, int32_t, void**);
int32_t PREFIXaoti_torch_copy_(void*, void*, int32_t);
int32_t PREFIXaoti_torch_delete_tensor_object(void*);
}
// argv: model calls repeats device(cpu|cuda:0) then per input: path-of-raw-data dtype itemsize ndim sizes...
int main(int argc, char** argv) {
  const int calls = std::atoi(argv[2]), repeats = std::atoi(argv[3]);
  const std::string device = argv[4];
  const bool cuda = device != "cpu";
  shimgen_model* model = nullptr;
  if (shimgen_model_open(argv[1], nullptr, device.c_str(), 1, &model) != 0) { std::puts(shimgen_model_last_error()); return 1; }
  using SyncFn = int (*)();
  SyncFn sync = cuda ? reinterpret_cast<SyncFn>(dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize")) : nullptr;
  if (cuda && sync == nullptr) { std::puts("cudaDeviceSynchronize not found in the process"); return 1; }
  size_t outputs = 0;
  if (shimgen_model_num_outputs(model, &outputs) != 0) { std::puts(shimgen_model_last_error()); return 1; }
  std::vector<std::vector<unsigned char>> data;
  std::vector<void*> in;
  for (int a = 5; a < argc;) {
    const char* path = argv[a++];
    // The dtype's code is asked of the runtime (its exported getter), as shimgen's Python side does.
    using DtypeFn = int32_t (*)();
    auto dtype_of = reinterpret_cast<DtypeFn>(dlsym(RTLD_DEFAULT, (std::string("PREFIXaoti_torch_dtype_") + argv[a++]).c_str()));
    const size_t itemsize = std::strtoull(argv[a++], nullptr, 10);
    if (dtype_of == nullptr) { std::puts("unknown dtype"); return 1; }
    const int64_t ndim = std::atoll(argv[a++]);
    std::vector<int64_t> sizes(ndim), strides(ndim);
    int64_t n = 1;
    for (int64_t d = 0; d < ndim; ++d) n *= (sizes[d] = std::atoll(argv[a++]));
    for (int64_t d = ndim, s = 1; d-- > 0; s *= sizes[d]) strides[d] = s;
    data.emplace_back(n * itemsize);
    FILE* f = std::fopen(path, "rb");
    if (!f || std::fread(data.back().data(), itemsize, n, f) != static_cast<size_t>(n)) { std::puts("bad input"); return 1; }
    std::fclose(f);
    void* host = nullptr;
    PREFIXaoti_torch_create_tensor_from_blob_v2(data.back().data(), ndim, sizes.data(), strides.data(), 0, dtype_of(), 0, 0, &host, 0, nullptr, 0);
    if (!cuda) { in.push_back(host); continue; }
    void* dev = nullptr;
    if (PREFIXaoti_torch_empty_strided(ndim, sizes.data(), strides.data(), dtype_of(), 1, 0, &dev) != 0 ||
        PREFIXaoti_torch_copy_(dev, host, 0) != 0) { std::puts(shimgen_runtime_last_error()); return 1; }
    PREFIXaoti_torch_delete_tensor_object(host);
    in.push_back(dev);
  }
  for (int r = -1; r < repeats; ++r) {  // round -1 warms up
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) {
      std::vector<void*> out(outputs, nullptr);
      if (shimgen_model_run(model, in.data(), in.size(), out.data(), outputs, nullptr) != 0) { std::puts(shimgen_model_last_error()); return 1; }
      if (sync) sync();
      for (void* o : out) PREFIXaoti_torch_delete_tensor_object(o);
    }
    std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    if (r >= 0) std::printf("%.4f\n", took.count() / calls);
  }
  for (void* t : in) PREFIXaoti_torch_delete_tensor_object(t);
  shimgen_model_close(model);
  return 0;
}
"""

# Tried in a child first: does torch's own loader survive loading and running the package?
PROBE = """
import sys, torch
runner = torch._inductor.aoti_load_package(sys.argv[1])
specs = [s.split(":") for s in sys.argv[3:]]  # "2x16x32:float32"
x = [torch.zeros(*map(int, shape.split("x")), dtype=getattr(torch, dtype), device=sys.argv[2]) for shape, dtype in specs]
runner(*x)
print("ok")
"""


def cpu_isa(pt2: Path) -> str:
    """The package's AOTI_CPU_ISA (wrapper_metadata.json): INVALID_VEC_ISA means scalar code."""
    with zipfile.ZipFile(pt2) as archive:
        for member in archive.namelist():
            if member.endswith("wrapper_metadata.json"):
                return json.loads(archive.read(member)).get("AOTI_CPU_ISA", "?") or "?"
    return "?"


def build_runtime(work: Path, device: str) -> Path:
    from shimgen.builder.builder import BuildOptions, build
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    cuda = "on" if device == "cuda" else "off"
    result = build(load_config(default_config()), BuildOptions(work / f"runtime-{device}", cuda=cuda, jobs=os.cpu_count() or 2))
    return result.artifacts[0].path


def interleaved(rows: dict[str, Callable[[], None]], sync: Callable[[], None], calls: int,
                repeats: int) -> dict[str, list[float]]:
    """Microseconds per call of every row, one batch of each per round, rounds interleaved."""
    samples: dict[str, list[float]] = {name: [] for name in rows}
    for call in rows.values():  # warm every path: first calls allocate, page in and resolve
        for _ in range(max(10, calls // 10)):
            call()
            sync()
    for _ in range(repeats):
        for name, call in rows.items():
            start = time.perf_counter()
            for _ in range(calls):
                call()
                sync()
            samples[name].append((time.perf_counter() - start) / calls * 1e6)
    return samples


def native_loop(runtime: Path, prefixed: Path, inputs: list[Any], device: str, prefix: str, calls: int,
                repeats: int, work: Path) -> list[float] | str:
    """The C++ driver's per-call samples, or why there are none."""
    import numpy as np

    source = work / "driver.cpp"
    source.write_text(DRIVER.replace("PREFIX", prefix))
    driver = work / "driver"
    built = subprocess.run(["g++", "-O2", "-std=c++17", str(source), "-o", str(driver), str(runtime), "-ldl",
                            f"-Wl,-rpath,{runtime.parent}"], capture_output=True, text=True, check=False)
    if built.returncode != 0:
        return f"driver did not build: {built.stderr.strip().splitlines()[-1:]}"
    argv = [str(driver), str(prefixed), str(calls), str(repeats), "cuda:0" if device == "cuda" else "cpu"]
    for i, array in enumerate(inputs):
        raw = work / f"in{i}.raw"
        np.ascontiguousarray(array).tofile(raw)
        argv += [str(raw), array.dtype.name, str(array.dtype.itemsize), str(array.ndim), *map(str, array.shape)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0:
        return f"driver failed (exit {done.returncode}): {(done.stdout + done.stderr).strip()[-300:]}"
    return [float(v) for v in done.stdout.split()]


def probe_loader(package: Path, device: str, inputs: list[Any]) -> str:
    """'' when torch's loader loads and runs the package in a child process, else what happened."""
    specs = [f"{'x'.join(map(str, a.shape))}:{a.dtype.name}" for a in inputs]
    argv = [sys.executable, "-c", PROBE, str(package), device, *specs]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=900)
    if done.returncode == 0 and done.stdout.strip().endswith("ok"):
        return ""
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return f"crashed or failed in a child process (exit {done.returncode}): {tail[:200]}"


def first(result: Any) -> Any:
    """A model's first output (the one compared; every output is timed)."""
    return result[0] if isinstance(result, (list, tuple)) else result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--model", default="transformer_block", help="a tests/aoti_zoo.py model (default: %(default)s)")
    parser.add_argument("--runtime", type=Path, help="libshimgen_runtime.so built for --device (default: build one)")
    parser.add_argument("--calls", type=int, default=500, help="calls per batch (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=9, help="interleaved rounds (default: %(default)s)")
    parser.add_argument("--threads", type=int, help="threads for torch, OpenMP and OpenBLAS (default: theirs)")
    parser.add_argument("--work", type=Path, help="scratch directory (default: a new temporary one)")
    args = parser.parse_args(argv)
    if args.calls < 1 or args.repeats < 1:
        parser.error("--calls and --repeats must be positive")
    if args.threads is not None:
        if args.threads < 1:
            parser.error("--threads must be positive")
        # Read when the libraries load (the model's libgomp loads with the model): set them first.
        os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)

    import aoti_zoo

    if args.model not in aoti_zoo.models():
        parser.error(f"--model: {args.model!r} is not in the zoo (tests/aoti_zoo.py models(); e.g. "
                     f"{', '.join(sorted(aoti_zoo.ZOO))})")
    if aoti_zoo.models()[args.model].dims:
        parser.error(f"--model: {args.model!r} has dynamic dims; this benchmark times one static shape")

    import numpy as np
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        print("model_latency.py --device cuda: this torch sees no CUDA device "
              f"(torch {torch.__version__}, CUDA build {torch.version.cuda or 'none'}); run it on the GPU machine",
              file=sys.stderr)
        return 2
    if args.threads is not None:
        torch.set_num_threads(args.threads)

    from shimgen.aoti.prefix_imports import prefix_imports_with_config
    from shimgen.aoti.runner import Model, Runtime
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    work = args.work or Path(tempfile.mkdtemp(prefix="shimgen-latency-"))
    work.mkdir(parents=True, exist_ok=True)
    config = load_config(default_config())
    # Both packages get the code torch's loader gets by default: its libtorch-linked build in a fresh
    # inductor cache is vectorized (AVX-512 here), while a link_libtorch=False build in a fresh cache
    # falls back to scalar code (docs/aoti.md, "Vectorized CPU models import SLEEF"). Comparing the
    # runtime on scalar code with the loader on vector code would measure inductor, not the runtimes.
    # SHIMGEN_ZOO_VEC=off measures both scalar.
    if args.device == "cpu":
        os.environ.setdefault("SHIMGEN_ZOO_VEC", "on")
    plain = aoti_zoo.ensure_compiled([args.model], device=args.device)[args.model]
    linked = aoti_zoo.ensure_compiled([args.model], device=args.device, link_libtorch=True)[args.model]
    prefixed = work / f"{args.model}.{args.device}.prefixed.pt2"
    prefix_imports_with_config(plain / "model.pt2", prefixed, config)
    runtime_path = args.runtime or build_runtime(work, args.device)
    inputs = [np.load(p) for p in aoti_zoo.inputs_of(plain)]
    expected = np.load(aoti_zoo.expected_of(plain)[0])
    atol = max(aoti_zoo.models()[args.model].atol, 5e-5 if args.device == "cuda" else 0.0)

    loader_problem = probe_loader(linked / "model.pt2", args.device, inputs)
    rt = Runtime(runtime_path, config.prefix)
    device = "cuda:0" if args.device == "cuda" else "cpu"
    stream = torch.cuda.Stream() if args.device == "cuda" else None
    raw_stream = stream.cuda_stream if stream is not None else None
    sync: Callable[[], None] = stream.synchronize if stream is not None else (lambda: None)

    # The zoo's own model, seeded (and quantized, for its int8 models) as its compile made it: the same
    # weights as the packages.
    module = aoti_zoo.eager_module(args.model, device)
    tensors = [torch.from_numpy(a).to(device) for a in inputs]

    with Model(rt, prefixed, device=device) as model:
        with rt.caller_stream(raw_stream):
            host = [rt.tensor_from_array(np.ascontiguousarray(a)) for a in inputs]
            handles = host if args.device == "cpu" else [rt.copy_to(h, rt.cuda, 0) for h in host]
        got = model.run([np.ascontiguousarray(a) for a in inputs], stream=raw_stream)[0]
        error = float(np.abs(got.astype(np.float64) - expected).max())
        assert error <= atol, f"shimgen's result differs from eager by {error:.3g} (tolerance {atol:g})"

        def shimgen_call() -> None:
            for out in model.run_handles(handles, raw_stream):
                rt.delete(out)

        rows: dict[str, Callable[[], None]] = {"shimgen Model.run_handles (ctypes)": shimgen_call}
        with torch.no_grad():
            eager_out = first(module(*tensors))
            assert np.allclose(eager_out.cpu().numpy(), expected, atol=atol), "eager differs from the zoo's eager output"
            rows["eager torch (no_grad)"] = lambda: module(*tensors)
            runner = None
            if not loader_problem:
                runner = torch._inductor.aoti_load_package(str(linked / "model.pt2"))
                reference = first(runner(*tensors))
                assert np.allclose(reference.cpu().numpy(), expected, atol=atol), "torch's loader differs from eager"
                rows["torch aoti_load_package"] = lambda: runner(*tensors)
            if stream is not None:
                # torch's rows on the stream, and the runtime's work (its output frees included) on
                # it too: a free on the stream that allocated needs no cross-stream event.
                with torch.cuda.stream(stream), rt.caller_stream(raw_stream):
                    samples = interleaved(rows, sync, args.calls, args.repeats)
            else:
                samples = interleaved(rows, sync, args.calls, args.repeats)
        for h in handles if args.device == "cpu" else [*handles, *host]:
            rt.delete(h)

    native = native_loop(runtime_path, prefixed, inputs, args.device, config.prefix, args.calls, args.repeats, work)

    ours = samples["shimgen Model.run_handles (ctypes)"]
    threads = (f"torch threads {torch.get_num_threads()}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'default')}, "
               f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'default')}")
    where = torch.cuda.get_device_name(0) if args.device == "cuda" else f"{os.cpu_count()} CPU(s)"
    print(f"{args.model} {[list(a.shape) for a in inputs]} on {args.device} ({where}); torch {torch.__version__}; {threads}")
    if args.device == "cpu":  # scalar or vectorized code changes both packages' cost (docs/aoti.md, SLEEF)
        print(f"inductor CPU code: runtime's package {cpu_isa(plain / 'model.pt2')}, loader's {cpu_isa(linked / 'model.pt2')}"
              f" (SHIMGEN_ZOO_VEC={aoti_zoo.vec_mode() or 'unset'})")
    print(f"per call (us), median of {args.repeats} interleaved rounds x {args.calls} calls"
          + ("; each call followed by a stream sync" if args.device == "cuda" else ""))
    table: list[tuple[str, list[float] | str]] = [(name, values) for name, values in samples.items()]
    if loader_problem:
        table.append(("torch aoti_load_package", loader_problem))
    table.append(("shimgen native loop (C++, no Python)", native))
    for name, values in table:
        if isinstance(values, str):
            print(f"  {name:<40} {values}")
        else:
            print(f"  {name:<40} {statistics.median(values):9.2f}   [{min(values):.2f} .. {max(values):.2f}]")
    goals = {"torch aoti_load_package": 0.5, "eager torch (no_grad)": 1.0}
    for name, goal in goals.items():
        if name in samples:
            ratio = statistics.median(o / t for o, t in zip(ours, samples[name]))
            fastest = min(ours) / min(samples[name])
            verdict = "met" if ratio <= goal else "not met"
            print(f"ratio shimgen / {name}: {ratio:.2f} (median of per-round ratios; goal <= {goal}: {verdict}); "
                  f"fastest rounds {fastest:.2f} (each row's fastest round: the least disturbed by other load)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
