"""The shims of inductor's debugging settings (src/ops/cpu/): aoti_torch_print_tensor_handle
(aot_inductor.debug_intermediate_value_printer="2"), aoti_torch_save_tensor_handle ("1"),
aoti_torch_check_inf_and_nan (nan_asserts) and aoti_record_function_start/_end
(cpp.enable_kernel_profile). Before they were served, `prefix-imports` refused such a model (the
runtime lacked the name), or, for the profiler's names (no aoti_torch_ prefix), left them plain: the
model did not load on the runtime and would have bound them into libtorch beside it. Checked through ctypes against torch (its values, torch.load of
the saved file, its error words), and end to end: each compiled model runs under `shimgen run` beside
nothing but the runtime, matches eager, and prints, saves or refuses as torch's loader does."""

from __future__ import annotations

import re
import subprocess
from ctypes import c_char_p, c_int64, c_void_p
from pathlib import Path

import numpy as np
import pytest

from tests.aoti_helpers import PREFIX, prefix_imports_cli, run_one_input, shim
from tests.cpu_shim_tensors import last_error

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


def compiled(tmp_path: Path, model: torch.nn.Module, x: torch.Tensor, **settings) -> Path:
    """The model compiled for the runtime with these inductor settings, then prefixed."""
    import torch._inductor

    package = torch._inductor.aoti_compile_and_package(
        torch.export.export(model, (x,)),
        package_path=str(tmp_path / "model.pt2"),
        inductor_configs={"aot_inductor.link_libtorch": False, **settings},
    )
    target = tmp_path / "model.prefixed.pt2"
    prefix_imports_cli(Path(package), target)
    return target


def shimgen_run(cpu_runtime, package: Path, x: torch.Tensor, where: Path, **env: str) -> subprocess.CompletedProcess:
    return run_one_input(package, cpu_runtime.library, x.numpy(), where, env=env)


class Model(torch.nn.Module):
    def forward(self, x):
        return (x * 2 + 1).relu().sum(-1)


def run_matching_eager(cpu_runtime, tmp_path: Path, x: torch.Tensor, **settings) -> tuple[Path, subprocess.CompletedProcess]:
    """Model compiled with these settings, prefixed, and run by `shimgen run` in tmp_path: it must
    succeed and match eager. The package and the run."""
    target = compiled(tmp_path, Model(), x, **settings)
    done = shimgen_run(cpu_runtime, target, x, tmp_path)
    assert done.returncode == 0, done.stderr
    assert np.allclose(np.load(tmp_path / "out" / "output_0.npy"), Model()(x).numpy(), atol=1e-6)
    return target, done


def test_a_model_compiled_with_the_debug_printer_runs_and_prints(cpu_runtime, tmp_path):
    x = torch.randn(3, 5)
    _, done = run_matching_eager(cpu_runtime, tmp_path, x, **{"aot_inductor.debug_intermediate_value_printer": "2"})
    # The model's input, as the printer shows it before the first kernel.
    assert "[  aoti_model_inputs - arg0_1  ]:" in done.stdout, done.stdout[:2000]
    assert "Size: [3, 5]" in done.stdout and "after_launch" in done.stdout


def save(rt, hs, tensor, names: tuple[str, str, str]) -> None:
    function = getattr(rt.lib, PREFIX + "aoti_torch_save_tensor_handle")
    function.restype = None
    function(hs.of(tensor), *(c_char_p(n.encode()) for n in names))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int64, torch.bool,
                                   torch.complex64])
def test_a_saved_tensor_loads_in_torch_with_its_values(rt, hs, capfd, tmp_path, monkeypatch, dtype):
    monkeypatch.chdir(tmp_path)
    gen = torch.Generator().manual_seed(1)
    x = (torch.randn(5, 7, generator=gen) * 4).to(dtype)[1:, ::2]  # a strided view with an offset
    capfd.readouterr()
    save(rt, hs, x, ("buf1", "before_launch", "cpp_fused_0"))
    path = tmp_path / "tmp" / "aoti_torch" / "before_launch_cpp_fused_0_buf1_cpu.pt"
    assert f"Saved tensor to {path}" in capfd.readouterr().out
    got = torch.load(path)  # weights_only: the file holds nothing but torch's tensor record
    assert got.dtype == dtype and got.shape == x.shape and torch.equal(got, x)


def test_a_name_with_a_slash_stays_in_the_folder_and_a_dtype_without_storage_is_reported(rt, hs, capfd, tmp_path,
                                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    capfd.readouterr()
    save(rt, hs, torch.ones(2), ("../../escape", "p", "k"))
    assert (tmp_path / "tmp" / "aoti_torch" / "p_k_.._.._escape_cpu.pt").is_file()
    assert not (tmp_path.parent / "escape_cpu.pt").exists()
    save(rt, hs, torch.ones(2).to(torch.float8_e4m3fn), ("f8", "p", "k"))  # torch.save pickles no storage class
    assert "cannot save f8: torch.save has no storage class" in capfd.readouterr().out


def test_a_model_compiled_to_save_its_tensors_writes_what_torch_loads(cpu_runtime, tmp_path):
    x = torch.randn(3, 5)
    _, done = run_matching_eager(cpu_runtime, tmp_path, x, **{"aot_inductor.debug_intermediate_value_printer": "1"})
    saved = sorted((tmp_path / "tmp" / "aoti_torch").glob("*.pt"))
    assert saved and done.stdout.count("Saved tensor to") == len(saved), done.stdout
    inputs = [p for p in saved if "arg0_1" in p.name]
    assert inputs and all(torch.equal(torch.load(p), x) for p in inputs)
    # The last kernel's output after its launch is the model's output.
    outputs = [torch.load(p) for p in saved if p.name.startswith("after_launch")]
    assert any(o.shape == (3,) and torch.allclose(o, Model()(x), atol=1e-6) for o in outputs), [p.name for p in saved]


def check(rt, hs, tensor, name: str = "arg0_1") -> int:
    function = shim(rt, "aoti_torch_check_inf_and_nan")
    function.argtypes = [c_char_p, c_void_p]
    return function(name.encode(), hs.of(tensor))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.complex64])
def test_check_inf_and_nan_says_what_torch_says(rt, hs, dtype):
    x = torch.randn(4, 6).to(dtype)
    assert check(rt, hs, x) == 0, last_error(rt)
    y = x.clone()
    y[2, 3] = float("inf")
    assert check(rt, hs, y.t()) != 0 and "At least one INF in arg0_1" in last_error(rt)
    y[0, 1] = float("nan")  # NaN is looked for first
    assert check(rt, hs, y[:, 1:], "buf7") != 0 and "At least one NaN in buf7" in last_error(rt)
    assert check(rt, hs, y[:, 2:3]) == 0, last_error(rt)  # a view past both


def test_check_inf_and_nan_passes_integers_and_reads_float8_codes(rt, hs):
    assert check(rt, hs, torch.arange(10)) == 0 and check(rt, hs, torch.ones(3, dtype=torch.bool)) == 0
    e5m2 = torch.tensor([1.0, float("inf")]).to(torch.float8_e5m2)
    assert check(rt, hs, e5m2) != 0 and "At least one INF" in last_error(rt)
    e4m3 = torch.tensor([1.0, float("nan")]).to(torch.float8_e4m3fn)
    assert check(rt, hs, e4m3) != 0 and "At least one NaN" in last_error(rt)
    assert check(rt, hs, torch.tensor([448.0, -2.0]).to(torch.float8_e4m3fn)) == 0, last_error(rt)


def test_a_model_compiled_with_nan_asserts_refuses_a_nan_input(cpu_runtime, tmp_path):
    x = torch.randn(3, 5)
    target, _ = run_matching_eager(cpu_runtime, tmp_path, x, nan_asserts=True)
    x[1, 2] = float("nan")
    done = shimgen_run(cpu_runtime, target, x, tmp_path)
    assert done.returncode != 0 and "At least one NaN in arg0_1" in done.stderr, done.stderr


def test_a_model_compiled_with_the_kernel_profiler_runs_and_reports_its_kernels(cpu_runtime, tmp_path):
    # Before: prefix-imports passed it (exit 0) with aoti_record_function_start/_end left plain, and
    # the runtime could not load it ("undefined symbol: aoti_record_function_end"); beside libtorch
    # they would have bound there.
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(8, 8)

        def forward(self, x):
            return torch.nn.functional.gelu(self.linear(x)).softmax(-1)

    torch.manual_seed(0)
    model, x = Block().eval(), torch.randn(4, 8)
    target = compiled(tmp_path, model, x, **{"cpp.enable_kernel_profile": True})
    quiet = shimgen_run(cpu_runtime, target, x, tmp_path)
    assert quiet.returncode == 0, quiet.stderr
    assert "shimgen profile" not in quiet.stderr  # off unless asked for
    with torch.no_grad():
        assert np.allclose(np.load(tmp_path / "out" / "output_0.npy"), model(x).numpy(), atol=1e-6)
    loud = shimgen_run(cpu_runtime, target, x, tmp_path / "loud", SHIMGEN_RUNTIME_PROFILE="1")
    assert loud.returncode == 0, loud.stderr
    ranges = re.findall(r"shimgen profile: (\S+) ([0-9.]+) us", loud.stderr)
    names = {name for name, _ in ranges}
    # a generated kernel, named after the graph's number in the compiling process
    assert any(re.fullmatch(r"graph_\d+_cpp_fused\w*", n) for n in names), loud.stderr
    assert "aoti_torch_cpu_addmm_out" in names, loud.stderr  # a fallback op, timed by name
    assert all(float(us) >= 0 for _, us in ranges)


def test_record_function_refuses_a_null_guard(rt):
    start = shim(rt, "aoti_record_function_start")
    start.argtypes = [c_char_p, c_void_p, c_void_p, c_int64, c_void_p]
    assert start(b"k", None, None, 0, None) != 0 and "guard is null" in last_error(rt)
    end = shim(rt, "aoti_record_function_end")
    end.argtypes = [c_void_p]
    assert end(None) != 0 and "guard is null" in last_error(rt)
