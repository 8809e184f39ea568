"""Issue 22 item 2 on the GPU: torch CUDA tensors (bf16, fp16) in and out of a CUDA model through DLPack,
without copies, on the caller's stream. The work runs in a child process with torch (dlpack_child.py)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.aoti_helpers import prefix_imports_cli

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.gpu, pytest.mark.slow]


@pytest.fixture(scope="module")
def half_cuda(cuda, tmp_path_factory) -> Path:
    if importlib.util.find_spec("torch") is None:
        pytest.skip("needs torch with CUDA")
    out = tmp_path_factory.mktemp("dlpack-cuda")
    done = subprocess.run([sys.executable, str(REPO / "tests" / "aoti_models.py"), "compile", str(out), "--cuda",
                           "mixed_half"], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(out / "inductor")})
    assert done.returncode == 0, done.stderr[-3000:]
    prefix_imports_cli(out / "mixed_half.pt2", out / "mixed_half.prefixed.pt2")
    return out


def child_report(cuda, half_cuda, *flags: str):
    # -X faulthandler: a crash in the child prints its Python stack, so the failure says where.
    done = subprocess.run([sys.executable, "-X", "faulthandler", str(REPO / "tests" / "gpu" / "dlpack_child.py"),
                           str(cuda.rt.path),
                           str(half_cuda / "mixed_half.prefixed.pt2"), str(half_cuda), *flags], capture_output=True,
                          text=True, timeout=300, cwd=REPO, env={**os.environ, "PYTHONPATH": os.pathsep.join(
                              filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))})
    assert done.returncode == 0, f"exit {done.returncode}: {done.stdout[-2000:]}{done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_torch_cuda_tensors_through_dlpack_without_copies(cuda, half_cuda):
    report = child_report(cuda, half_cuda)
    print(report)
    assert report["input_in_place"] and report["input_device"]
    assert report["outputs_in_place"] == [True, True, True]
    assert report["output_devices"] == ["cuda:0"] * 3
    assert report["match"] == [True, True, True], "a wrong result: the model did not wait for the caller's stream?"
    assert report["match_default_stream"] == [True, True, True]
    assert report["match_cpu_inputs"] == [True, True, True]
    assert report["match_numpy_run"] in (None, [True, True, True])  # None: no ml_dtypes on that machine
    # CuPy and JAX (None: not installed on that machine): in place on the device, results equal.
    if report["cupy"] is not None:
        cupy = report["cupy"]
        assert cupy["input_in_place"] and cupy["outputs"] >= 1
        assert all(cupy["outputs_in_place"]) and all(cupy["match"]), cupy


def test_jax_arrays_through_dlpack(cuda, half_cuda):
    report = child_report(cuda, half_cuda, "--jax")
    print(report)
    if report is None or "skipped" in report:
        pytest.skip(f"no JAX with a GPU here: {report}")
    assert report["input_in_place"], "a JAX array on the model's device was copied"
    assert report["match"] == [True, True, True], report
