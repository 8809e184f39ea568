"""Per-call cost of moving data in and out of a model: ``Model.run_dlpack`` (no copies) vs ``Model.run``
(numpy in, numpy copies out), with eager torch as a reference, in one run.

    python benchmarks/dlpack_io.py [--size 2048] [--calls 50] [--repeats 7] [--runtime LIB] [--work DIR]

The model is ``x + y`` on two float32 [size, size] inputs (cheap work, so the copies show), compiled
by the installed torch with ``link_libtorch=False`` and prefixed with ``shimgen prefix-imports``.
Rows, interleaved round by round (the machine is shared and noisy): a row's figure is the median over
rounds, each ratio the median of the per-round ratios.

  Model.run(numpy)              inputs borrowed, the output copied into a new numpy array
  Model.run_dlpack(torch)       inputs borrowed through DLPack, the output viewed (torch.from_dlpack)
  eager torch                   ``x + y`` on the same tensors (a reference, not a baseline)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def compile_model(work: Path, size: int) -> Path:
    import torch
    import torch._inductor.config as inductor_config

    from shimgen.aoti.prefix_imports import prefix_imports_with_config
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    prefixed = work / f"add{size}.prefixed.pt2"
    if prefixed.is_file():
        return prefixed

    class Add(torch.nn.Module):
        def forward(self, x, y):
            return x + y

    inductor_config.aot_inductor.link_libtorch = False
    inputs = (torch.randn(size, size), torch.randn(size, size))
    plain = work / f"add{size}.pt2"
    torch._inductor.aoti_compile_and_package(torch.export.export(Add(), inputs), package_path=str(plain))
    prefix_imports_with_config(plain, prefixed, load_config(default_config()))
    return prefixed


def per_call(call: Callable[[], object], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--runtime", type=Path)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args(argv)

    import numpy as np
    import torch

    from shimgen.aoti.runner import open_model

    work = args.work or Path(tempfile.mkdtemp(prefix="shimgen-dlpack-"))
    work.mkdir(parents=True, exist_ok=True)
    model_path = compile_model(work, args.size)
    x, y = torch.randn(args.size, args.size), torch.randn(args.size, args.size)
    xn, yn = x.numpy(), y.numpy()
    with open_model(model_path, runtime=args.runtime) as model:
        assert np.array_equal(model.run([xn, yn])[0], (x + y).numpy())
        assert torch.equal(torch.from_dlpack(model.run_dlpack([x, y])[0]), x + y)
        rows: dict[str, Callable[[], object]] = {
            "Model.run(numpy)": lambda: model.run([xn, yn]),
            "Model.run_dlpack(torch)": lambda: [torch.from_dlpack(o) for o in model.run_dlpack([x, y])],
            "eager torch": lambda: x + y,
        }
        rounds: dict[str, list[float]] = {name: [] for name in rows}
        for _ in range(args.repeats):
            for name, call in rows.items():
                rounds[name].append(per_call(call, args.calls))
    mib = args.size * args.size * 4 / (1 << 20)
    print(f"x + y, float32 [{args.size}, {args.size}] ({mib:.0f} MiB per tensor), {args.calls} calls x "
          f"{args.repeats} rounds, median per call:")
    for name, times in rounds.items():
        print(f"  {name:26s} {statistics.median(times) * 1e3:8.3f} ms")
    ratio = statistics.median(d / r for d, r in zip(rounds["Model.run_dlpack(torch)"], rounds["Model.run(numpy)"]))
    eager = statistics.median(d / e for d, e in zip(rounds["Model.run_dlpack(torch)"], rounds["eager torch"]))
    print(f"  run_dlpack / run (baseline: Model.run, same run): {ratio:.2f}x")
    print(f"  run_dlpack / eager torch (reference): {eager:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
