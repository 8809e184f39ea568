"""SLEEF's vector math on the runtime (shimgen/runtime/include/shimgen_runtime/vector_math.h).

A CPU model AOTInductor vectorized imports at::vec's SLEEF calls (Sleef_expf16_u10 & co.): libtorch
exports them, nothing else in a process without it does. The runtime serves them under its prefix,
and prefix-imports renames a model's Sleef_* imports like its aoti_torch_* ones. Proven here:

- the header declares every SLEEF function torch's x86 at::vec calls (read from the installed torch's
  headers: a torch that calls a new one fails this), and the bundled config makes them shims;
- each entry point matches libtorch's own SLEEF on 4,096 inputs per function, lane by lane, within
  2 ulp, AVX2 and (where the CPU has it) AVX-512 (tests/vector_math_probe.cpp, compiled here); the
  runtime's own vector float exp, tanh and erf are within 1 ulp of the correctly rounded result and
  of libtorch's SLEEF on 44 million inputs each, and give glibc's result on the special inputs;
- a model compiled vectorized (this CPU's best ISA) with every such function runs on the
  runtime beside libtorch and matches eager, its Sleef imports bound to the runtime; the same model
  without the rewrite binds them to libtorch_cpu (the negative control: the hazard being fixed).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shimgen.project.config import load_config
from shimgen.project.shims import resolve_shims, shim_matcher
from shimgen.resources import default_config
from tests.support import cpu_flags

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
HEADER = REPO / "shimgen" / "runtime" / "include" / "shimgen_runtime" / "vector_math.h"
PROBE = REPO / "tests" / "vector_math_probe.cpp"
PREFIX = "executorch_"
_DECLARATION = re.compile(r"AOTI_SHIM_EXPORT \w+ __m\w+ (Sleef_\w+)\(([^)]*)\);")
_WIDTH = re.compile(r"Sleef_[a-z0-9]+?(f16|d8|f8|d4)(?:_u\d+)?$")


def declared() -> dict[str, int]:
    """Name -> arity of every SLEEF function the header declares."""
    return {name: params.count(",") + 1 for name, params in _DECLARATION.findall(HEADER.read_text())}


def _require_width(width: str) -> None:
    """Skips unless this CPU runs the entry points of ``width`` bits (512: AVX-512F, 256: AVX2 and FMA)."""
    needed = {"avx512f"} if width == "512" else {"avx2", "fma"}
    if not needed <= cpu_flags():
        pytest.skip(f"this CPU lacks {sorted(needed - cpu_flags())}")


def test_header_declares_every_sleef_call_of_torchs_x86_at_vec():
    torch = pytest.importorskip("torch")
    vec = Path(torch.__file__).parent / "include" / "ATen" / "cpu" / "vec"
    called = set()
    for header in [*vec.glob("vec256/*.h"), *vec.glob("vec512/*.h")]:
        for line in header.read_text().splitlines():
            if not line.lstrip().startswith("//"):
                called.update(name for name in re.findall(r"Sleef_\w+", line) if _WIDTH.match(name))
    assert len(called) > 50, f"found only {sorted(called)} in {vec}: has at::vec moved?"
    assert called - set(declared()) == set()


def test_bundled_config_makes_them_prefixed_shims():
    config = load_config(default_config())
    shimset = resolve_shims(config)
    assert set(declared()) <= set(shimset.names)
    is_shim = shim_matcher(config, shimset)
    # A SLEEF name the runtime lacks is still renamed, so prefix-imports reports it instead of
    # letting it bind to libtorch.
    assert is_shim("Sleef_expf16_u10") and is_shim("Sleef_cbrtf16_u10") and not is_shim("expf")


def _build_probe(width: str, tmp_path: Path) -> Path:
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler")
    flags = ["-mavx512f"] if width == "512" else ["-mavx2", "-mfma"]
    binary = tmp_path / f"probe{width}"
    subprocess.run([compiler, "-O2", "-std=c++17", *flags, "-o", str(binary), str(PROBE), "-ldl"], check=True,
                   capture_output=True, timeout=300)
    return binary


def _probe(width: str, cpu_runtime, tmp_path: Path) -> dict[str, tuple[float, int, int]]:
    torch = pytest.importorskip("torch")
    binary = _build_probe(width, tmp_path)
    wanted = ("f16", "d8") if width == "512" else ("f8", "d4")
    names = [f"{n}:{a}" for n, a in declared().items() if _WIDTH.match(n).group(1) in wanted]
    libtorch = Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
    done = subprocess.run([str(binary), str(cpu_runtime.library), PREFIX, str(libtorch), *names],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    rows = {}
    for line in done.stdout.splitlines():
        name, max_ulp, _, _, nan_mismatches, their_overflows = line.split()
        rows[name] = (float(max_ulp), int(nan_mismatches), int(their_overflows))
    assert len(rows) == len(names)
    return rows


@pytest.mark.parametrize("width", ["256", "512"])
def test_values_match_libtorchs_sleef(width, cpu_runtime, tmp_path):
    _require_width(width)
    rows = _probe(width, cpu_runtime, tmp_path)
    far = {name: row for name, row in rows.items() if row[0] > 2 or row[1]}
    assert far == {}, f"more than 2 ulp from libtorch's SLEEF, or NaN where it is not: {far}"
    # SLEEF's float asinh/acosh square x first: inf beyond ~1.8e19, where the C library (and eager
    # torch's own scalar loop) return the finite value. Only they may differ that way.
    overflowed = {re.sub(r"(f16|f8)_u10$", "", name) for name, row in rows.items() if row[2]}
    assert overflowed <= {"Sleef_asinh", "Sleef_acosh"}, overflowed


@pytest.fixture(scope="module")
def sweep_probe(tmp_path_factory):
    """The probe of a width, built once for all the sweeps below."""
    built: dict[str, Path] = {}

    def get(width: str) -> Path:
        if width not in built:
            built[width] = _build_probe(width, tmp_path_factory.mktemp(f"probe{width}"))
        return built[width]

    return get


@pytest.mark.parametrize("width", ["256", "512"])
@pytest.mark.parametrize("function", ["exp", "tanh", "erf"])
def test_vector_code_is_within_one_ulp_of_the_exact_result(function, width, cpu_runtime, sweep_probe):
    """Float exp, tanh and erf are the runtime's own vector code (the others are glibc per lane): every
    97th float bit pattern, 44 million inputs with subnormals and NaNs, against the function in double
    rounded once to float (SLEEF's _u10 bound: 1 ulp), and against libtorch's own SLEEF on the same
    inputs; zeros keep their sign, infinities and NaNs give glibc's bits, subnormals and the normal ends
    glibc's result within 1 ulp."""
    torch = pytest.importorskip("torch")
    _require_width(width)
    libtorch = Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
    command = [str(sweep_probe(width)), str(cpu_runtime.library), PREFIX, "--sweep", function, str(libtorch)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    name, max_ulp, worst, not_rounded, inputs, glibc_mismatches, sleef_max_ulp = done.stdout.split()
    assert int(inputs) > 44_000_000
    assert float(max_ulp) <= 1, f"{name}: {max_ulp} ulp at {worst}"
    assert int(glibc_mismatches) == 0, f"{name}: {glibc_mismatches} special inputs unlike glibc's {function}f"
    assert float(sleef_max_ulp) <= 1, f"{name}: {sleef_max_ulp} ulp from libtorch's SLEEF"
    if function != "exp":  # computed in double and rounded once: wrong only within ~0.01 ulp of a tie
        assert int(not_rounded) < int(inputs) // 10_000, f"{name}: {not_rounded} results not correctly rounded"


def test_benchmark_script_measures_every_row(cpu_runtime):
    """benchmarks/vector_math.py on a small array: a row per function and width this CPU runs, each with
    the runtime, libtorch's SLEEF and the per-lane path timed (it checks the runtime's results first)."""
    pytest.importorskip("torch")
    _widths()
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "vector_math.py"), "--runtime",
                           str(cpu_runtime.library), "--elements", "4096", "--repeats", "1"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines() if line.lstrip().startswith("Sleef_")]
    widths = ["f16", "f8"] if "avx512f" in cpu_flags() else ["f8"]
    assert [row[0] for row in rows] == [f"Sleef_{fn}{w}_u10" for w in widths for fn in ("tanh", "erf")]
    assert all(len(row) == 6 and all(float(v) > 0 for v in row[1:]) for row in rows), done.stdout


# ---- a real model, compiled vectorized ----------------------------------------------------------------


def _compiled(mode: str, monkeypatch) -> Path:
    sys.path.insert(0, str(REPO / "tests"))
    import aoti_zoo

    monkeypatch.setenv("SHIMGEN_ZOO_VEC", mode)
    return aoti_zoo.ensure_compiled(["vector_math"])["vector_math"]


def _widths() -> tuple[str, str]:
    """The SLEEF widths a model vectorized for this CPU's best ISA calls (what SHIMGEN_ZOO_VEC=on gives)."""
    flags = cpu_flags()
    if "avx512f" in flags:
        return ("f16", "d8")
    if {"avx2", "fma"} <= flags:
        return ("f8", "d4")
    pytest.skip("this CPU has neither AVX-512 nor AVX2")


def test_vectorized_model_runs_on_the_runtime_beside_libtorch(cpu_runtime, tmp_path, monkeypatch):
    """One compile, for this CPU's best ISA (AVX-512 here, AVX2 on a CPU without it; the other width's
    entry points are held to libtorch's by the probe above; scripts/zoo_cpu.py with
    SHIMGEN_ZOO_VEC=avx2 runs the model at 256 bits on an AVX-512 machine)."""
    pytest.importorskip("torch")
    widths = _widths()
    from shimgen.aoti.prefix_imports import read_dynamic_symbols
    from tests.aoti_helpers import assert_zoo_model_matches_eager, run_zoo_beside_libtorch, so_of

    directory = _compiled("on", monkeypatch)
    plain = {s.name for s in read_dynamic_symbols(so_of(directory / "model.pt2", tmp_path / "plain.so"))
             if not s.defined and s.name.startswith("Sleef_")}
    assert len(plain) >= 25 and {_WIDTH.match(name).group(1) for name in plain} == set(widths), sorted(plain)
    report = run_zoo_beside_libtorch({"vector_math": directory}, cpu_runtime.library, tmp_path)
    renamed = {s.name for s in read_dynamic_symbols(so_of(tmp_path / "vector_math.pt2", tmp_path / "renamed.so"))
               if not s.defined and "Sleef_" in s.name}
    assert renamed == {PREFIX + name for name in plain}
    sys.path.insert(0, str(REPO / "tests"))
    import aoti_zoo

    model = aoti_zoo.models()["vector_math"]
    assert_zoo_model_matches_eager("vector_math", directory, report, tmp_path, cpu_runtime.library,
                                   model.atol, model.rtol)


def test_without_the_rewrite_the_model_binds_sleef_to_libtorch(cpu_runtime, tmp_path, monkeypatch):
    """The negative control: the plain model loaded after libtorch_cpu (RTLD_GLOBAL) takes its SLEEF
    calls from libtorch, as the glibc loader's own binding log shows."""
    torch = pytest.importorskip("torch")
    _widths()
    from tests.aoti_helpers import so_of

    so = so_of(_compiled("on", monkeypatch) / "model.pt2", tmp_path / "plain.so")
    libtorch = Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
    code = ("import ctypes, sys\nctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)\n"
            "ctypes.CDLL(sys.argv[2], mode=2)\n")  # RTLD_NOW: every import bound at load, none called
    done = subprocess.run([sys.executable, "-c", code, str(libtorch), str(so)], capture_output=True, text=True,
                          timeout=300, check=False, env={**os.environ, "LD_DEBUG": "bindings"})
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stderr.splitlines() if "plain.so" in line and "Sleef_" in line]
    assert lines, "the plain model bound no SLEEF symbol at load"
    assert all("libtorch_cpu.so" in line for line in lines), lines[:3]
