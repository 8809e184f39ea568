"""Real architectures (tests/arch_zoo.py, the CI subset) on the runtime, CPU, beside libtorch:
compiled by stock torch (cached on disk), rewritten with ``shimgen prefix-imports``, run with
``shimgen run`` in a child process that loaded libtorch_cpu.so first; every output matches eager and
every shim the model imports is bound to the runtime. scripts/zoo_cpu.py runs the whole set."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import aoti_zoo  # noqa: E402 (tests/ put on sys.path just above)
from arch_zoo import ARCH, CI  # noqa: E402

from shimgen.aoti import coverage  # noqa: E402
from tests.aoti_helpers import prefix_imports_cli, run_beside_libtorch  # noqa: E402

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def arch() -> dict[str, Path]:
    return aoti_zoo.ensure_compiled(list(CI), timeout=3000)


@pytest.fixture(scope="module")
def arch_run(arch, cpu_runtime, tmp_path_factory) -> tuple[dict, Path]:
    work = tmp_path_factory.mktemp("arch")
    models = {}
    for name, directory in arch.items():
        prefix_imports_cli(directory / "model.pt2", work / f"{name}.pt2")
        models[name] = (work / f"{name}.pt2", aoti_zoo.inputs_of(directory))
    done = run_beside_libtorch(models, cpu_runtime.library, work)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), work


# What each CI model imports beyond plumbing (measured, torch 2.13 CPU): the ops the runtime must serve.
EXPECTED_FALLBACKS = {
    "qwen2": {"aoti_torch_cpu_cumsum", "aoti_torch_cpu_mm_out", "aoti_torch_cpu_addmm_out",
              "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu"},
    "mixtral_batched": {"aoti_torch_cpu_topk", "aoti_torch_cpu_mm_out",
                        "aoti_torch_cpu__scaled_dot_product_flash_attention_for_cpu"},
    "sampling": {"aoti_torch_cpu_topk", "aoti_torch_cpu_sort_stable", "aoti_torch_cpu_cumsum"},
}


@pytest.mark.parametrize("name", CI)
def test_arch_imports_the_ops_it_is_here_for(arch, name):
    fallbacks = set(coverage.fallbacks_of(aoti_zoo.meta(arch[name])["imports"]))
    assert EXPECTED_FALLBACKS[name] <= fallbacks, sorted(fallbacks)
    assert fallbacks <= coverage.served_by_runtime()


@pytest.mark.parametrize("name", CI)
def test_arch_matches_eager_beside_libtorch(arch, arch_run, cpu_runtime, name):
    report, work = arch_run
    result = report[name]
    assert result["code"] == 0 and result["unbound"] == []
    assert [Path(p).resolve() for p in result["bound_to"]] == [cpu_runtime.library.resolve()]
    assert result["served"] > 0
    for i, expected_path in enumerate(aoti_zoo.expected_of(arch[name])):
        got, expected = np.load(work / name / f"output_{i}.npy"), np.load(expected_path)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        assert np.allclose(got, expected, atol=ARCH[name].atol, rtol=0), \
            f"{name} output {i}: max |runtime - eager| = {np.abs(got.astype(np.float64) - expected).max()}"
