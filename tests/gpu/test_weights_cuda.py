"""Weights outside the model .so, on CUDA: ``mmap_weights`` (force_mmap_weights: appended after the
ELF image, mapped by the model itself) and ``blob_weights`` (``binary_blob``: ``<so>_weights.blob`` in
the package, which the loader hands to ``AOTInductorModelUpdateConstantsFromBlob``, whose CUDA side
copies it to the device). The CPU versions are tests/integration/test_recompile_overlay.py; these
compile the same two models for CUDA, rewrite them with ``prefix-imports`` and run them with ``shimgen
run --device cuda:0`` beside libtorch. Negative control: the blob rotated by one float is far off, so
the device weights come from the blob; a missing blob is refused in one line at open.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.aoti_helpers import blob_member, prefix_imports_cli, run_on_cuda_beside_libtorch, with_blob

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from aoti_models import MMAP_MODELS  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.slow]
NAMES = ("mmap_weights", "blob_weights")


@pytest.fixture(scope="module")
def compiled(cuda, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("weights-cuda")
    done = subprocess.run([sys.executable, str(REPO / "tests" / "aoti_models.py"), "compile", str(out), "--cuda",
                           *NAMES], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(out / "inductor")})
    assert done.returncode == 0, done.stderr[-3000:]
    for name in NAMES:
        prefix_imports_cli(out / f"{name}.pt2", out / f"{name}.prefixed.pt2")
    return out


def _inputs(compiled: Path, name: str) -> list[Path]:
    return [compiled / f"{name}.in{i}.npy" for i in range(json.loads((compiled / f"{name}.json").read_text())["inputs"])]


def _error(compiled: Path, name: str, out: Path) -> float:
    got, want = np.load(out / "output_0.npy"), np.load(compiled / f"{name}.out0.npy")
    assert got.shape == want.shape
    return float(np.abs(got - want).max())


@pytest.mark.parametrize("name", NAMES)
def test_weights_outside_the_so_match_eager_on_cuda(cuda, compiled, name, tmp_path):
    done = run_on_cuda_beside_libtorch(compiled / f"{name}.prefixed.pt2", _inputs(compiled, name), cuda.rt.path,
                                       tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr
    error = _error(compiled, name, tmp_path / "out")
    print(f"{name} on CUDA: max |shimgen - reference| = {error:.3g}")
    assert error <= max(MMAP_MODELS[name][3], 1e-5)


def test_rotated_blob_is_far_off_on_cuda(cuda, compiled, tmp_path):
    package = compiled / "blob_weights.prefixed.pt2"
    with zipfile.ZipFile(package) as archive:
        blob = archive.read(blob_member(package))
    rotated = with_blob(package, blob[4:] + blob[:4], tmp_path / "rotated.pt2")
    done = run_on_cuda_beside_libtorch(rotated, _inputs(compiled, "blob_weights"), cuda.rt.path, tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _error(compiled, "blob_weights", tmp_path / "out") > 0.1


def test_missing_blob_is_refused_at_open_on_cuda(cuda, compiled, tmp_path):
    package = with_blob(compiled / "blob_weights.prefixed.pt2", None, tmp_path / "bad.pt2")
    done = run_on_cuda_beside_libtorch(package, _inputs(compiled, "blob_weights"), cuda.rt.path, tmp_path / "out")
    message = "the model's weights are not in its .so and the package holds no *_weights.blob"
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "out" / "output_0.npy").exists()
