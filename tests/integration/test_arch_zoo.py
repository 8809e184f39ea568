"""Real architectures (tests/arch_zoo.py, the CI subset) on the runtime, CPU, beside libtorch:
compiled by stock torch (cached on disk), rewritten with ``shimgen prefix-imports``, run with
``shimgen run`` in a child process that loaded libtorch_cpu.so first; every output matches eager and
every shim the model imports is bound to the runtime. scripts/zoo_cpu.py runs the whole set."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import aoti_zoo  # noqa: E402 (tests/ put on sys.path just above)
from arch_zoo import ARCH, CI  # noqa: E402

from shimgen.aoti import coverage  # noqa: E402
from tests.aoti_helpers import assert_zoo_model_matches_eager, run_zoo_beside_libtorch  # noqa: E402

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def arch() -> dict[str, Path]:
    return aoti_zoo.ensure_compiled(list(CI), timeout=3000)


@pytest.fixture(scope="module")
def arch_run(arch, cpu_runtime, tmp_path_factory) -> tuple[dict, Path]:
    work = tmp_path_factory.mktemp("arch")
    return run_zoo_beside_libtorch(arch, cpu_runtime.library, work), work


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
    assert_zoo_model_matches_eager(name, arch[name], report, work, cpu_runtime.library, ARCH[name].atol)
