"""The small GEMM trusts an open model's parameters without comparing their bytes each call
(shimgen/runtime/src/immutable_ranges.h), and only them: a buffer the model mutates in place and then
multiplies by (a KV-cache-like state) must be compared, and repacked when it changed.

A real model compiled here: ``y = lin(x) + x @ w.T``, then ``w *= 1.5`` (``w`` a registered buffer, so
the next run's product reads the buffer's own memory, written in place by this run). Run five times through one open model on the runtime (the product takes the
AVX-512 kernel's packed-weight path: k = 16, n = 24), every run matches eager's run of the same
index; were the buffer trusted like the parameter, run 2 would reuse run 1's packed copy and miss
by ``0.5 * |x @ w.T|``. The cache's own trust and its end at a model's close are the native case
``packed_weight_immutable`` (tests/integration/test_runtime.py), with its negative control.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from shimgen.aoti.runner import Model, Runtime
from tests.aoti_helpers import prefix_imports_cli

pytestmark = pytest.mark.slow
RUNS = 5

COMPILE = """
import copy, sys, numpy as np, torch
import torch._inductor.config as config
config.aot_inductor.link_libtorch = False
out = sys.argv[1]
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 24)
        self.register_buffer("w", torch.randn(24, 16))
    def forward(self, x):
        y = self.lin(x) + x @ self.w.t()
        self.w.mul_(1.5)  # after the product: the next run's GEMM reads the constant's own memory
        return y
torch.manual_seed(0)
x = torch.randn(6, 16)
model = M().eval()
eager = copy.deepcopy(model)  # before export: the package's constants are the values it saw
program = torch.export.export(model, (x,))
torch._inductor.aoti_compile_and_package(program, package_path=out + "/model.pt2")
model = eager
np.save(out + "/x.npy", x.numpy())
with torch.no_grad():
    for i in range(int(sys.argv[2])):
        np.save(out + f"/eager{i}.npy", model(x).numpy())
"""


def test_a_mutated_buffer_is_compared_each_run_while_parameters_are_trusted(cpu_runtime, tmp_path):
    pytest.importorskip("torch")
    done = subprocess.run([sys.executable, "-c", COMPILE, str(tmp_path), str(RUNS)], capture_output=True, text=True,
                          timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    prefix_imports_cli(tmp_path / "model.pt2", tmp_path / "prefixed.pt2")
    x = np.load(tmp_path / "x.npy")
    with Model(Runtime(cpu_runtime.library, "executorch_"), tmp_path / "prefixed.pt2") as model:
        got = [model.run([x])[0] for _ in range(RUNS)]
    eager = [np.load(tmp_path / f"eager{i}.npy") for i in range(RUNS)]
    assert not np.allclose(eager[0], eager[1], atol=1e-3)  # the buffer does change the output
    for i in range(RUNS):
        assert np.allclose(got[i], eager[i], atol=1e-4, rtol=1e-5), \
            f"run {i}: max |runtime - eager| = {np.abs(got[i] - eager[i]).max()}"
