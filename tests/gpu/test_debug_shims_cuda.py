"""Inductor's debugging settings on a CUDA model (the CPU side: tests/integration/test_debug_shims.py).

A CUDA model compiled with ``debug_intermediate_value_printer`` "2" or "1", or with ``nan_asserts``,
hands device tensors to aoti_torch_print_tensor_handle, aoti_torch_save_tensor_handle and
aoti_torch_check_inf_and_nan, which read them through a host copy (src/ops/cpu/host_view.h). Each model
is compiled for CUDA, prefixed, and run by ``shimgen run --device cuda:0`` beside libtorch: it matches
eager and prints, saves (a file torch.load reads, equal to the device tensor) or refuses a NaN input.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.aoti_helpers import PREFIX, prefix_imports_cli, run_on_cuda_beside_libtorch

torch = pytest.importorskip("torch")
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import aoti_zoo  # noqa: E402 (tests/ put on sys.path just above)

pytestmark = [pytest.mark.gpu, pytest.mark.slow]
SETTINGS = {
    "printer": {"aot_inductor.debug_intermediate_value_printer": "2"},
    "saver": {"aot_inductor.debug_intermediate_value_printer": "1"},
    "nan_asserts": {"nan_asserts": True},
}
SHIM = {"printer": "aoti_torch_print_tensor_handle", "saver": "aoti_torch_save_tensor_handle",
        "nan_asserts": "aoti_torch_check_inf_and_nan"}


class Model(torch.nn.Module):
    def forward(self, x):
        return (x * 2 + 1).relu().sum(-1)


@pytest.fixture(scope="module")
def packages(cuda, tmp_path_factory) -> dict[str, Path]:
    import torch._inductor

    out = tmp_path_factory.mktemp("debug-cuda")
    x = torch.randn(3, 5, device="cuda")
    made = {}
    for name, settings in SETTINGS.items():
        package = torch._inductor.aoti_compile_and_package(
            torch.export.export(Model(), (x,)), package_path=str(out / f"{name}.pt2"),
            inductor_configs={"aot_inductor.link_libtorch": False, **settings})
        made[name] = out / f"{name}.prefixed.pt2"
        prefix_imports_cli(Path(package), made[name])
        # The compiled model calls the shim under test (prefixed), or this test would prove nothing.
        imports = aoti_zoo.shim_imports(made[name])
        assert PREFIX + SHIM[name] in imports, imports
    return made


def _run(cuda, package: Path, x: torch.Tensor, where: Path):
    where.mkdir(parents=True, exist_ok=True)
    np.save(where / "x.npy", x.cpu().numpy())
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return run_on_cuda_beside_libtorch(package, [where / "x.npy"], cuda.rt.path, where / "out", cwd=where,
                                       env={"PYTHONPATH": path})


def _matches_eager(where: Path, x: torch.Tensor) -> bool:
    return bool(np.allclose(np.load(where / "out" / "output_0.npy"), Model()(x).cpu().numpy(), atol=1e-5))


def test_the_printer_shows_a_device_tensor(cuda, packages, tmp_path):
    x = torch.randn(3, 5, device="cuda")
    done = _run(cuda, packages["printer"], x, tmp_path)
    assert done.returncode == 0, done.stderr
    assert _matches_eager(tmp_path, x)
    block = done.stdout[done.stdout.index("[  aoti_model_inputs - arg0_1  ]:"):]
    values = [float(v) for v in block.splitlines()[1].strip("[]").split(", ")]
    assert np.allclose(values, x.flatten().cpu().numpy(), rtol=1e-5), block[:400]
    assert re.search(r"^Device: cuda:0$", block, re.MULTILINE), block[:600]


def test_the_saver_writes_what_torch_loads_from_a_device_tensor(cuda, packages, tmp_path):
    x = torch.randn(3, 5, device="cuda")
    done = _run(cuda, packages["saver"], x, tmp_path)
    assert done.returncode == 0, done.stderr
    assert _matches_eager(tmp_path, x)
    saved = sorted((tmp_path / "tmp" / "aoti_torch").glob("*.pt"))
    assert saved and all(p.name.endswith("_cuda:0.pt") for p in saved), [p.name for p in saved]
    assert done.stdout.count("Saved tensor to") == len(saved), done.stdout
    inputs = [p for p in saved if "arg0_1" in p.name]
    # The host copy holds the device tensor's values (saved with a CPU storage: loads without a GPU).
    assert inputs and all(torch.equal(torch.load(p), x.cpu()) for p in inputs)


def test_nan_asserts_refuse_a_nan_device_input(cuda, packages, tmp_path):
    x = torch.randn(3, 5, device="cuda")
    done = _run(cuda, packages["nan_asserts"], x, tmp_path / "clean")
    assert done.returncode == 0, done.stderr
    assert _matches_eager(tmp_path / "clean", x)
    x[1, 2] = float("nan")
    done = _run(cuda, packages["nan_asserts"], x, tmp_path / "nan")
    assert done.returncode != 0 and "At least one NaN in arg0_1" in done.stderr, done.stderr[-2000:]
    x[1, 2] = float("inf")
    done = _run(cuda, packages["nan_asserts"], x, tmp_path / "inf")
    assert done.returncode != 0 and "At least one INF in arg0_1" in done.stderr, done.stderr[-2000:]


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q", "-s"]))
