"""What `shimgen run` and the Python API read and write: byte order, half precision, DLPack, and
which runtime library they load. Real AOTInductor models compiled by the installed torch; expected
values from eager torch in the compiling process (tests/aoti_models.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shimgen.aoti.capi import Runtime
from shimgen.aoti.prefix_imports import prefix_imports_with_config
from shimgen.errors import InputError
from shimgen.project.config import load_config
from shimgen.resources import default_config
from tests.aoti_helpers import PREFIX

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> Path:
    """pointwise (float32) and mixed_half (bf16 and fp16 in and out), compiled and prefixed."""
    out = tmp_path_factory.mktemp("aoti-io")
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(out / "inductor-cache")}
    done = subprocess.run([sys.executable, str(REPO / "tests" / "aoti_models.py"), "compile", str(out), "pointwise",
                           "mixed_half"], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    config = load_config(default_config())
    for name in ("pointwise", "mixed_half"):
        prefix_imports_with_config(out / f"{name}.pt2", out / f"{name}.prefixed.pt2", config)
    return out


@pytest.fixture(scope="module")
def runtime_lib(cpu_runtime) -> Path:
    return cpu_runtime.library


def _run_cli(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shimgen", "run", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=180, env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})


# ---- byte order (issue 19 item 6) ----

def test_big_endian_inputs_give_eager_results(models, runtime_lib, tmp_path):
    inputs = []
    for i in range(2):
        array = np.load(models / f"pointwise.in{i}.npy").astype(">f4")
        assert array.tobytes() != array.astype("<f4").tobytes()  # the bytes really differ
        np.save(tmp_path / f"be{i}.npy", array)
        inputs += ["-i", str(tmp_path / f"be{i}.npy")]
    done = _run_cli(str(models / "pointwise.prefixed.pt2"), "--runtime", str(runtime_lib), "-o", str(tmp_path), *inputs)
    assert done.returncode == 0, done.stderr
    got, expected = np.load(tmp_path / "output_0.npy"), np.load(models / "pointwise.out0.npy")
    assert got.dtype == np.float32 and np.abs(got - expected).max() <= 1e-6


def test_the_api_refuses_to_borrow_non_native_bytes(runtime_lib):
    rt = Runtime(runtime_lib, PREFIX)
    with pytest.raises(InputError, match="byte order"):
        rt.tensor_from_array(np.zeros(4, ">f4"))


# ---- which library is loaded (issue 19 item 8) ----

@pytest.mark.parametrize("how", ["--runtime", "env"])
def test_a_relative_runtime_path_loads_that_file_not_a_namesake(models, runtime_lib, tmp_path, how):
    """``./x.so`` must not turn into ``x.so``, which dlopen looks up on the library path: a decoy
    x.so there (a library without the runtime's API) must never be the one loaded."""
    decoy_dir = tmp_path / "decoy"
    decoy_dir.mkdir()
    (decoy_dir / "d.c").write_text("int not_the_runtime(void) { return 0; }\n")
    subprocess.run([shutil.which("gcc") or "cc", "-shared", "-fPIC", str(decoy_dir / "d.c"), "-o",
                    str(decoy_dir / "x.so")], check=True)
    here = tmp_path / "here"
    here.mkdir()
    shutil.copyfile(runtime_lib, here / "x.so")
    inputs = [arg for i in range(2) for arg in ("-i", str(models / f"pointwise.in{i}.npy"))]
    env = {"LD_LIBRARY_PATH": str(decoy_dir)}
    args = [str(models / "pointwise.prefixed.pt2"), "-o", str(tmp_path / "out"), *inputs]
    if how == "--runtime":
        args += ["--runtime", "./x.so"]
    else:
        env["SHIMGEN_RUNTIME"] = "./x.so"
    done = _run_cli(*args, cwd=here, env=env)
    assert done.returncode == 0, done.stderr
    assert np.abs(np.load(tmp_path / "out" / "output_0.npy") - np.load(models / "pointwise.out0.npy")).max() <= 1e-6
