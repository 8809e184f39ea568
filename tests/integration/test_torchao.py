"""Models quantized with torchao's ``quantize_`` (tests/torchao_zoo.py) on the runtime, CPU
(docs/aoti.md, "torchao quantize_ configs"): compiled by stock torch with ``link_libtorch=False``,
rewritten by ``shimgen prefix-imports``, run by ``shimgen run`` beside libtorch, and compared with
eager (the quantized module) and with torch's own loader on the same package.

CI runs ``torchao_zoo.CI``: the bfloat16 int8 weight-only MLP (``_weight_int8pack_mm``) and the float32
int8 dynamic MLP (``_int_mm_out``), about 17 s to compile both on two cores, once (the zoo cache keeps
them). ``SHIMGEN_TORCHAO_ALL=1`` runs every entry (the Llamas add about 15 s of compiling each).

Controls: the float model's outputs (saved when the model was compiled) must lie outside the
tolerance the runtime is held to against torch's loader, and, for the float32 models, against eager:
a runtime or a compile that skipped the quantization (or a tolerance too loose to see it) fails there.
(In bfloat16 the compiled model is about as far from eager as the float model is; there torch's
loader, which the runtime matches bit for bit, is the comparison that sees the quantization.)

``SHIMGEN_TEST_RUNTIME=/path/libshimgen_runtime.so`` runs this file against an already built CPU
runtime instead of the session's build (a local shortcut; CI leaves it unset).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import aoti_zoo  # noqa: E402 (tests/ put on sys.path just above)
from torchao_zoo import CI, TORCHAO  # noqa: E402

from shimgen.aoti import coverage  # noqa: E402
from tests.aoti_helpers import (  # noqa: E402
    assert_zoo_model_matches_eager,
    run_with_torch_loader,
    run_zoo_beside_libtorch,
    torch_lib_dir,
)

NAMES = list(TORCHAO) if os.environ.get("SHIMGEN_TORCHAO_ALL") else list(CI)
# The quantized op each model is here for, where inductor emits one (measured, torch 2.13 CPU,
# torchao 0.18); the rest dequantize in generated code and multiply with mm_out / addmm_out.
EXPECTED = {
    "tao_int8wo_mlp_bf16": {"aoti_torch_cpu__weight_int8pack_mm"},
    "tao_int8wo_llama_bf16": {"aoti_torch_cpu__weight_int8pack_mm"},
    "tao_int8wo_mlp_bf16_frozen": {"aoti_torch_cpu__linear_pointwise"},
    "tao_int8dyn_mlp": {"aoti_torch_cpu__int_mm_out"},
    "tao_int8dyn_llama": {"aoti_torch_cpu__int_mm_out"},
}
# The runtime against torch's loader on the same package: the same kernels' roundings (measured 0 for
# both CI models and the dynamic Llama, at most 2.4e-7 for the float32 ones; the bfloat16 Llama 2.4e-3,
# its attention and norms rounding to bfloat16 differently, one bfloat16 step at these logits).
LOADER_ATOL = {"tao_int8wo_llama_bf16": 0.004}
# Where eager's tolerance is too loose to see the quantization: in bfloat16, and for the dynamic Llama,
# the compiled model (torch's loader too) is about as far from eager as the float model is (measured:
# the bf16 MLP 5.1e-3 from eager, its float model 5.9e-3; the dynamic Llama 6.5e-3 and 7.6e-3). There
# the control is torch's loader alone.
NO_EAGER_CONTROL = {"tao_int8wo_mlp_bf16", "tao_int8wo_mlp_bf16_frozen", "tao_int8wo_llama_bf16", "tao_int8dyn_llama"}


@pytest.fixture(scope="module")
def runtime_library(request) -> Path:
    explicit = os.environ.get("SHIMGEN_TEST_RUNTIME")
    return Path(explicit).resolve() if explicit else request.getfixturevalue("cpu_runtime").library


@pytest.fixture(scope="module")
def compiled() -> dict[str, Path]:
    torch_lib_dir()
    return aoti_zoo.ensure_compiled(NAMES, timeout=3600)


@pytest.fixture(scope="module")
def ran(compiled, runtime_library, tmp_path_factory) -> tuple[dict, Path]:
    work = tmp_path_factory.mktemp("torchao")
    return run_zoo_beside_libtorch(compiled, runtime_library, work), work


@pytest.fixture(scope="module")
def loader_outputs(compiled, tmp_path_factory) -> dict[str, Path]:
    """torch's own loader (libtorch global) on each unprefixed package: name -> its output folder."""
    folders = {}
    for name, directory in compiled.items():
        out = tmp_path_factory.mktemp(f"loader-{name}")
        done = run_with_torch_loader(directory / "model.pt2", aoti_zoo.inputs_of(directory), out, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        folders[name] = out
    return folders


def _max_diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())


@pytest.mark.parametrize("name", NAMES)
def test_model_imports_the_quantized_op(compiled, name):
    fallbacks = set(coverage.fallbacks_of(aoti_zoo.meta(compiled[name])["imports"]))
    assert EXPECTED.get(name, set()) <= fallbacks, sorted(fallbacks)
    assert fallbacks <= coverage.served_by_runtime(), sorted(fallbacks - coverage.served_by_runtime())


@pytest.mark.parametrize("name", NAMES)
def test_model_matches_eager_beside_libtorch(compiled, ran, runtime_library, name):
    report, work = ran
    assert_zoo_model_matches_eager(name, compiled[name], report, work, runtime_library, TORCHAO[name].atol,
                                   TORCHAO[name].rtol)


@pytest.mark.parametrize("name", NAMES)
def test_model_matches_torchs_loader(compiled, ran, loader_outputs, name):
    _, work = ran
    tolerance = LOADER_ATOL.get(name, 1e-6)
    for i, _ in enumerate(aoti_zoo.expected_of(compiled[name])):
        got = np.load(work / name / f"output_{i}.npy")
        torchs = np.load(loader_outputs[name] / f"output_{i}.npy")
        assert got.shape == torchs.shape and got.dtype == torchs.dtype
        assert _max_diff(got, torchs) <= tolerance, f"{name} output {i}: max |runtime - torch's loader| = {_max_diff(got, torchs)}"


@pytest.mark.parametrize("name", NAMES)
def test_control_the_float_model_is_outside_both_tolerances(compiled, loader_outputs, name):
    """The unquantized model's outputs fail both comparisons above: they see the quantization."""
    directory = compiled[name]
    for i, float_path in enumerate(aoti_zoo.float_expected_of(directory)):
        floats = np.load(float_path)
        eager = np.load(aoti_zoo.expected_of(directory)[i])
        torchs = np.load(loader_outputs[name] / f"output_{i}.npy")
        if name not in NO_EAGER_CONTROL:
            assert not np.allclose(floats, eager, atol=TORCHAO[name].atol, rtol=TORCHAO[name].rtol), \
                f"{name}: the float model is within {TORCHAO[name].atol} of the quantized one"
        assert _max_diff(floats, torchs) > LOADER_ATOL.get(name, 1e-6), \
            f"{name}: the float model is within {LOADER_ATOL.get(name, 1e-6)} of torch's loader: {_max_diff(floats, torchs)}"
