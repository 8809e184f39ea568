"""The CUDA half of issue 8, run by scripts/gpu_aoti_cuda.sh on a machine with torch+CUDA, nvcc and a GPU.

    python scripts/gpu_aoti_cuda.py compile WORK          # torch: compile for CUDA (link_libtorch=False) + eager
    python scripts/gpu_aoti_cuda.py run WORK RUNTIME      # no torch: run the prefixed models on the runtime
    python scripts/gpu_aoti_cuda.py zoo WORK RUNTIME      # no torch: the six zoo models (WORK/zoo.json), latency
    python scripts/gpu_aoti_cuda.py torch-baseline WORK   # eager torch and torch's own loader (libtorch-linked)

Each phase is its own process: the run phase must not import torch (it is the no-torch deployment),
and the torch baseline may crash (FACTS.md: aoti_load_package segfaulted on torch 2.11+cu130).
"""

from __future__ import annotations

import ctypes
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

MODELS = {
    # name: (forward body, input shapes)
    "pointwise": ("return (x.sin() * 2 + y).relu()", [(8, 16), (8, 16)]),
    "reduction": ("return x.sum(dim=1) + x.amax(dim=0).sum()", [(64, 128)]),
}
TOLERANCE = 1e-5
CALLS, REPEATS = 500, 5


def _module(torch, body: str, n: int):
    namespace: dict = {"torch": torch}
    args = ", ".join(("x", "y")[:n])
    exec(f"class M(torch.nn.Module):\n    def forward(self, {args}):\n        {body}\n", namespace)
    return namespace["M"]()


def compile_phase(work: Path, link_libtorch: bool = False, suffix: str = "") -> None:
    import numpy as np
    import torch
    import torch._inductor.config as config

    config.aot_inductor.link_libtorch = link_libtorch
    torch.manual_seed(0)
    for name, (body, shapes) in MODELS.items():
        module = _module(torch, body, len(shapes)).cuda()
        inputs = tuple(torch.randn(*s, device="cuda") for s in shapes)
        with torch.no_grad():
            eager = module(*inputs)
        program = torch.export.export(module, inputs)
        torch._inductor.aoti_compile_and_package(program, package_path=str(work / f"{name}{suffix}.pt2"))
        if suffix:
            continue
        for i, t in enumerate(inputs):
            np.save(work / f"{name}.in{i}.npy", t.cpu().numpy())
        np.save(work / f"{name}.out0.npy", eager.cpu().numpy())
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, {torch.cuda.get_device_name(0)}")


def _cudart() -> ctypes.CDLL:
    # CUDA models import cudaMalloc & co. with no DT_NEEDED on libcudart: the process must have it
    # in its global scope before the model is loaded.
    for name in ("libcudart.so.13", "libcudart.so.12", "libcudart.so", "/usr/local/cuda/lib64/libcudart.so"):
        try:
            return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            continue
    raise SystemExit("libcudart not found")


def run_phase(work: Path, runtime_path: Path) -> int:
    import numpy as np
    from aoti_models import bound_library

    from shimgen.aoti.prefix_imports import read_dynamic_symbols
    from shimgen.aoti.runner import Model, Runtime

    assert "torch" not in sys.modules
    cudart = _cudart()
    stream = ctypes.c_void_p()
    assert cudart.cudaStreamCreateWithFlags(ctypes.byref(stream), 1) == 0  # cudaStreamNonBlocking
    rt = Runtime(runtime_path, "executorch_")
    failures = 0
    for name in MODELS:
        prefixed = work / f"{name}.prefixed.pt2"
        inputs = [np.load(work / f"{name}.in{i}.npy") for i in range(len(MODELS[name][1]))]
        expected = np.load(work / f"{name}.out0.npy")
        with Model(rt, prefixed, device="cuda:0") as model:
            imports = {s.name for s in read_dynamic_symbols(model.so_path) if not s.defined}
            shims = {n for n in imports if "aoti_torch_" in n}
            before = rt.shim_call_count()
            got = model.run(inputs, stream=stream.value)[0]
            served = rt.shim_call_count() - before
            bound = sorted(set(bound_library(str(model.so_path), shims).values()))
            error = float(np.abs(got.astype(np.float64) - expected).max())
            ok = error <= TOLERANCE and served > 0 and [Path(b).resolve() for b in bound] == [runtime_path.resolve()]
            failures += not ok
            print(f"[{'PASS' if ok else 'FAIL'}] {name}: max |runtime - eager| = {error:.3g} (tolerance {TOLERANCE}); "
                  f"runtime served {served} shim calls; shim slots bound to {bound}")
            print(f"    imports {len(shims)} prefixed shims: {', '.join(sorted(n.removeprefix('executorch_') for n in shims))}")
            print(f"    imports CUDA runtime: {', '.join(sorted(n for n in imports if n.startswith('cuda')))}")

            # Per-call latency on the caller's stream: device inputs made once, synchronize every call.
            host = [rt.tensor_from_array(np.ascontiguousarray(a)) for a in inputs]
            with rt.caller_stream(stream.value):
                device = [rt.copy_to(h, rt.cuda, 0) for h in host]
            samples = []
            for _ in range(REPEATS):
                start = time.perf_counter()
                for _ in range(CALLS):
                    with rt.caller_stream(stream.value):
                        for out in model.run_handles(device, stream.value):
                            rt.delete(out)
                    cudart.cudaStreamSynchronize(stream)
                samples.append((time.perf_counter() - start) / CALLS * 1e6)
            for h in [*host, *device]:
                rt.delete(h)
            print(f"    shimgen per call (run_handles + stream sync): {statistics.median(samples):.2f} us "
                  f"(median of {REPEATS} x {CALLS})")
            (work / f"{name}.shimgen_us").write_text(f"{statistics.median(samples):.4f}")
    return 1 if failures else 0


CUDA_ATOL = 5e-5  # our cuBLAS GEMMs / attention kernel vs torch's kernels: a float32 floor


def _time_calls(call, sync) -> float:
    call()
    sync()
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(CALLS):
            call()
            sync()
        samples.append((time.perf_counter() - start) / CALLS * 1e6)
    return statistics.median(samples)


def zoo_phase(work: Path, runtime_path: Path) -> int:
    """The zoo models (compiled by the sh script into WORK/zoo.json's directories), in a process that
    holds numpy, LIEF (prefix-imports runs in it) and ctypes-loaded libcudart: the shape that crashed."""
    import aoti_zoo
    import numpy as np
    from aoti_models import bound_library

    from shimgen.aoti.prefix_imports import (
        prefix_imports_with_config,
        read_dynamic_symbols,
    )
    from shimgen.aoti.runner import Model, Runtime
    from shimgen.project.config import load_config

    assert "torch" not in sys.modules
    cudart = _cudart()
    stream = ctypes.c_void_p()
    assert cudart.cudaStreamCreateWithFlags(ctypes.byref(stream), 1) == 0
    config = load_config(REPO / "shimgen" / "runtime" / "shimgen.toml")
    rt = Runtime(runtime_path, config.prefix)
    failures = 0
    for name, directory in json.loads((work / "zoo.json").read_text()).items():
        directory = Path(directory)
        target = work / f"zoo.{name}.prefixed.pt2"
        result = prefix_imports_with_config(directory / "model.pt2", target, config)
        inputs = [np.load(p) for p in aoti_zoo.inputs_of(directory)]
        expected = [np.load(p) for p in aoti_zoo.expected_of(directory)]
        tolerance = max(aoti_zoo.ZOO[name].atol, CUDA_ATOL)
        with Model(rt, target, device="cuda:0") as model:
            shims = {s.name for s in read_dynamic_symbols(model.so_path) if not s.defined and "aoti_torch_" in s.name}
            before = rt.shim_call_count()
            got = model.run(inputs, stream=stream.value)
            served = rt.shim_call_count() - before
            bound = sorted({str(Path(b).resolve()) for b in bound_library(str(model.so_path), shims).values()})
            error = max(float(np.abs(g.astype(np.float64) - e).max()) if g.size else 0.0 for g, e in zip(got, expected))
            ok = (error <= tolerance and served > 0 and bound == [str(runtime_path.resolve())]
                  and len(got) == len(expected))
            failures += not ok
            ops = sorted(n.removeprefix(config.prefix) for n in shims if "_cuda_" in n)
            print(f"[{'PASS' if ok else 'FAIL'}] zoo {name}: max |runtime - eager| = {error:.3g} (tolerance {tolerance:g}); "
                  f"{served} shim calls served; hid {sum(len(m.localized) for m in result.members)} C++ runtime exports; "
                  f"ops: {', '.join(ops) or '-'}", flush=True)
            if name == "transformer_block":
                host = [rt.tensor_from_array(np.ascontiguousarray(a)) for a in inputs]
                with rt.caller_stream(stream.value):
                    device = [rt.copy_to(h, rt.cuda, 0) for h in host]

                def call(model=model, device=device):
                    for out in model.run_handles(device, stream.value):
                        rt.delete(out)

                micros = _time_calls(call, lambda: cudart.cudaStreamSynchronize(stream))
                for h in [*host, *device]:
                    rt.delete(h)
                print(f"    transformer_block per call on shimgen (run_handles + stream sync): {micros:.2f} us "
                      f"(median of {REPEATS} x {CALLS})", flush=True)
                (work / "transformer_block.shimgen_us").write_text(f"{micros:.4f}")
    return 1 if failures else 0


def _transformer_baselines(work: Path) -> None:
    """Eager torch and torch's aoti_load_package on the transformer block (same source as the zoo)."""
    import aoti_zoo
    import torch

    ours_path = work / "transformer_block.shimgen_us"
    ours = float(ours_path.read_text()) if ours_path.exists() else None

    def report(label: str, micros: float) -> None:
        ratio = f"; ratio shimgen/{label} = {ours / micros:.2f}" if ours else ""
        print(f"    transformer_block per call, {label}: {micros:.2f} us{ratio}", flush=True)

    torch.manual_seed(0)
    namespace: dict = {"torch": torch}
    exec(aoti_zoo.source("transformer_block"), namespace)
    module = namespace["M"]().cuda().eval()
    x = torch.randn(*aoti_zoo.ZOO["transformer_block"].inputs[0].shape, device="cuda")
    with torch.no_grad():
        report("eager torch", _time_calls(lambda: module(x), torch.cuda.synchronize))
    (linked,) = aoti_zoo.ensure_compiled(["transformer_block"], device="cuda", link_libtorch=True).values()
    runner = torch._inductor.aoti_load_package(str(linked / "model.pt2"))
    report("torch aoti_load_package", _time_calls(lambda: runner(x), torch.cuda.synchronize))


def torch_baseline_phase(work: Path) -> int:
    import torch

    _transformer_baselines(work)
    compile_phase(work, link_libtorch=True, suffix=".linked")
    for name, (_, shapes) in MODELS.items():
        runner = torch._inductor.aoti_load_package(str(work / f"{name}.linked.pt2"))
        inputs = [torch.randn(*s, device="cuda") for s in shapes]
        runner(*inputs)
        torch.cuda.synchronize()
        samples = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            for _ in range(CALLS):
                runner(*inputs)
                torch.cuda.synchronize()
            samples.append((time.perf_counter() - start) / CALLS * 1e6)
        torch_us = statistics.median(samples)
        ours = work / f"{name}.shimgen_us"
        ratio = f"; ratio shimgen/torch = {float(ours.read_text()) / torch_us:.2f}" if ours.exists() else ""
        print(f"    torch aoti_load_package per call ({name}): {torch_us:.2f} us{ratio}")
    return 0


if __name__ == "__main__":
    phase, work = sys.argv[1], Path(sys.argv[2])
    if phase == "compile":
        compile_phase(work)
    elif phase == "run":
        sys.exit(run_phase(work, Path(sys.argv[3])))
    elif phase == "zoo":
        sys.exit(zoo_phase(work, Path(sys.argv[3])))
    elif phase == "torch-baseline":
        sys.exit(torch_baseline_phase(work))
    else:
        sys.exit(__doc__)
    print(json.dumps({"phase": phase, "ok": True}))
