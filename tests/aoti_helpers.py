"""Helpers the AOTInductor tests share (CPU: tests/integration/test_aoti*.py, GPU: tests/gpu/test_zoo_cuda.py).

Plain functions and constants only; fixtures live with their tests. Import as
``from tests.aoti_helpers import ...``.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support import REPO

PREFIX = "executorch_"
"""The bundled config's prefix (shimgen/runtime/shimgen.toml)."""
INVALID, UNSUPPORTED = 2, 3
"""The runtime's error codes for a bad argument and an unsupported case (shimgen/runtime/src/errors.cpp)."""


def shim(rt, name: str):
    """The prefixed shim ``name`` of the runtime ``rt`` (a shimgen.aoti.runner.Runtime), returning int32."""
    from ctypes import c_int32

    function = getattr(rt.lib, PREFIX + name)
    function.restype = c_int32
    return function
DEFAULT_CONFIG = REPO / "shimgen" / "runtime" / "shimgen.toml"

# The 20 shims every CPU model imports (torch 2.13, link_libtorch=False), see docs/aoti.md.
BASELINE = frozenset({
    "aoti_torch_clone", "aoti_torch_create_tensor_from_blob", "aoti_torch_create_tensor_from_blob_v2",
    "aoti_torch_delete_tensor_object", "aoti_torch_device_type_cpu", "aoti_torch_device_type_cuda",
    "aoti_torch_dtype_float32", "aoti_torch_empty_strided", "aoti_torch_new_tensor_handle",
    "aoti_torch_get_data_ptr", "aoti_torch_get_device_type", "aoti_torch_get_dim", "aoti_torch_get_dtype",
    "aoti_torch_get_numel", "aoti_torch_get_sizes", "aoti_torch_get_storage_offset",
    "aoti_torch_get_storage_size", "aoti_torch_get_strides", "aoti_torch_grad_mode_is_enabled",
    "aoti_torch_grad_mode_set_enabled",
})


def torch_lib_dir() -> Path:
    """torch's lib/ directory, found without importing torch; skips the test without torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("torch is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "lib"


def so_of(pt2: Path, into: Path) -> Path:
    """Copy the one model .so out of a .pt2 package to ``into``."""
    with zipfile.ZipFile(pt2) as archive:
        (member,) = [n for n in archive.namelist() if n.endswith(".so")]
        into.write_bytes(archive.read(member))
    return into


def blob_member(package: Path) -> str:
    """The package's weights blob (``<so>_weights.blob``: aot_inductor.package_constants_on_disk_format="binary_blob")."""
    with zipfile.ZipFile(package) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith("_weights.blob")]
        return name


def with_blob(package: Path, blob: bytes | None, target: Path) -> Path:
    """``package`` with its weights blob replaced (None: left out), stored as torch stores it."""
    name = blob_member(package)
    with zipfile.ZipFile(package) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            if info.filename == name and blob is None:
                continue
            new.writestr(info, blob if info.filename == name else old.read(info))
    return target


def prefix_imports_cli(source: Path, target: Path, *, config: Path = DEFAULT_CONFIG) -> subprocess.CompletedProcess:
    """``shimgen prefix-imports SOURCE -o TARGET -c CONFIG``, as a user runs it; asserts it passed."""
    completed = subprocess.run([sys.executable, "-m", "shimgen", "prefix-imports", str(source), "-o", str(target),
                                "-c", str(config)], capture_output=True, text=True, cwd=REPO, timeout=300, check=False)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return completed


def run_one_input(target: Path, runtime: Path, x, where: Path, *,
                  env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``shimgen run`` of a one-input package on the CPU, in ``where`` (where a model's debug files
    land): x (an array) saved as where/x.npy, outputs in where/out/output_<i>.npy; env added."""
    import os

    import numpy as np

    where.mkdir(parents=True, exist_ok=True)
    np.save(where / "x.npy", np.asarray(x))
    command = [sys.executable, "-m", "shimgen", "run", str(target), "--runtime", str(runtime),
               "--input", str(where / "x.npy"), "-o", str(where / "out")]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False, cwd=where,
                          env={**os.environ, **(env or {})})


def run_on_cuda_beside_libtorch(target: Path, inputs: list[Path], runtime: Path, out: Path, *,
                                timeout: float = 300, cwd: Path = REPO,
                                env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """``shimgen run --device cuda:0`` of a prefixed package in a process that loaded libtorch_cpu.so
    and libtorch_cuda.so first (LD_PRELOAD), in cwd with env added; outputs land in out/output_<i>.npy."""
    import os

    lib = torch_lib_dir()
    preload = {"LD_PRELOAD": f"{lib / 'libtorch_cpu.so'}:{lib / 'libtorch_cuda.so'}"}
    command = [sys.executable, "-m", "shimgen", "run", str(target), "-o", str(out), "--runtime", str(runtime),
               "--device", "cuda:0"]
    for path in inputs:
        command += ["--input", str(path)]
    return subprocess.run(command, capture_output=True, text=True, env={**os.environ, **(env or {}), **preload},
                          cwd=cwd, timeout=timeout, check=False)


# torch's own AOTI loader on a package (the baseline a user would otherwise have): argv = package,
# device, output folder, input .npy files; saves output_<i>.npy. A link_libtorch=False package's
# model .so leaves the aoti_torch_* names to the process, and `import torch` loads libtorch
# RTLD_LOCAL ("undefined symbol: aoti_torch_check" otherwise), so libtorch goes global first.
_TORCH_LOADER = """
import ctypes, faulthandler, os, sys
faulthandler.dump_traceback_later(float(os.environ.get("SHIMGEN_LOADER_STACK_AFTER", "100")))
import numpy as np, torch
lib = os.path.join(os.path.dirname(torch.__file__), "lib")
for name in ("libtorch_cpu.so", "libtorch_cuda.so"):
    if os.path.exists(os.path.join(lib, name)) and not os.environ.get("SHIMGEN_LOADER_LOCAL"):  # control
        ctypes.CDLL(os.path.join(lib, name), mode=ctypes.RTLD_GLOBAL)
# As the compiling child computed eager (tests/aoti_zoo.py): float32 convolutions and GEMMs without
# TF32, which torch allows cuDNN by default (with it on, torch's loader put LeViT's package 0.046 off
# eager and EfficientNet's 0.121).
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
runner = torch._inductor.aoti_load_package(sys.argv[1])
outs = runner(*[torch.from_numpy(np.load(p)).to(sys.argv[2]) for p in sys.argv[4:]])
for i, o in enumerate(outs if isinstance(outs, (list, tuple)) else [outs]):
    np.save(os.path.join(sys.argv[3], f"output_{i}.npy"), o.detach().cpu().numpy())
"""


def run_with_torch_loader(package: Path, inputs: list[Path], out: Path, *, device: str = "cpu",
                          timeout: float = 120, libtorch_global: bool = True) -> subprocess.CompletedProcess:
    """torch's own loader (torch._inductor.aoti_load_package) runs the unprefixed package on ``device``
    in a fresh process; outputs land in out/output_<i>.npy. Raises TimeoutExpired past ``timeout``
    (its stderr then holds the Python stack from faulthandler, dumped 20 s before)."""
    import os

    # torch's loader checks the CPU's vector ISA on every load (`_load_aoti` -> `pick_vec_isa`) by
    # compiling and dlopen-ing a probe per ISA, only to warn on a mismatch with the package's metadata:
    # on a GPU machine busy compiling the next batch that took past 70 s (2026-12-07). Declared valid.
    env = {"TORCHINDUCTOR_VEC_ISA_OK": "1", **os.environ, "SHIMGEN_LOADER_STACK_AFTER": str(max(1.0, timeout - 20))}
    if not libtorch_global:
        env["SHIMGEN_LOADER_LOCAL"] = "1"
    return subprocess.run([sys.executable, "-c", _TORCH_LOADER, str(package), device, str(out), *map(str, inputs)],
                          capture_output=True, text=True, timeout=timeout, check=False, env=env)


def run_label(name: str, run: int) -> str:
    """What a zoo model's run is called in a child's report and its outputs' folder: the model's name
    for the example shape, name@<run> for a dynamic model's other shapes."""
    return name if run == 0 else f"{name}@{run}"


def sequence_label(name: str, run: int) -> str:
    """The output folder of run ``run`` when one opened model runs all of a dynamic model's shapes."""
    return f"{name}@seq{run}"


def run_beside_libtorch(models: dict[str, tuple[Path, list[Path]]], runtime: Path, work: Path, *,
                        timeout: float = 900, sequences: dict[str, list[int]] | None = None,
                        run_inputs: dict[str, list[list[Path]]] | None = None) -> subprocess.CompletedProcess:
    """``shimgen run`` of prefixed packages (name -> (package, input .npy files)) in one child process
    that loaded libtorch_cpu.so RTLD_GLOBAL first (tests/zoo_child.py). Outputs land in work/<name>/;
    the child's last stdout line is its JSON report (exit code, served calls, GOT bindings per model).
    sequences: name -> run indices of ``run_inputs[name]`` (input sets by run) that one opened model
    then runs in that order, outputs in work/<sequence_label(name, run)>/."""
    import json
    import os

    spec = {"libtorch": str(torch_lib_dir() / "libtorch_cpu.so"), "runtime": str(runtime), "prefix": PREFIX,
            "models": []}
    for name, (pt2, inputs) in models.items():
        so_of(pt2, work / f"{name}.so")
        spec["models"].append({"name": name, "pt2": str(pt2), "so": str(work / f"{name}.so"), "out": str(work / name),
                               "inputs": [str(p) for p in inputs]})
        if sequences and name in sequences and run_inputs:
            spec["models"][-1]["sequence"] = [{"inputs": [str(p) for p in run_inputs[name][run]],
                                               "out": str(work / sequence_label(name, run))} for run in sequences[name]]
    (work / "spec.json").write_text(json.dumps(spec))
    return subprocess.run([sys.executable, str(REPO / "tests" / "zoo_child.py"), str(work / "spec.json")],
                          capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, "PYTHONPATH": str(REPO)})


def run_zoo_beside_libtorch(dirs: dict[str, Path], runtime: Path, work: Path) -> dict:
    """Every compiled zoo model of ``dirs`` (name -> cache directory, tests/aoti_zoo.py) rewritten by
    ``shimgen prefix-imports`` and run by ``shimgen run`` beside libtorch (one child); outputs land in
    work/<name>/. Returns the child's report (per model: exit code, served calls, GOT bindings)."""
    import json

    sys.path.insert(0, str(REPO / "tests"))
    import aoti_zoo

    models, sequences, run_inputs = {}, {}, {}
    for name, directory in dirs.items():
        prefix_imports_cli(directory / "model.pt2", work / f"{name}.pt2")
        runs = aoti_zoo.runs_of(directory)
        for run in range(runs):  # a dynamic model: one `shimgen run` per shape, on the same package
            models[run_label(name, run)] = (work / f"{name}.pt2", aoti_zoo.inputs_of(directory, run))
        if runs > 1:  # then one opened model at every shape in turn, the example shape last
            sequences[name] = [*range(1, runs), 0]
            run_inputs[name] = [aoti_zoo.inputs_of(directory, run) for run in range(runs)]
    done = run_beside_libtorch(models, runtime, work, sequences=sequences, run_inputs=run_inputs)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def assert_zoo_model_matches_eager(name: str, directory: Path, report: dict, work: Path, runtime: Path,
                                   atol: float, rtol: float = 0.0, run: int = 0) -> None:
    """The model ran (exit 0), every shim it imports bound to ``runtime`` and served, and every output
    has eager's shape and dtype and lies within ``atol + rtol * |eager|`` of it. ``run``: which shape of
    a dynamic model (0: the example's); where one opened model also ran them all in turn
    (run_zoo_beside_libtorch), that run's outputs are held to the same."""
    import numpy as np

    sys.path.insert(0, str(REPO / "tests"))
    import aoti_zoo

    label = run_label(name, run)
    result = report[label]
    assert result["code"] == 0 and result["unbound"] == [], result
    assert [Path(p).resolve() for p in result["bound_to"]] == [runtime.resolve()]
    assert result["served"] > 0
    folders = [work / label]
    if "sequence_error" in report[name]:
        assert report[name]["sequence_error"] is None, report[name]["sequence_error"]
        folders.append(work / sequence_label(name, run))
    for folder in folders:
        for i, expected_path in enumerate(aoti_zoo.expected_of(directory, run)):
            got, expected = np.load(folder / f"output_{i}.npy"), np.load(expected_path)
            assert got.shape == expected.shape and got.dtype == expected.dtype, (folder.name, got.shape, expected.shape)
            assert np.allclose(got, expected, atol=atol, rtol=rtol), \
                f"{folder.name} output {i}: max |runtime - eager| = {np.abs(got.astype(np.float64) - expected).max()}"
