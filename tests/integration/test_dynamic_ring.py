"""The dynamic ring's cheap CI subset (tests/dynamic_ring.py) on the runtime, CPU, beside libtorch:
each model exported with dynamic dims (torch.export.Dim), compiled once by stock torch (cached on
disk), rewritten with ``shimgen prefix-imports`` and run by ``shimgen run`` at every shape it declares
(the export's example and shapes export never saw), then opened once and run at all of them in turn;
every output matches eager at that shape. Controls: export kept the declared ranges (nothing was
specialized to the example), and a shape outside them is refused by the model through ``shimgen
run`` (exit non-zero, the model's own check named). ``python scripts/zoo_cpu.py --dynamic`` runs the
whole dynamic ring."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import aoti_zoo  # noqa: E402 (tests/ put on sys.path just above)
from dynamic_ring import CI, DYNAMIC  # noqa: E402

from tests.aoti_helpers import (  # noqa: E402
    assert_zoo_model_matches_eager,
    prefix_imports_cli,
    run_zoo_beside_libtorch,
    torch_lib_dir,
)

CASES = [(name, run) for name in CI for run in range(aoti_zoo.run_count(DYNAMIC[name]))]


@pytest.fixture(scope="module")
def ring() -> dict[str, Path]:
    return aoti_zoo.ensure_compiled(list(CI), timeout=3000)


@pytest.fixture(scope="module")
def ring_run(ring, cpu_runtime, tmp_path_factory) -> tuple[dict, Path]:
    work = tmp_path_factory.mktemp("dynamic-ring")
    return run_zoo_beside_libtorch(ring, cpu_runtime.library, work), work


@pytest.mark.parametrize(("name", "run"), CASES, ids=[f"{name}@{run}" for name, run in CASES])
def test_dynamic_model_matches_eager_at_each_shape(ring, ring_run, cpu_runtime, name, run):
    report, work = ring_run
    assert aoti_zoo.runs_of(ring[name]) == aoti_zoo.run_count(DYNAMIC[name])
    assert_zoo_model_matches_eager(name, ring[name], report, work, cpu_runtime.library, DYNAMIC[name].atol,
                                   DYNAMIC[name].rtol, run=run)


@pytest.mark.parametrize("name", CI)
def test_export_kept_every_declared_range(ring, name):
    """Each declared dim is a symbol of the exported program over exactly its range: had export
    specialized one to the example's size, the package would run at that size alone."""
    assert aoti_zoo.lost_dims(DYNAMIC[name], aoti_zoo.meta(ring[name])["ranges"]) == [], \
        aoti_zoo.meta(ring[name])["ranges"]


def _shimgen_run(package: Path, arrays: list[np.ndarray], runtime: Path, work: Path) -> subprocess.CompletedProcess:
    """``python -m shimgen run`` of ``package`` on ``arrays`` in a process that loaded libtorch first."""
    paths = []
    for index, array in enumerate(arrays):
        paths += ["--input", str(work / f"in{index}.npy")]
        np.save(work / f"in{index}.npy", array)
    env = {**os.environ, "LD_PRELOAD": str(torch_lib_dir() / "libtorch_cpu.so")}
    return subprocess.run([sys.executable, "-m", "shimgen", "run", str(package), "--runtime", str(runtime),
                           "-o", str(work / "out"), *paths], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=300, check=False)


def test_a_shape_outside_the_declared_range_is_refused(ring, cpu_runtime, tmp_path):
    """dyn_kv_attention's key length K is declared in [1, 256]: 257 keys are refused by the model's
    own input check (shimgen run turns it on), exit non-zero, nothing written. Control: the same call
    at K = 256, the range's end, runs."""
    name = "dyn_kv_attention"
    package = tmp_path / f"{name}.pt2"
    prefix_imports_cli(ring[name] / "model.pt2", package)
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(shape, dtype=np.float32) for shape in ((2, 4, 3, 16), (2, 4, 256, 16), (2, 4, 256, 16))]
    inside = _shimgen_run(package, arrays, cpu_runtime.library, tmp_path)
    assert inside.returncode == 0, inside.stderr[-2000:]
    assert (tmp_path / "out" / "output_0.npy").is_file()
    (tmp_path / "out" / "output_0.npy").unlink()
    arrays[1:] = [rng.standard_normal((2, 4, 257, 16), dtype=np.float32)] * 2
    outside = _shimgen_run(package, arrays, cpu_runtime.library, tmp_path)
    assert outside.returncode != 0
    assert "256" in outside.stderr and "257" in outside.stderr, outside.stderr[-2000:]
    assert not (tmp_path / "out" / "output_0.npy").exists()
