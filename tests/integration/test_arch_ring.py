"""The wider ring of architectures (tests/arch_ring.py, its cheap CI subset) on the runtime, CPU,
beside libtorch: compiled by stock torch (cached on disk), rewritten with ``shimgen prefix-imports``,
run with ``shimgen run`` in a child process that loaded libtorch_cpu.so first; every output matches
eager and every shim the model imports is bound to the runtime. The subset carries ops the named
zoo does not: selections through C shims and the proxy executor (kthvalue, median, median.dim),
EmbeddingBag, transposed convolution, top-p sampling (multinomial through the proxy executor). ``python scripts/zoo_cpu.py --ring`` runs the whole ring."""

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
from arch_ring import CI, RING  # noqa: E402

from shimgen.aoti import coverage  # noqa: E402
from tests.aoti_helpers import prefix_imports_cli, run_beside_libtorch  # noqa: E402

# What each CI model is here for (measured, torch 2.13 CPU): fallbacks the runtime must serve.
EXPECTED_FALLBACKS = {
    "order_stats": {"aoti_torch_cpu_kthvalue", "aoti_torch_cpu_median", "aoti_torch_proxy_executor_call_function"},
    "embedding_bag": {"aoti_torch_cpu__embedding_bag"},
    "conv_transpose": {"aoti_torch_cpu_convolution"},
    "top_p": {"aoti_torch_cpu_sort_stable", "aoti_torch_cpu_cumsum", "aoti_torch_proxy_executor_call_function"},
}


@pytest.fixture(scope="module")
def ring() -> dict[str, Path]:
    return aoti_zoo.ensure_compiled(list(CI), timeout=3000)


@pytest.fixture(scope="module")
def ring_run(ring, cpu_runtime, tmp_path_factory) -> tuple[dict, Path]:
    work = tmp_path_factory.mktemp("ring")
    models = {}
    for name, directory in ring.items():
        prefix_imports_cli(directory / "model.pt2", work / f"{name}.pt2")
        models[name] = (work / f"{name}.pt2", aoti_zoo.inputs_of(directory))
    done = run_beside_libtorch(models, cpu_runtime.library, work)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), work


@pytest.mark.parametrize("name", CI)
def test_ring_model_imports_the_ops_it_is_here_for(ring, name):
    fallbacks = set(coverage.fallbacks_of(aoti_zoo.meta(ring[name])["imports"]))
    assert EXPECTED_FALLBACKS[name] <= fallbacks, sorted(fallbacks)
    assert fallbacks <= coverage.served_by_runtime()


@pytest.mark.parametrize("name", CI)
def test_ring_model_matches_eager_beside_libtorch(ring, ring_run, cpu_runtime, name):
    report, work = ring_run
    result = report[name]
    assert result["code"] == 0 and result["unbound"] == []
    assert [Path(p).resolve() for p in result["bound_to"]] == [cpu_runtime.library.resolve()]
    assert result["served"] > 0
    for i, expected_path in enumerate(aoti_zoo.expected_of(ring[name])):
        got, expected = np.load(work / name / f"output_{i}.npy"), np.load(expected_path)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        assert np.allclose(got, expected, atol=RING[name].atol, rtol=0), \
            f"{name} output {i}: max |runtime - eager| = {np.abs(got.astype(np.float64) - expected).max()}"
