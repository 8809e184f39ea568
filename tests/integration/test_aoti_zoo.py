"""The model zoo (tests/aoti_zoo.py) on the runtime, CPU, beside libtorch, through the CLI.

Each model is compiled once (cached on disk by torch version + model source), rewritten with
``shimgen prefix-imports`` (the CLI), then run with ``shimgen run`` in one child process that loaded
libtorch_cpu.so RTLD_GLOBAL first. Outputs must match eager torch; the runtime's shim-call counter
and the model's GOT bindings prove who served the calls.
"""

from __future__ import annotations

import json
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

from tests.aoti_helpers import BASELINE, prefix_imports_cli, run_beside_libtorch, torch_lib_dir  # noqa: E402

LIBTORCH_CPU = torch_lib_dir() / "libtorch_cpu.so"


@pytest.fixture(scope="session")
def zoo() -> dict[str, Path]:
    return aoti_zoo.ensure_compiled(list(aoti_zoo.ZOO))


@pytest.fixture(scope="session")
def zoo_runtime(cpu_runtime_with_tests) -> Path:
    return cpu_runtime_with_tests.artifacts[0].path


@pytest.fixture(scope="session")
def zoo_run(zoo, zoo_runtime, tmp_path_factory) -> tuple[dict, Path]:
    work = tmp_path_factory.mktemp("zoo")
    models = {}
    for name, directory in zoo.items():
        prefix_imports_cli(directory / "model.pt2", work / f"{name}.pt2")
        models[name] = (work / f"{name}.pt2", aoti_zoo.inputs_of(directory))
    done = run_beside_libtorch(models, zoo_runtime, work, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), work


@pytest.mark.parametrize("name", list(aoti_zoo.ZOO))
def test_zoo_model_imports_what_was_measured(zoo, name):
    extra, absent = aoti_zoo.CPU_IMPORTS[name]
    assert set(aoti_zoo.meta(zoo[name])["imports"]) == (BASELINE - absent) | extra


@pytest.mark.parametrize("name", list(aoti_zoo.ZOO))
def test_zoo_model_matches_eager_beside_libtorch(zoo, zoo_run, zoo_runtime, name):
    report, work = zoo_run
    result = report[name]
    assert result["code"] == 0
    assert result["unbound"] == []
    assert [Path(p).resolve() for p in result["bound_to"]] == [zoo_runtime.resolve()]
    assert result["served"] > 0
    model = aoti_zoo.ZOO[name]
    for i, expected_path in enumerate(aoti_zoo.expected_of(zoo[name])):
        got, expected = np.load(work / name / f"output_{i}.npy"), np.load(expected_path)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        assert np.allclose(got, expected, atol=model.atol, rtol=model.rtol), \
            f"{name}: max |runtime - eager| = {np.abs(got.astype(np.float64) - expected).max()}"


def test_real_model_error_paths_leave_nothing_behind(zoo, zoo_run, zoo_runtime, tmp_path):
    """shimgen_model_open / _run refusals on a real model (unknown model name, a device it was not
    compiled for, wrong counts, a null handle, a wrong-shaped input failing the model's own input
    check): no C++ allocation left over 51 rounds, no private directory, and the model still runs.
    The wrong-shaped input is the one that leaked: the model throws before taking its handle."""
    _, work = zoo_run
    listing = dict(line.split("=", 1) for line in (zoo_runtime.parent / "shimgen-tests.txt").read_text().splitlines()
                   if "=" in line)
    shape = np.load(aoti_zoo.inputs_of(zoo["layernorm_softmax"])[0]).shape
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch), "AOTI_RUNTIME_CHECK_INPUTS": "1"}
    done = subprocess.run([listing["leak_tests"], "loader_model_errors", str(work / "layernorm_softmax.pt2"),
                           *map(str, shape)], capture_output=True, text=True, timeout=300, env=env, check=False)
    ours = "\n".join(line for line in done.stderr.splitlines() if not line.startswith("Error: "))  # not the model's
    assert done.returncode == 0 and "loader_model_errors: ok" in done.stdout, done.stdout + ours[-3000:]
    assert not list(scratch.iterdir())
