"""Which ring entries compare something: each model's eager outputs for two draws of its inputs.

    python scripts/ring_sensitivity.py [--ring] [--jobs N] [NAME ...]

A ring entry is judged by comparing the runtime's outputs with eager's at the entry's tolerance. That
proves nothing where the outputs hardly depend on the inputs: a deep network whose random
initialisation collapses its activations to constants (the magnitude check, scripts/zoo_cpu.py's
VACUOUS, misses constants of order one), or a head that returns no tensor at all. This runs eager
only (no compile, a few minutes for the whole ring) and prints, per model:

    EMPTY        no tensor output: nothing is compared
    INSENSITIVE  the outputs for a second draw of the inputs are within the entry's tolerance of the
                 first draw's: a runtime that computed them for other inputs would pass
    ok           some output moves past the tolerance

Exit status 1 if any model other than those in INPUT_FREE is EMPTY or INSENSITIVE.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "scripts")]

# Entries whose outputs are meant not to depend on their inputs (a generator under a fixed seed).
INPUT_FREE = {"randperm": "torch.randperm under a fixed seed; its input only fixes the device"}


def verdict(first: list[np.ndarray], second: list[np.ndarray], atol: float, rtol: float) -> str:
    """'EMPTY', 'INSENSITIVE' or 'ok' for one model's outputs under two draws of its inputs."""
    from zoo_cpu import within

    if not first:
        return "EMPTY"
    for a, b in zip(first, second):
        if a.shape != b.shape or a.dtype != b.dtype:
            return "ok"
        if a.dtype.kind in "fc":
            if not within(b, a, atol, rtol):
                return "ok"
        elif not np.array_equal(a, b):
            return "ok"
    return "INSENSITIVE"


def outputs(name: str, seed: int, module) -> list[np.ndarray]:
    """The model's eager outputs as the compiling child saves them (tests/aoti_zoo.py: the forward's
    tuple, or its one tensor), for inputs drawn under ``seed``."""
    import aoti_zoo
    import torch

    torch.manual_seed(seed)
    inputs = aoti_zoo._make_inputs(aoti_zoo.models()[name], "cpu")
    with torch.no_grad():
        result = module(*inputs)
    return [t.detach().numpy() for t in (result if isinstance(result, tuple) else (result,))]


def judge(name: str) -> tuple[str, str]:
    """(name, verdict), or (name, 'error: ...') where eager itself fails (a library absent)."""
    import aoti_zoo

    try:
        module = aoti_zoo.eager_module(name, "cpu")
        model = aoti_zoo.models()[name]
        return name, verdict(outputs(name, 1, module), outputs(name, 2, module), model.atol, model.rtol)
    except Exception as error:  # an optional library absent, an eager failure: reported, not judged
        return name, f"error: {type(error).__name__}: {str(error).splitlines()[0][:160] if str(error) else ''}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--ring", action="store_true", help="every model of tests/arch_ring.py")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    import arch_ring

    names = list(args.names) or (list(arch_ring.RING) if args.ring else [])
    if not names:
        parser.error("name models, or pass --ring")
    results = {}
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        for name, result in pool.map(judge, names, chunksize=4):
            results[name] = result
            if result != "ok":
                print(f"{name:<40}  {result}", flush=True)
    flagged = [n for n, r in results.items() if r in ("EMPTY", "INSENSITIVE") and n not in INPUT_FREE]
    errors = [n for n, r in results.items() if r.startswith("error")]
    print(f"{len(results) - len(flagged) - len(errors)}/{len(results)} compare something"
          f" ({len(flagged)} flagged, {len(errors)} not run, {sum(n in INPUT_FREE for n in results)} input-free by design)")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
