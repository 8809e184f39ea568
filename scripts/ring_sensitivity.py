"""Which ring entries compare something: each model's eager outputs for two draws of its inputs.

    python scripts/ring_sensitivity.py [--ring | --table NAME] [--jobs N] [NAME ...]

A ring entry is judged by comparing the runtime's outputs with eager's at the entry's tolerance. That
proves nothing where the outputs hardly depend on the inputs: a deep network whose random
initialisation collapses its activations to constants (the magnitude check, scripts/zoo_cpu.py's
VACUOUS, misses constants of order one), or a head that returns no tensor at all. This runs eager
only (no compile, a few minutes for the whole ring) and prints, per model:

    EMPTY        no tensor output: nothing is compared
    INSENSITIVE  the outputs for a second draw of the inputs are within the entry's tolerance of the
                 first draw's: a runtime that computed them for other inputs would pass
    WEAK         they move past it, but by less than WEAK_BELOW tolerances (reported, not failed)
    ok           some output moves past the tolerance

A dynamic-shape model (tests/dynamic_ring.py) is judged at every shape it declares, labelled as
scripts/zoo_cpu.py labels them (``name@run`` past the example's). scripts/zoo_cpu.py applies the same
judgement to every model that passed (its verdicts INSENSITIVE and EMPTY). Exit status 1 if any
model other than those in INPUT_FREE is EMPTY or INSENSITIVE.
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
INPUT_FREE = {"randperm": "torch.randperm under a fixed seed; its input only fixes the device",
              "random": "statistics of torch.rand / torch.randint draws (tests/arch_zoo.py); the input only"
                        " joins the graph"}


# A second draw that moves the outputs by less than this many tolerances is reported WEAK: the entry
# compares something, but a runtime wrong by a few tolerances in what depends on the input would pass.
WEAK_BELOW = 10.0


def free(label: str) -> bool:
    """Whether a result's label (``name`` or ``name@run``) is one of INPUT_FREE's models."""
    return label.split("@")[0] in INPUT_FREE


def move(first: list[np.ndarray], second: list[np.ndarray], atol: float, rtol: float) -> float:
    """How far the second draw's outputs move from the first's, in units of the entry's tolerance
    (atol + rtol * |first|): the largest over every element of every floating output; infinite where a
    shape, dtype or integer output changes, or a float moves where the tolerance is 0; 0 for none."""
    from distance import differences
    from zoo_cpu import bound

    largest = 0.0
    for a, b in zip(first, second):
        if a.shape != b.shape or a.dtype != b.dtype:
            return float("inf")
        if a.dtype.kind not in "fc":
            if not np.array_equal(a, b):
                return float("inf")
            continue
        if not a.size:
            continue
        diff = differences(b, a)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(diff == 0, 0.0, diff / bound(a, atol, rtol))
        largest = max(largest, float(ratio.max()))
    return largest


def verdict(first: list[np.ndarray], second: list[np.ndarray], atol: float, rtol: float) -> str:
    """'EMPTY', 'INSENSITIVE', 'WEAK' or 'ok' for one model's outputs under two draws of its inputs."""
    if not first:
        return "EMPTY"
    moved = move(first, second, atol, rtol)
    if moved <= 1:
        return "INSENSITIVE"
    return f"WEAK ({moved:.3g}x its tolerance)" if moved < WEAK_BELOW else "ok"


def outputs(name: str, seed: int, module, run: int = 0) -> list[np.ndarray]:
    """The model's eager outputs as the compiling child saves them (tests/aoti_zoo.py: the forward's
    tuple, or its one tensor), for inputs drawn under ``seed`` at the shapes of ``run``."""
    import aoti_zoo
    import torch

    torch.manual_seed(seed)
    inputs = aoti_zoo._make_inputs(aoti_zoo.models()[name], "cpu", run)
    with torch.no_grad():
        result = module(*inputs)
    return [t.detach().numpy() for t in (result if isinstance(result, tuple) else (result,))]


def judge(name: str) -> list[tuple[str, str]]:
    """(label, verdict) per shape the model declares (labelled as scripts/zoo_cpu.py's rows: ``name``
    for the example's, ``name@run`` for a dynamic model's further shapes), or (name, 'error: ...')
    where eager itself fails (a library absent)."""
    import aoti_zoo
    from aoti_helpers import run_label

    try:
        module = aoti_zoo.eager_module(name, "cpu")
        model = aoti_zoo.models()[name]
        shapes = aoti_zoo.run_count(model)
        return [(run_label(name, run),
                 verdict(outputs(name, 1, module, run), outputs(name, 2, module, run), model.atol, model.rtol))
                for run in range(shapes)]
    except Exception as error:  # an optional library absent, an eager failure: reported, not judged
        return [(name, f"error: {type(error).__name__}: {str(error).splitlines()[0][:160] if str(error) else ''}")]


def judge_all(names: list[str], jobs: int):
    """judge() over ``names`` in ``jobs`` processes: (label, verdict) pairs as they come."""
    with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
        for rows in pool.map(judge, names, chunksize=4):
            yield from rows


def table(which: str) -> list[str]:
    """The names of one of tests/'s model tables."""
    import importlib

    module, attribute = TABLES[which]
    return list(getattr(importlib.import_module(module), attribute))


# --table's choices: the module of tests/ and its table of models.
TABLES = {"zoo": ("aoti_zoo", "ZOO"), "ring": ("arch_ring", "RING"), "dynamic": ("dynamic_ring", "DYNAMIC"),
          "frozen": ("frozen_zoo", "FROZEN"), "torchao": ("torchao_zoo", "TORCHAO"), "arch": ("arch_zoo", "ARCH"),
          "torchvision": ("torchvision_zoo", "TORCHVISION"), "torchaudio": ("torchaudio_zoo", "TORCHAUDIO"),
          "libs": ("libs_zoo", "LIBS")}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--ring", action="store_true", help="every model of tests/arch_ring.py (--table ring)")
    parser.add_argument("--table", choices=sorted(TABLES), help="every model of one of tests/'s tables")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    which = "ring" if args.ring else args.table
    names = list(args.names) or (table(which) if which else [])
    if not names:
        parser.error("name models, or pass --ring or --table")
    results = {}
    for label, result in judge_all(names, args.jobs):
        results[label] = result
        if result != "ok":
            print(f"{label:<40}  {result}", flush=True)
    flagged = [n for n, r in results.items() if r in ("EMPTY", "INSENSITIVE") and not free(n)]
    errors = [n for n, r in results.items() if r.startswith("error")]
    weak = [n for n, r in results.items() if r.startswith("WEAK") and not free(n)]
    print(f"{len(results) - len(flagged) - len(errors)}/{len(results)} compare something"
          f" ({len(flagged)} flagged, {len(weak)} more weakly, {len(errors)} not run,"
          f" {sum(free(n) for n in results)} input-free by design)")
    return 1 if flagged else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
