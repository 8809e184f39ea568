"""aoti_torch_print_tensor_handle (src/ops/cpu/print_tensor_handle.cpp): what a model compiled with
aot_inductor.debug_intermediate_value_printer="2" calls around each kernel. Before it was served,
`prefix-imports` refused such a model (the runtime lacked the name). Checked through ctypes against
torch's values, and end to end: a compiled model runs under `shimgen run`, matches eager, and prints
each kernel's tensors to stdout."""

from __future__ import annotations

import re
import subprocess
import sys
from ctypes import c_char_p
from pathlib import Path

import numpy as np
import pytest

from tests.aoti_helpers import PREFIX, prefix_imports_cli

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow


def printed(rt, hs, capfd, tensor, message: str) -> str:
    function = getattr(rt.lib, PREFIX + "aoti_torch_print_tensor_handle")
    function.restype = None
    capfd.readouterr()
    function(hs.of(tensor), c_char_p(message.encode()))
    return capfd.readouterr().out


def field(text: str, name: str) -> str:
    match = re.search(rf"^{name}: (.*)$", text, re.MULTILINE)
    assert match, (name, text)
    return match.group(1)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.float64])
def test_a_small_tensor_prints_its_values_and_summary(rt, hs, capfd, dtype):
    gen = torch.Generator().manual_seed(0)
    x = (torch.randn(4, 6, generator=gen) * 10).to(dtype).t()  # strided: values in row-major order of the view
    text = printed(rt, hs, capfd, x, "before_launch - kernel_0 - buf3")
    assert text.startswith("[  before_launch - kernel_0 - buf3  ]:\n")
    values = [float(v) for v in text.splitlines()[1].strip("[]").split(", ")]
    assert np.allclose(values, x.double().flatten().numpy(), rtol=1e-5)
    assert int(field(text, "Number of elements")) == 24
    assert float(field(text, "Min value")) == pytest.approx(x.double().min().item(), rel=1e-5)
    assert float(field(text, "Max value")) == pytest.approx(x.double().max().item(), rel=1e-5)
    assert float(field(text, "Mean value")) == pytest.approx(x.double().mean().item(), rel=1e-4, abs=1e-5)
    assert field(text, "Size") == "[6, 4]" and field(text, "Stride") == "[1, 6]"
    assert field(text, "Is contiguous") == "0" and field(text, "Device") == "cpu"


def test_a_large_tensor_prints_only_its_summary_and_complex_no_statistics(rt, hs, capfd):
    text = printed(rt, hs, capfd, torch.arange(65, dtype=torch.float32), "big")
    assert len(text.splitlines()[1]) < 40 and field(text, "Number of elements") == "65"  # no value list
    assert float(field(text, "Mean value")) == 32.0 and field(text, "Is contiguous") == "1"
    text = printed(rt, hs, capfd, torch.ones(3, dtype=torch.complex64), "complex")
    assert "Mean value" not in text and field(text, "Dtype") == "c10::complex<float>"


def test_a_model_compiled_with_the_debug_printer_runs_and_prints(cpu_runtime, tmp_path):
    import torch._inductor

    class Model(torch.nn.Module):
        def forward(self, x):
            return (x * 2 + 1).relu().sum(-1)

    x = torch.randn(3, 5)
    package = torch._inductor.aoti_compile_and_package(
        torch.export.export(Model(), (x,)), package_path=str(tmp_path / "model.pt2"),
        inductor_configs={"aot_inductor.link_libtorch": False, "aot_inductor.debug_intermediate_value_printer": "2"})
    target = tmp_path / "model.prefixed.pt2"
    prefix_imports_cli(Path(package), target)
    np.save(tmp_path / "x.npy", x.numpy())
    done = subprocess.run([sys.executable, "-m", "shimgen", "run", str(target), "--runtime", str(cpu_runtime.library),
                           "--input", str(tmp_path / "x.npy"), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert np.allclose(np.load(tmp_path / "out" / "output_0.npy"), Model()(x).numpy(), atol=1e-6)
    # The model's input, as the printer shows it before the first kernel.
    assert "[  aoti_model_inputs - arg0_1  ]:" in done.stdout, done.stdout[:2000]
    assert "Size: [3, 5]" in done.stdout and "after_launch" in done.stdout

