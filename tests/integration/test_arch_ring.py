"""The wider ring of architectures (tests/arch_ring.py, its cheap CI subset) on the runtime, CPU,
beside libtorch: compiled by stock torch (cached on disk), rewritten with ``shimgen prefix-imports``,
run with ``shimgen run`` in a child process that loaded libtorch_cpu.so first; every output matches
eager and every shim the model imports is bound to the runtime. The subset carries ops the named
zoo does not: selections through C shims and the proxy executor (kthvalue, median, median.dim),
EmbeddingBag, transposed convolution, top-p sampling (multinomial through the proxy executor), FFTs
and complex tensors (_fft_c2r and complex through the proxy executor), boolean-mask and int64-accumulating
index_put_ (aoti_torch_index_put_out) with bfloat16 index_add (aten::index_add through the proxy),
volumetric grid_sample (grid_sampler_3d), dense linear algebra (LAPACK:
cholesky_solve and the Householder/LU/triangular C shims, 17 linalg targets through the proxy executor).
``python scripts/zoo_cpu.py --ring`` runs the whole ring (op_shapes_4 and the rest of round 4 among it)."""

from __future__ import annotations

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
from tests.aoti_helpers import assert_zoo_model_matches_eager, run_with_torch_loader, run_zoo_beside_libtorch  # noqa: E402
from tests.support import load_script  # noqa: E402

# What each CI model is here for (measured, torch 2.13 CPU): fallbacks the runtime must serve.
EXPECTED_FALLBACKS = {
    "order_stats": {"aoti_torch_cpu_kthvalue", "aoti_torch_cpu_median", "aoti_torch_proxy_executor_call_function"},
    "embedding_bag": {"aoti_torch_cpu__embedding_bag"},
    "conv_transpose": {"aoti_torch_cpu_convolution"},
    "top_p": {"aoti_torch_cpu_sort_stable", "aoti_torch_cpu_cumsum", "aoti_torch_proxy_executor_call_function"},
    # FFTs and complex tensors: C shims plus _fft_c2r and complex through the proxy executor.
    "fft": {"aoti_torch_cpu__fft_c2c", "aoti_torch_cpu__fft_r2c", "aoti_torch_cpu_view_as_real",
            "aoti_torch_cpu_mul_Tensor", "aoti_torch_proxy_executor_call_function"},
    # Round 3: index writes inductor leaves to the device-free index_put_out shim and the proxy.
    "index_put_mask": {"aoti_torch_index_put_out", "aoti_torch_proxy_executor_call_function"},
    # No fallback: here for its 0-d input (the loop's trip count), which the runner once made 1-d.
    "while_loop_counter": set(),
    # torchvision's six custom ops: every one through the proxy executor; the DCN's offset and mask convolutions.
    "torchvision_ops": {"aoti_torch_cpu_convolution", "aoti_torch_proxy_executor_call_function"},
    "grid_sample_3d": {"aoti_torch_cpu_grid_sampler_3d"},
    # LAPACK (src/ops/cpu/linalg.h): cholesky_solve by C shim, the factorizations through the proxy executor.
    "linalg": {"aoti_torch_cpu_cholesky_solve", "aoti_torch_proxy_executor_call_function"},
    "linalg_more": {"aoti_torch_cpu_cholesky_inverse", "aoti_torch_cpu_geqrf", "aoti_torch_cpu_lu_unpack",
                    "aoti_torch_cpu_ormqr", "aoti_torch_cpu_triangular_solve", "aoti_torch_proxy_executor_call_function"},
    # Round 4: F.embedding's max_norm (aten::embedding_renorm through the proxy), cdist with p != 2,
    # stable and descending sorts, int32 bucketize.
    "op_shapes_4": {"aoti_torch_cpu__cdist_forward", "aoti_torch_cpu_sort_stable", "aoti_torch_cpu_bucketize_Tensor",
                    "aoti_torch_proxy_executor_call_function"},
}


@pytest.fixture(scope="module")
def ring() -> dict[str, Path]:
    return aoti_zoo.ensure_compiled(list(CI), timeout=3000)


@pytest.fixture(scope="module")
def ring_run(ring, cpu_runtime, tmp_path_factory) -> tuple[dict, Path]:
    work = tmp_path_factory.mktemp("ring")
    return run_zoo_beside_libtorch(ring, cpu_runtime.library, work), work


@pytest.mark.parametrize("name", CI)
def test_ring_model_imports_the_ops_it_is_here_for(ring, name):
    fallbacks = set(coverage.fallbacks_of(aoti_zoo.meta(ring[name])["imports"]))
    assert EXPECTED_FALLBACKS[name] <= fallbacks, sorted(fallbacks)
    assert fallbacks <= coverage.served_by_runtime()


@pytest.mark.parametrize("name", CI)
def test_ring_model_matches_eager_beside_libtorch(ring, ring_run, cpu_runtime, name):
    report, work = ring_run
    assert_zoo_model_matches_eager(name, ring[name], report, work, cpu_runtime.library, RING[name].atol,
                                   RING[name].rtol)


@pytest.mark.parametrize("name", CI)
def test_ring_model_outputs_depend_on_its_inputs(name):
    """What the match above is worth: eager's outputs for a second draw of the inputs move past the
    entry's tolerance (scripts/ring_sensitivity.py), so a runtime that got the input-dependent part
    wrong would not pass. Eager only; no package needed."""
    sensitivity = load_script("ring_sensitivity")
    for label, verdict in sensitivity.judge(name):
        assert sensitivity.free(label) or verdict == "ok" or verdict.startswith("WEAK"), (label, verdict)


def test_torch_loader_arbiter_runs_a_ring_package(ring, tmp_path):
    """tests/gpu/test_ring_cuda.py asks torch's own loader whose difference a mismatch is; the same
    helper here, on CPU: it runs a link_libtorch=False package and matches eager. Control: without
    libtorch made global first, torch's loader cannot even load the package (the model .so leaves the
    aoti_torch_* names to the process)."""
    name = "conv_transpose"
    directory = ring[name]
    completed = run_with_torch_loader(directory / "model.pt2", aoti_zoo.inputs_of(directory), tmp_path)
    assert completed.returncode == 0, completed.stderr[-2000:]
    expected = [np.load(p) for p in aoti_zoo.expected_of(directory)]
    for index, want in enumerate(expected):
        np.testing.assert_allclose(np.load(tmp_path / f"output_{index}.npy"), want, atol=RING[name].atol)
    control = run_with_torch_loader(directory / "model.pt2", aoti_zoo.inputs_of(directory), tmp_path,
                                    libtorch_global=False)
    assert control.returncode != 0 and "undefined symbol" in control.stderr, control.stderr[-2000:]
