"""A dynamic model whose guards torch turned into runtime assertions, on the runtime (CPU).

torch's export refuses a dynamic dim whose graph specializes on it ("Constraints violated"); torch
2.11 also refuses guards that hold but that its solver cannot prove (every transformers decoder on
CUDA, docs/aoti.md). ``prefer_deferred_runtime_asserts_over_guards=True`` exports anyway and leaves
the guard as an assertion in the compiled model. On the runtime such a model must run the shapes the
assertion allows and refuse the others as torch's own loader does: one line naming the expression,
exit 2, no output written. The same package under torch's loader is the control.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.aoti_helpers import prefix_imports_cli, run_one_input, run_with_torch_loader

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow


class EvenOnly(torch.nn.Module):
    """Specializes on the parity of its batch: export's guard ``B % 2 == 0``."""

    def forward(self, x):
        return x * 2 if x.shape[0] % 2 == 0 else x + 1


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> tuple[Path, Path]:
    import torch._inductor

    out = tmp_path_factory.mktemp("runtime-asserts")
    x = torch.randn(4, 3)
    batch = torch.export.Dim("B", min=2, max=64)
    with pytest.raises(Exception, match="Constraints violated"):  # torch refuses it as it stands
        torch.export.export(EvenOnly(), (x,), dynamic_shapes=({0: batch},))
    program = torch.export.export(EvenOnly(), (x,), dynamic_shapes=({0: batch},),
                                  prefer_deferred_runtime_asserts_over_guards=True)
    plain = Path(torch._inductor.aoti_compile_and_package(program, package_path=str(out / "model.pt2"),
                                                          inductor_configs={"aot_inductor.link_libtorch": False}))
    prefix_imports_cli(plain, out / "model.prefixed.pt2")
    return plain, out / "model.prefixed.pt2"


@pytest.mark.parametrize("batch", [2, 6, 64])
def test_a_shape_the_assertion_allows_runs_and_matches_eager(cpu_runtime, package, tmp_path, batch):
    x = torch.randn(batch, 3)
    done = run_one_input(package[1], cpu_runtime.library, x.numpy(), tmp_path)
    assert done.returncode == 0, done.stderr
    assert np.allclose(np.load(tmp_path / "out" / "output_0.npy"), (x * 2).numpy())


@pytest.mark.parametrize("batch", [3, 63])
def test_a_shape_the_assertion_refuses_fails_as_under_torch(cpu_runtime, package, tmp_path, batch):
    x = torch.randn(batch, 3)
    done = run_one_input(package[1], cpu_runtime.library, x.numpy(), tmp_path / "shimgen")
    assert done.returncode == 2, (done.returncode, done.stderr)
    said = re.search(r"Expected (.+?) to be True but received", done.stderr)
    assert said and "Mod(" in said.group(1), done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr and not (tmp_path / "shimgen" / "out" / "output_0.npy").exists()
    # Control: torch's own loader refuses the same shape with the same expression.
    np.save(tmp_path / "x.npy", x.numpy())
    loader = run_with_torch_loader(package[0], [tmp_path / "x.npy"], tmp_path / "torch")
    assert loader.returncode != 0 and said.group(1) in loader.stderr, loader.stderr[-2000:]
