"""Whose rounding is it? For zoo models compiled for CUDA (SHIMGEN_ZOO_CACHE), put shimgen's outputs,
torch's own AOTI loader's (same package), eager CUDA (as the compile recorded it, and with
``nn.MultiheadAttention``'s fast path off) and a float64 eager reference on the CPU side by side.

A ring row that fails by a little on CUDA is either the runtime's error or the float32 eager reference's
own: the float64 reference says which is nearer the exact result. Run on the GPU machine after the
models were compiled (scripts/gpu_ring_batches.sh ARBITRATE="names" does so, with its environment):

    python scripts/cuda_arbiter.py --runtime .gpu/pre/libshimgen_runtime.so NAME...

``--device cpu`` does the same for CPU packages (beside libtorch, as scripts/zoo_cpu.py runs them): the
script's own check where no GPU is at hand.

One block per model: max |a - b| for each pair against float64, and shimgen against the loader and
eager. Exit status 0: a report, not a gate (tests/gpu/test_ring_cuda.py is the gate).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import aoti_zoo
from distance import max_difference

from tests.aoti_helpers import (
    prefix_imports_cli,
    run_beside_libtorch,
    run_on_cuda_beside_libtorch,
    run_with_torch_loader,
)


def largest(a: np.ndarray, b: np.ndarray) -> float:
    """max |a - b| (tests/distance.py); inf where the shapes differ."""
    return max_difference(a, b) if a.shape == b.shape else float("inf")


def _loaded(folder: Path, count: int) -> list[np.ndarray] | None:
    paths = [folder / f"output_{i}.npy" for i in range(count)]
    return [np.load(p) for p in paths] if all(p.is_file() for p in paths) else None


def _eager(name: str, inputs: list[np.ndarray], device: str, *, double: bool = False,
           fastpath: bool = True) -> list[np.ndarray] | None:
    import torch

    torch.backends.cuda.matmul.allow_tf32 = False  # as the compiling child computed eager
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.mha.set_fastpath_enabled(fastpath)
    try:
        module = aoti_zoo.eager_module(name, device)
        args = [torch.from_numpy(x).to(device) for x in inputs]
        if double:
            module = module.double()
            args = [a.double() if a.is_floating_point() else a for a in args]
        with torch.no_grad():
            outs = module(*args)
    except Exception as error:  # a model with no float64 form is reported, not fatal
        print(f"  eager {device}{' float64' if double else ''}: {type(error).__name__}: {str(error)[:160]}")
        return None
    finally:
        torch.backends.mha.set_fastpath_enabled(True)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    return [o.detach().cpu().numpy() for o in outs]


def arbitrate(name: str, runtime: Path, work: Path, device: str = "cuda") -> None:
    directory = aoti_zoo.ensure_compiled([name], device=device, keep_going=True, timeout=900)[name]
    if not (directory / "meta.json").is_file():
        print(f"{name}: not compiled: {aoti_zoo.error_of(directory).read_text().strip()[-300:]}")
        return
    inputs = aoti_zoo.inputs_of(directory)
    expected = [np.load(p) for p in aoti_zoo.expected_of(directory)]
    target = work / f"{name}.prefixed.pt2"
    prefix_imports_cli(directory / "model.pt2", target)
    if device == "cuda":
        ran = run_on_cuda_beside_libtorch(target, inputs, runtime, work / name / "shimgen")
    else:  # outputs in work/name/shimgen/, as the CUDA run writes them
        ran = run_beside_libtorch({"shimgen": (target, inputs)}, runtime, _fresh(work / name))
    loader = run_with_torch_loader(directory / "model.pt2", inputs, _fresh(work / name / "loader"), device=device,
                                   timeout=300)
    arrays = [np.load(p) for p in inputs]
    rows = {"shimgen": _loaded(work / name / "shimgen", len(expected)) if ran.returncode == 0 else None,
            "torch loader": _loaded(work / name / "loader", len(expected)) if loader.returncode == 0 else None,
            "eager (recorded)": expected,
            "eager, no MHA fast path": _eager(name, arrays, device, fastpath=False)}
    reference = _eager(name, arrays, "cpu", double=True)
    print(f"{name}: shimgen rc {ran.returncode}, loader rc {loader.returncode}")
    for index in range(len(expected)):
        scale = float(np.abs(expected[index].astype(np.float64)).max()) if expected[index].size else 0.0
        print(f"  output {index} (max |eager| {scale:.3g}):")
        for label, outs in rows.items():
            if outs is None:
                continue
            versus = [f"float64 {largest(outs[index], reference[index]):.3g}"] if reference else []
            if label != "shimgen" and rows["shimgen"] is not None:
                versus.append(f"shimgen {largest(outs[index], rows['shimgen'][index]):.3g}")
            print(f"    {label:24s} against " + ", ".join(versus))


def _fresh(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", type=Path, required=True)
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("names", nargs="+")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="shimgen-arbiter-") as work:
        for name in args.names:
            arbitrate(name, args.runtime, Path(work), args.device)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
