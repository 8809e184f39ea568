"""The dynamic ring on the GPU (tests/dynamic_ring.py): each model exported with dynamic dims and
compiled by torch with CUDA (link_libtorch=False, stock inductor), rewritten once by `shimgen
prefix-imports`, run by `shimgen run --device cuda:0` at every shape it declares (in a process that
loaded libtorch_cpu.so and libtorch_cuda.so first), and compared with eager CUDA at that shape from
the compiling process. Read as tests/gpu/test_ring_cuda.py reads the static ring, whose tolerances
and comparison it shares. A model torch cannot export on this machine is skipped with torch's reason.

SHIMGEN_DYNAMIC_CUDA_NAMES: names (default: the whole dynamic ring).
"""

from __future__ import annotations

import os
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from tests.aoti_helpers import prefix_imports_cli, run_on_cuda_beside_libtorch, run_with_torch_loader, torch_lib_dir
from tests.distance import max_difference
from tests.gpu.test_ring_cuda import CUDA_ATOL

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import aoti_zoo  # noqa: E402 (tests/ put on sys.path just above)
from dynamic_ring import DYNAMIC  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.slow]
NAMES = os.environ.get("SHIMGEN_DYNAMIC_CUDA_NAMES", "").split() or list(DYNAMIC)
CASES = [(name, run) for name in NAMES for run in range(aoti_zoo.run_count(DYNAMIC[name]))]
# (model, output index) -> the first torch release whose CUDA graph returns eager's shape there.
# Measured on torch 2.11.0+cu130 (H100 and H200): dyn_lstm's final states h and c come back as
# (2, 1, B, 32), the shape its wrapper declares (reinterpret_tensor {2, 1, s77, 32}); torch 2.13 on CPU
# returns (2, B, 32). Not yet run on CUDA with torch 2.12 or later, hence the bound.
UPSTREAM_SHAPES: dict[tuple[str, int], tuple[int, int]] = {("dyn_lstm", 1): (2, 12), ("dyn_lstm", 2): (2, 12)}


def torch_version() -> str:
    import torch

    return torch.__version__


def torch_before(release: tuple[int, int]) -> bool:
    major, minor = (int(part) for part in torch_version().split(".")[:2])
    return (major, minor) < release


def _prepare_and_run(name: str, directory: Path, work: Path, runtime: Path) -> dict[int, object] | str:
    """run -> `shimgen run`'s outcome at that shape (outputs in work/<name>@<run>), or why there is none."""
    if not (directory / "meta.json").is_file():
        return aoti_zoo.error_of(directory).read_text().strip()
    target = work / f"{name}.prefixed.pt2"
    try:
        prefix_imports_cli(directory / "model.pt2", target)
    except AssertionError as refused:
        return f"refused by prefix-imports: {' '.join(str(refused).split())[-600:]}"
    return {run: run_on_cuda_beside_libtorch(target, aoti_zoo.inputs_of(directory, run), runtime, work / f"{name}@{run}")
            for run in range(aoti_zoo.runs_of(directory))}


@pytest.fixture(scope="module")
def ring(cuda, tmp_path_factory) -> tuple[dict[str, Path], dict, Path]:
    torch_lib_dir()
    dirs = aoti_zoo.ensure_compiled(NAMES, device="cuda", keep_going=True, timeout=3000)
    work = tmp_path_factory.mktemp("dynamic-ring-cuda")
    with ThreadPoolExecutor(max(1, min(8, (os.cpu_count() or 2) // 2))) as pool:
        futures = {name: pool.submit(_prepare_and_run, name, d, work, cuda.rt.path) for name, d in dirs.items()}
        return dirs, {name: future.result() for name, future in futures.items()}, work


@pytest.mark.parametrize(("name", "run"), CASES, ids=[f"{name}@{run}" for name, run in CASES])
def test_dynamic_model_matches_eager_on_cuda(ring, name, run):
    dirs, ran, work = ring
    entry = ran[name]
    if isinstance(entry, str):
        if entry.startswith("refused by prefix-imports"):
            pytest.fail(f"{name}: {entry}")
        pytest.skip(f"torch could not export {name} here: {entry}")
    completed = entry[run]
    if aoti_zoo.meta(dirs[name]).get("deferred_asserts"):
        print(f"{name}: exported with deferred runtime asserts (torch {torch_version()} refused its guards)")
        asserted = re.search(r"Expected (.+) to be True but received \S+", completed.stderr)
        if completed.returncode != 0 and asserted:
            # torch's graph asserts a guard its export could not prove and this shape breaks: its own
            # loader must refuse the shape with the same words, or the runtime is at fault.
            loader = run_with_torch_loader(dirs[name] / "model.pt2", aoti_zoo.inputs_of(dirs[name], run),
                                           work / f"{name}@{run}.torch", device="cuda")
            assert loader.returncode != 0 and asserted.group(1) in loader.stderr, loader.stderr[-2000:]
            pytest.xfail(f"torch {torch_version()}'s graph asserts {asserted.group(1)} at this shape "
                         "(its own loader refuses it too)")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    model = DYNAMIC[name]
    tolerance = max(model.atol, CUDA_ATOL)
    upstream: list[str] = []
    for index, path in enumerate(aoti_zoo.expected_of(dirs[name], run)):
        got, want = np.load(work / f"{name}@{run}" / f"output_{index}.npy"), np.load(path)
        if (name, index) in UPSTREAM_SHAPES and torch_before(UPSTREAM_SHAPES[(name, index)]) and got.shape != want.shape:
            # torch's own compiled graph declares this output with an extra unit dimension; compare the
            # values, then report the shape as torch's (docs/aoti.md, "dyn_lstm on CUDA").
            assert got.size == want.size and got.dtype == want.dtype, (index, got.shape, want.shape)
            error = max_difference(got.reshape(want.shape), want, model.rtol)
            assert error <= tolerance, f"{name}@{run} output {index}: {error:.3g} > {tolerance:g}"
            upstream.append(f"output {index} {got.shape} where eager is {want.shape}")
            continue
        assert got.shape == want.shape and got.dtype == want.dtype, (index, got.shape, want.shape)
        error = max_difference(got, want, model.rtol)
        print(f"{name}@{run} output {index}: max |shimgen - eager| = {error:.3g} (tolerance {tolerance:g})")
        assert error <= tolerance, f"{name}@{run} output {index}: {error:.3g} > {tolerance:g}"
    if upstream:
        pytest.xfail(f"torch {torch_version()}'s compiled graph declares " + "; ".join(upstream) +
                     " (its own loader returns the same; the values match eager)")
