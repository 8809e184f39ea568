"""The runtime's proxy executor on CPU (issue 22): models whose generated code hands ops without a C
shim to aoti_torch_proxy_executor_call_function, compiled by torch (tests/proxy_models.py), rewritten
by `shimgen prefix-imports` and run by `shimgen run` beside libtorch.

- grouped_mm: transformers' MoE fallback op, served by the runtime (its mm_out shim per expert);
  output equals eager torch's.
- index_add: bfloat16 index_add served by the runtime's own op, alpha given and defaulted, with
  bincount's default minlength (int arguments the JSON leaves out but the call passes); equals eager.
- embedding_renorm: F.embedding with max_norm (aten::embedding_renorm) over norm types 2, 1, inf (the
  JSON spells it "Infinity"), 3 and 0, repeated and unnamed rows, int32 indices, a strided float64
  weight and bfloat16: every lookup and every renormed weight equals eager's.
- histogramdd: torch.histogramdd's edges through the proxy (aten::_histogramdd_bin_edges, its `range`
  an as_floats list) and counts through the C shim, with data ranges, given ranges, weights, density,
  float64: every edge and count equals eager's.
- complex_arith: complex sub (alpha), div (by complex, real), exp, conj_physical through the proxy:
  within float rounding of eager (complex128 to 1e-12).
- unique_rows: unique over rows and over a middle dim, unique_consecutive with a dim (aten::unique_dim,
  aten::unique_consecutive), nanmedian along a dim (aten::nanmedian.dim): equal to eager.
- upsample_aa: antialiased bilinear and bicubic resizing (aten::_upsample_{bilinear,bicubic}2d_aa):
  down and up, align_corners, a scale factor, strided, float64, a channels-last input (its result
  channels-last, as torch's meta function lays it out); every output near eager's.
- custom_op: an op no runtime can know; `shimgen run` refuses the package with one line naming it
  (and the coverage table) and exit 2: the negative control.
- linalg_checks: cholesky and inv through the proxy executor (linalg_cholesky_ex, linalg_inv_ex) and
  their info checks (_linalg_check_errors): a positive-definite input matches eager, one that is not
  fails the run with torch's own LinAlgError message.
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.aoti_helpers import prefix_imports_cli, torch_lib_dir

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> Path:
    torch_lib_dir()
    pytest.importorskip("transformers")
    sys.path.insert(0, str(REPO / "tests"))
    import aoti_zoo

    out = aoti_zoo.cache_root() / "proxy-models"
    completed = subprocess.run([sys.executable, str(REPO / "tests" / "proxy_models.py"), str(out)],
                               capture_output=True, text=True, timeout=900, check=False)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return out


def _run(model_dir: Path, runtime: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    target = tmp_path / "model.pt2"
    prefix_imports_cli(model_dir / "model.pt2", target)
    command = [sys.executable, "-m", "shimgen", "run", str(target), "-o", str(tmp_path), "--runtime", str(runtime)]
    for path in sorted(model_dir.glob("in*.npy"), key=lambda p: int(p.stem[2:])):  # in2 before in10
        command += ["--input", str(path)]
    env = {**os.environ, "LD_PRELOAD": str(torch_lib_dir() / "libtorch_cpu.so")}  # beside libtorch
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, timeout=300, check=False)


def test_package_carries_the_extern_kernel_json(models):
    with zipfile.ZipFile(models / "grouped_mm" / "model.pt2") as archive:
        names = archive.namelist()
        wrapper = next(n for n in names if n.endswith(".so"))
        source = archive.read(next(n for n in names if n.endswith(".cpp") and "wrapper" in n)).decode()
    assert wrapper[:-3] + ".json" in names
    assert "aoti_torch_proxy_executor_call_function" in source


def test_proxy_call_served_matches_eager(models, cpu_runtime, tmp_path):
    completed = _run(models / "grouped_mm", cpu_runtime.library, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    got, want = np.load(tmp_path / "output_0.npy"), np.load(models / "grouped_mm" / "out0.npy")
    assert got.shape == want.shape == (12, 24)
    error = float(np.abs(got - want).max())
    print(f"grouped_mm through the proxy: max |shimgen - eager| = {error:.3g}")
    assert error <= 1e-4


def test_index_add_and_defaulted_int_arguments_match_eager(models, cpu_runtime, tmp_path):
    completed = _run(models / "index_add", cpu_runtime.library, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    got, want = np.load(tmp_path / "output_0.npy"), np.load(models / "index_add" / "out0.npy")
    assert got.shape == want.shape == (24 + 20 + 6,)
    assert np.array_equal(got, want), np.abs(got - want).max()


def test_embedding_renorm_matches_eager(models, cpu_runtime, tmp_path):
    completed = _run(models / "embedding_renorm", cpu_runtime.library, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    expected = sorted((models / "embedding_renorm").glob("out*.npy"), key=lambda p: int(p.stem[3:]))
    assert len(expected) == 12
    w = np.load(models / "embedding_renorm" / "in0.npy")
    for k, path in enumerate(expected):
        got, want = np.load(tmp_path / f"output_{k}.npy"), np.load(path)
        assert got.shape == want.shape and got.dtype == want.dtype, (k, got.shape, want.shape)
        # float32/64 within rounding of the norm's sum; the bfloat16 pair (8, 9) within one bf16 ulp.
        atol = {6: 1e-12, 7: 1e-12, 8: 8e-3, 9: 8e-3}.get(k, 2e-7)
        assert np.allclose(got, want, atol=atol, rtol=0), (k, float(np.abs(got - want).max()))
    # The model renormed something: weight a's named rows shrank to norm 1, rows 8 and 9 kept theirs.
    a = np.load(tmp_path / "output_1.npy")
    assert np.linalg.norm(w, axis=1).max() > 1.5 and np.linalg.norm(a[:8], axis=1).max() <= 1.0 + 1e-6
    assert np.array_equal(a[8:], w[8:])


def test_histogramdd_matches_eager(models, cpu_runtime, tmp_path):
    completed = _run(models / "histogramdd", cpu_runtime.library, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    expected = sorted((models / "histogramdd").glob("out*.npy"), key=lambda p: int(p.stem[3:]))
    assert len(expected) == 10
    for k, path in enumerate(expected):
        got, want = np.load(tmp_path / f"output_{k}.npy"), np.load(path)
        assert got.shape == want.shape and got.dtype == want.dtype, (k, got.shape, want.shape)
        assert np.allclose(got, want, atol=1e-6, rtol=1e-6), (k, float(np.abs(got - want).max()))
    assert np.array_equal(np.load(tmp_path / "output_3.npy"), np.array([-0.25, 0.25, 0.75], dtype=np.float32))


def test_complex_arith_matches_eager(models, cpu_runtime, tmp_path):
    completed = _run(models / "complex_arith", cpu_runtime.library, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    expected = sorted((models / "complex_arith").glob("out*.npy"), key=lambda p: int(p.stem[3:]))
    assert len(expected) == 6
    for k, path in enumerate(expected):
        got, want = np.load(tmp_path / f"output_{k}.npy"), np.load(path)
        assert got.shape == want.shape and got.dtype == want.dtype, (k, got.shape, want.shape)
        tol = 1e-12 if want.dtype == np.float64 else 1e-5
        assert np.allclose(got, want, atol=tol, rtol=tol), (k, float(np.abs(got - want).max()))


def test_unique_dim_and_nanmedian_dim_match_eager(models, cpu_runtime, tmp_path):
    completed = _run(models / "unique_rows", cpu_runtime.library, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    expected = sorted((models / "unique_rows").glob("out*.npy"), key=lambda p: int(p.stem[3:]))
    assert len(expected) == 11
    for k, path in enumerate(expected):
        got, want = np.load(tmp_path / f"output_{k}.npy"), np.load(path)
        assert got.shape == want.shape and got.dtype == want.dtype, (k, got.shape, want.shape)
        assert np.array_equal(got, want, equal_nan=got.dtype.kind == "f"), (k, got, want)
    assert np.load(tmp_path / "output_0.npy").shape == (5, 3)  # 8 rows, 5 distinct


def test_upsample_aa_matches_eager(models, cpu_runtime, tmp_path):
    completed = _run(models / "upsample_aa", cpu_runtime.library, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    expected = sorted((models / "upsample_aa").glob("out*.npy"), key=lambda p: int(p.stem[3:]))
    assert len(expected) == 10
    for k, path in enumerate(expected):
        got, want = np.load(tmp_path / f"output_{k}.npy"), np.load(path)
        assert got.shape == want.shape and got.dtype == want.dtype, (k, got.shape, want.shape)
        # torch computes the weights and sums in the input's float type (float32 upsampling by 1.9x with
        # bicubic overshoot: 7e-6 at 4.4); ours in double, rounded once. float64 (output 8) agrees to 5e-16.
        atol = 1e-12 if k == 8 else 1e-5
        assert np.allclose(got, want, atol=atol, rtol=0), (k, float(np.abs(got - want).max()))


def test_linalg_checks_match_eager_and_raise_torch_errors(models, cpu_runtime, tmp_path):
    completed = _run(models / "linalg_checks", cpu_runtime.library, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    got, want = np.load(tmp_path / "output_0.npy"), np.load(models / "linalg_checks" / "out0.npy")
    assert got.shape == want.shape == (2, 4, 4) and float(np.abs(got - want).max()) <= 1e-5
    # Negative control: item 1 is not positive-definite (its leading 2 x 2 minor is singular).
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "model.pt2").write_bytes((models / "linalg_checks" / "model.pt2").read_bytes())
    x = np.load(models / "linalg_checks" / "in0.npy")
    x[1, :2, :2] = 1.0
    np.save(bad / "in0.npy", x)
    import torch

    with pytest.raises(torch.linalg.LinAlgError) as torch_error:
        torch.linalg.cholesky(torch.from_numpy(x))
    run = tmp_path / "bad-run"
    run.mkdir()
    completed = _run(bad, cpu_runtime.library, run)
    assert completed.returncode != 0
    assert str(torch_error.value) in completed.stderr, completed.stderr
    assert not list(run.glob("output_*.npy"))


def test_linalg_shapes_match_eager(models, cpu_runtime, tmp_path):
    """float64, broadcast batches, vector and left=False right-hand sides, wide and transposed inputs:
    every output of the model within 1e-9 of eager."""
    completed = _run(models / "linalg_shapes", cpu_runtime.library, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    expected = sorted((models / "linalg_shapes").glob("out*.npy"), key=lambda p: int(p.stem[3:]))
    assert len(expected) == 21
    for i, path in enumerate(expected):
        got, want = np.load(tmp_path / f"output_{i}.npy"), np.load(path)
        assert got.shape == want.shape and got.dtype == want.dtype == np.float64, (i, got.shape, want.shape)
        assert np.allclose(got, want, atol=1e-9, rtol=1e-9), (i, float(np.abs(got - want).max()))


def test_unserved_proxy_op_is_one_clear_error(models, cpu_runtime, tmp_path):
    completed = _run(models / "custom_op", cpu_runtime.library, tmp_path)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("shimgen: error:"), completed.stderr
    assert "shimgen_test::twice" in lines[0] and "coverage" in lines[0]
    assert not list(tmp_path.glob("output_*.npy"))


@pytest.mark.parametrize(("json_text", "says"), [
    (b'{"nodes": [{"node": {"target": "aten::topk", "inputs": [', "malformed"),
    (b'[' * 100 + b']' * 100, "nesting deeper"),
    (b'{"nodes": [{"node": {"target": "aten::topk"}}]}', "lacks target, inputs or outputs"),
    # torch writes non-finite floats as "Infinity", "-Infinity", "NaN"; any other string is refused.
    (b'{"nodes": [{"node": {"target": "aten::embedding_renorm", "inputs": [{"name": "norm_type", "arg":'
     b' {"as_float": "Inf"}, "kind": 1}], "outputs": [{"as_tensor": {"name": "b"}}]}}]}',
     "norm_type': as_float is not a number (the string 'Inf')"),
])
def test_bad_extern_kernel_json_is_refused(models, cpu_runtime, tmp_path, json_text, says):
    """The JSON is untrusted package data: truncated, too deep or incomplete, it is refused at open
    with one line (exit 2), never read past its end or half-applied."""
    source = models / "grouped_mm" / "model.pt2"
    bad = tmp_path / "bad"
    bad.mkdir()
    broken = bad / "model.pt2"
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(broken, "w", zipfile.ZIP_STORED) as out:
        for info in archive.infolist():
            data = archive.read(info)
            if info.filename.endswith(".wrapper.json"):
                data = json_text
            out.writestr(info, data, compress_type=zipfile.ZIP_STORED)
    (bad / "in0.npy").write_bytes((models / "grouped_mm" / "in0.npy").read_bytes())
    (bad / "in1.npy").write_bytes((models / "grouped_mm" / "in1.npy").read_bytes())
    completed = _run(bad, cpu_runtime.library, tmp_path)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("shimgen: error:") and says in lines[0], completed.stderr
    assert not list(tmp_path.glob("output_*.npy"))


# Tolerances of the special functions against torch's CPU kernels (|got - want| <= atol + rtol |want|).
# The scalar code is ours (special_math.h), computed in double and rounded once for float32, so it is
# not torch's bit for bit: float32's tolerance is torch's float32 error (its kernels compute in float;
# near a zero of digamma that is ~4e-7 absolute), float64's is both sides' rounding, amplified near the
# zeros of the polynomial recurrences. Where torch's own float64 kernel is the less accurate one (each
# checked against mpmath at 30 digits), that function's entry is torch's error: trigamma 4.9e-10
# relative, airy_ai 2.9e-6 absolute (x in [-3, -1], so 1e-4 relative at Ai's first zero), igamma and
# igammac 3.4e-10 absolute around x ~ a >= 10; ours are within 1.5e-13 of mpmath there.
SPECIAL_TOLERANCE = {  # (dtype, kind or output name) -> (rtol, atol)
    ("float32", "function"): (5e-6, 1e-6), ("float32", "polynomial"): (1e-3, 1e-4),
    ("float64", "function"): (1e-13, 4e-15), ("float64", "polynomial"): (2e-12, 1e-13),
    ("float32", "special_airy_ai"): (5e-6, 5e-6), ("float64", "special_airy_ai"): (1e-12, 5e-6),
    ("float64", "polygamma(1)"): (1e-9, 4e-15),
    **{("float64", name): (1e-12, 1e-9) for name in ("igamma", "igammac", "special_gammainc", "special_gammaincc")},
}


def test_special_functions_through_the_proxy_match_torch(models, cpu_runtime, tmp_path):
    """Every elementwise special function the proxy executor serves (the ones torch has no Triton code
    for, so a CUDA model calls them through the proxy; forced to the same path on CPU here), float32
    and float64, over each function's domain and its edge values (0, poles, +-inf, NaN), a strided and
    a broadcast operand: equal to torch's CPU kernels within SPECIAL_TOLERANCE, NaN where torch's is
    (but +-inf where torch's float32 polynomial recurrence overflows into inf - inf = NaN)."""
    sys.path.insert(0, str(REPO / "tests"))
    import proxy_models

    directory = models / "special"
    with zipfile.ZipFile(directory / "model.pt2") as archive:
        wrapper = next(n for n in archive.namelist() if n.endswith(".wrapper.json"))
        text = archive.read(wrapper).decode()
    for op, _ in proxy_models.SPECIAL:
        reached = f'"aten::{op.__name__}"' in text
        assert reached != (op.__name__ in proxy_models.DECOMPOSED), f"{op.__name__}: through the proxy is {reached}"
    completed = _run(directory, cpu_runtime.library, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    proxy_models.assert_special_matches(tmp_path, directory, SPECIAL_TOLERANCE)


def test_grid_samplers_through_the_proxy_match_eager(models, cpu_runtime, tmp_path):
    """aten::grid_sampler_3d (bilinear/border, nearest/zeros: torch 2.11's CUDA proxy path) and
    aten::cudnn_grid_sampler (4-D bilinear, zeros, align_corners=True; a strided self too), served by
    the runtime's grid_sampler_3d shim: every output within 1e-5 of eager."""
    completed = _run(models / "grid_sampler", cpu_runtime.library, tmp_path)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    shapes = [(2, 3, 3, 4, 5), (2, 3, 3, 4, 5), (2, 3, 4, 5), (2, 3, 4, 3)]
    for i, shape in enumerate(shapes):
        got, want = np.load(tmp_path / f"output_{i}.npy"), np.load(models / "grid_sampler" / f"out{i}.npy")
        assert got.shape == want.shape == shape and got.dtype == want.dtype == np.float32, (i, got.shape)
        assert np.allclose(got, want, atol=1e-5, rtol=0), (i, float(np.abs(got - want).max()))
