"""Real AOTInductor models, compiled by the installed torch at test time, run on shimgen's runtime.

The collision scenario runs in a child process that first loads libtorch_cpu.so RTLD_GLOBAL (329
plain aoti_torch_* exports), then the runtime. Expected values come from eager torch, computed in
the compiling process, never in the one that runs the models.
"""

from __future__ import annotations

import ctypes
import json
import os
import stat
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from shimgen.aoti.capi import ModelError, Runtime
from shimgen.aoti.prefix_imports import imported_aoti_names, prefix_imports_with_config
from shimgen.aoti.recompile import recompile
from shimgen.aoti.runner import Model
from shimgen.errors import InputError
from shimgen.project.config import load_config
from shimgen.resources import default_config

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from aoti_models import MODELS  # noqa: E402

from tests.aoti_helpers import BASELINE, PREFIX, so_of, torch_lib_dir  # noqa: E402

LIBTORCH_CPU = torch_lib_dir() / "libtorch_cpu.so"
RECOMPILED = ("pointwise", "matmul")


def _inputs(models: Path, name: str) -> list[Path]:
    return [models / f"{name}.in{i}.npy" for i in range(json.loads((models / f"{name}.json").read_text())["inputs"])]


def _expected(models: Path, name: str) -> list[Path]:
    return [models / f"{name}.out{i}.npy" for i in range(json.loads((models / f"{name}.json").read_text())["outputs"])]


@pytest.fixture(scope="session")
def runtime_lib(cpu_runtime) -> Path:
    return cpu_runtime.library


@pytest.fixture(scope="session")
def models(tmp_path_factory) -> Path:
    """The four models, compiled once per session (about 40 s on a fresh cache, 2 cores)."""
    out = tmp_path_factory.mktemp("aoti-models")
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(out / "inductor-cache")}
    completed = subprocess.run([sys.executable, str(REPO / "tests" / "aoti_models.py"), "compile", str(out)],
                               capture_output=True, text=True, env=env, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return out


@pytest.fixture(scope="session")
def prefixed(models) -> dict[str, Path]:
    """key -> prefixed .pt2: 'rewrite/<name>' for all four, 'recompile/<name>' for two."""
    config = load_config(default_config())
    result = {}
    for name in MODELS:
        out = models / f"{name}.rewritten.pt2"
        prefix_imports_with_config(models / f"{name}.pt2", out, config)
        result[f"rewrite/{name}"] = out
    for name in RECOMPILED:
        out = models / f"{name}.recompiled.pt2"
        recompile(models / f"{name}.pt2", out, config)
        result[f"recompile/{name}"] = out
    return result


@pytest.fixture(scope="session")
def beside_libtorch(models, prefixed, runtime_lib, tmp_path_factory) -> dict:
    """One child process: libtorch_cpu.so RTLD_GLOBAL, then the runtime, then every model."""
    work = tmp_path_factory.mktemp("aoti-child")
    spec = {"libtorch": str(LIBTORCH_CPU), "runtime": str(runtime_lib), "prefix": PREFIX, "models": [], "negative": []}
    for key, pt2 in prefixed.items():
        name = key.split("/")[1]
        so = so_of(pt2, work / f"{key.replace('/', '-')}.so")
        spec["models"].append({"key": key, "path": str(pt2), "so": str(so), "inputs": list(map(str, _inputs(models, name))),
                               "expected": list(map(str, _expected(models, name)))})
    for name in ("pointwise", "matmul"):
        so = so_of(models / f"{name}.pt2", work / f"{name}-plain.so")
        spec["negative"].append({"key": name, "so": str(so), "inputs": list(map(str, _inputs(models, name))),
                                 "expected": list(map(str, _expected(models, name)))})
    (work / "spec.json").write_text(json.dumps(spec))
    completed = subprocess.run([sys.executable, str(REPO / "tests" / "aoti_models.py"), "beside-libtorch",
                                str(work / "spec.json")], capture_output=True, text=True, timeout=300,
                               env={**os.environ, "PYTHONPATH": str(REPO)})
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


# ---- what the models import ----

def test_models_import_the_measured_shims(models):
    imports = {name: imported_aoti_names(so_of(models / f"{name}.pt2", models / f"{name}.plain.so")) for name in MODELS}
    assert imports["pointwise"] == BASELINE
    assert imports["reduction"] == BASELINE
    assert imports["broadcast"] == BASELINE | {"aoti_torch__reinterpret_tensor"}
    assert imports["matmul"] == BASELINE | {"aoti_torch_cpu_mm_out"}


@pytest.mark.parametrize("key", [f"rewrite/{n}" for n in MODELS] + [f"recompile/{n}" for n in RECOMPILED])
def test_prefixed_models_import_only_prefixed_shims(models, prefixed, key):
    plain = imported_aoti_names(so_of(models / f"{key.split('/')[1]}.pt2", models / "check-plain.so"))
    got = imported_aoti_names(so_of(prefixed[key], models / "check-prefixed.so"))
    assert got == {PREFIX + name for name in plain}


# ---- the collision scenario ----

def test_global_scope_has_both_libraries(beside_libtorch, runtime_lib):
    assert Path(beside_libtorch["plain_global"]).name == "libtorch_cpu.so"
    assert Path(beside_libtorch["prefixed_global"]).resolve() == runtime_lib.resolve()


@pytest.mark.parametrize("key", [f"rewrite/{n}" for n in MODELS] + [f"recompile/{n}" for n in RECOMPILED])
def test_model_runs_on_the_runtime_beside_libtorch(beside_libtorch, runtime_lib, key):
    result = beside_libtorch["models"][key]
    name = key.split("/")[1]
    # Every shim slot of the loaded model points into the runtime: the dynamic linker's own binding.
    assert result["unbound"] == []
    assert [Path(p).resolve() for p in result["bound_to"]] == [runtime_lib.resolve()]
    assert result["served"] > 0, "the runtime's shim-call counter did not move"
    assert all(result["shapes_equal"])
    assert result["max_error"] <= MODELS[name][2], f"{key}: max |runtime - eager| = {result['max_error']}"


@pytest.mark.parametrize("name", ["pointwise", "matmul"])
def test_negative_control_unrewritten_model_binds_to_libtorch(beside_libtorch, name):
    result = beside_libtorch["negative"][name]
    assert [Path(p).name for p in result["bound_to"]] == ["libtorch_cpu.so"]
    assert result["served"] == 0, "an unrewritten model must not reach the prefixed runtime"
    assert result["max_error"] <= MODELS[name][2]  # libtorch served it, and correctly


# ---- the loader ----

@pytest.fixture(scope="module")
def rt(runtime_lib) -> Runtime:
    return Runtime(runtime_lib, PREFIX)


def test_concurrent_opens_of_one_model_do_not_collide(rt, models, prefixed):
    pt2 = prefixed["rewrite/broadcast"]
    inputs = [np.load(p) for p in _inputs(models, "broadcast")]
    expected = [np.load(p) for p in _expected(models, "broadcast")]
    barrier = threading.Barrier(8)
    opened: list[Model] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def worker() -> None:
        try:
            barrier.wait()
            model = Model(rt, pt2)
            outputs = model.run(inputs)
            assert all(np.array_equal(o, e) for o, e in zip(outputs, expected))
            with lock:
                opened.append(model)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    paths = [m.so_path for m in opened]
    assert len(set(paths)) == 8 and len({p.parent for p in paths}) == 8
    for path in paths:
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert path.parent.stat().st_uid == os.getuid()
    for model in opened:
        model.close()
    assert not any(p.parent.exists() for p in paths), "close must remove the private directory"


def _as_zip64(source: Path, target: Path, monkeypatch) -> None:
    """``source`` re-zipped the way Python writes a package holding a model .so over 2 GiB (AOTInductor
    links the weights into the .so): every central-directory size and offset in the ZIP64 extra
    field, a ZIP64 end-of-central-directory record and locator. zipfile decides by ZIP64_LIMIT, so a
    small limit gives a small file the large one's layout."""
    with zipfile.ZipFile(source) as old:
        members = [(info, old.read(info)) for info in old.infolist()]
    monkeypatch.setattr(zipfile, "ZIP64_LIMIT", 16)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as new:
        for info, data in members:
            with new.open(zipfile.ZipInfo(info.filename, info.date_time), "w", force_zip64=True) as sink:
                sink.write(data)
    monkeypatch.undo()


def test_a_zip64_package_runs_like_the_plain_one(rt, models, prefixed, tmp_path, monkeypatch):
    plain, wide = prefixed["rewrite/matmul"], tmp_path / "zip64.pt2"
    _as_zip64(plain, wide, monkeypatch)
    raw = wide.read_bytes()
    assert b"PK\x06\x06" in raw and b"PK\x06\x07" in raw  # the ZIP64 record and its locator
    assert raw.count(b"\xff\xff\xff\xff") >= 3            # 32-bit fields saturated
    inputs = [np.load(p) for p in _inputs(models, "matmul")]
    with zipfile.ZipFile(wide) as check:                   # Python reads it back as the same package
        assert sorted(check.namelist()) == sorted(zipfile.ZipFile(plain).namelist())
    got = Model(rt, wide).run(inputs)
    want = Model(rt, plain).run(inputs)
    assert all(np.array_equal(g, w) for g, w in zip(got, want))
    # The ZIP64 fields are read, not skipped: a saturated size with no ZIP64 extra is corrupt.
    broken = tmp_path / "broken.pt2"
    broken.write_bytes(raw.replace(b"\x01\x00\x18\x00", b"\x99\x00\x18\x00"))  # rename every 0x0001 extra
    with pytest.raises(InputError, match="zip64"):
        Model(rt, broken)


def test_two_processes_run_one_model_at_once(runtime_lib, models, prefixed, tmp_path):
    name = "matmul"
    runs = []
    for i in range(2):
        out = tmp_path / f"out{i}"
        command = [sys.executable, "-m", "shimgen", "run", str(prefixed[f"rewrite/{name}"]), "--runtime", str(runtime_lib),
                   "-o", str(out)] + [arg for p in _inputs(models, name) for arg in ("--input", str(p))]
        runs.append((subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), out))
    for process, out in runs:
        _stdout, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
        assert np.allclose(np.load(out / "output_0.npy"), np.load(_expected(models, name)[0]), atol=MODELS[name][2], rtol=0)


def test_model_error_reaches_the_caller(runtime_lib, models, prefixed, tmp_path):
    wrong = tmp_path / "wrong.npy"
    np.save(wrong, np.zeros((4, 16), np.float32))
    command = [sys.executable, "-m", "shimgen", "run", str(prefixed["rewrite/pointwise"]), "--runtime", str(runtime_lib),
               "--input", str(wrong), "--input", str(_inputs(models, "pointwise")[1]), "-o", str(tmp_path)]
    completed = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert completed.returncode == 2
    # The model's own message, from its AOTInductorGetLastError, as one shimgen error line.
    errors = [line for line in completed.stderr.splitlines() if line.startswith("shimgen: error:")]
    assert errors[0] == ("shimgen: error: the model failed: input_handles[0]: unmatched dim value at 0, "
                         "expected: 8, but got: 4"), completed.stderr
    # What the model's C++ printed itself follows, one escaped line each, marked as the model's.
    assert all(line.startswith("shimgen: error: the model printed: ") for line in errors[1:]), completed.stderr
    assert not (tmp_path / "output_0.npy").exists()


def test_unrewritten_model_is_refused_with_a_hint(rt, models):
    with pytest.raises(InputError, match=r"undefined symbol: aoti_torch_.*prefix-imports"):
        Model(rt, models / "pointwise.pt2")


def test_open_rejects_bad_files(rt, tmp_path, models):
    not_zip = tmp_path / "x.pt2"
    not_zip.write_bytes(b"hello world, not a model")
    with pytest.raises(InputError, match=r"neither a \.pt2"):
        Model(rt, not_zip)
    truncated = tmp_path / "t.pt2"
    truncated.write_bytes((models / "pointwise.pt2").read_bytes()[:5000])
    with pytest.raises(InputError, match="zip"):
        Model(rt, truncated)
    empty_zip = tmp_path / "e.pt2"
    with zipfile.ZipFile(empty_zip, "w") as archive:
        archive.writestr("e/data/readme.txt", "no model")
    with pytest.raises(InputError, match="holds no AOTInductor model"):
        Model(rt, empty_zip)


def test_handles_are_borrowed_and_outputs_owned(rt, models, prefixed):
    """The caller's input handles stay valid after a run (the loader gives the model new ones)."""
    inputs = [np.load(p) for p in _inputs(models, "pointwise")]
    with Model(rt, prefixed["rewrite/pointwise"]) as model:
        handles = [rt.tensor_from_array(a) for a in inputs]
        for _ in range(3):
            outputs = model.run_handles(handles)
            got = rt.array_from_tensor(outputs[0])
            for h in outputs:
                rt.delete(h)
            assert np.allclose(got, np.load(_expected(models, "pointwise")[0]), atol=1e-6, rtol=0)
        assert rt.array_from_tensor(handles[0]).tolist() == inputs[0].tolist()
        for h in handles:
            rt.delete(h)
        with pytest.raises(ModelError, match="takes 2 input"):
            model.run_handles(handles[:1])


def test_shimgen_run_writes_npy_outputs(runtime_lib, models, prefixed, tmp_path):
    name = "broadcast"
    command = [sys.executable, "-m", "shimgen", "run", str(prefixed[f"rewrite/{name}"]), "-o", str(tmp_path)]
    command += [arg for p in _inputs(models, name) for arg in ("--input", str(p))]
    completed = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120,
                               env={**os.environ, "SHIMGEN_RUNTIME": str(runtime_lib)})
    assert completed.returncode == 0, completed.stderr
    for i, expected in enumerate(_expected(models, name)):
        assert np.array_equal(np.load(tmp_path / f"output_{i}.npy"), np.load(expected))


def test_shimgen_run_bad_input_is_one_line(runtime_lib, prefixed, tmp_path):
    bad = tmp_path / "bad.npy"
    bad.write_text("not numpy")
    completed = subprocess.run([sys.executable, "-m", "shimgen", "run", str(prefixed["rewrite/pointwise"]),
                                "--runtime", str(runtime_lib), "--input", str(bad)],
                               cwd=REPO, capture_output=True, text=True, timeout=60)
    assert completed.returncode == 2
    assert len(completed.stderr.strip().splitlines()) == 1 and "not a readable .npy" in completed.stderr


# ---- the rewrite route on the real models ----

def test_rewrite_is_idempotent_and_keeps_the_package(models, prefixed, tmp_path):
    config = load_config(default_config())
    again = tmp_path / "again.pt2"
    result = prefix_imports_with_config(prefixed["rewrite/pointwise"], again, config)
    assert result.renamed_count == 0 and len(result.members[0].imports) == 20
    with zipfile.ZipFile(models / "pointwise.pt2") as before, zipfile.ZipFile(prefixed["rewrite/pointwise"]) as after:
        assert [i.filename for i in before.infolist()] == [i.filename for i in after.infolist()]
        assert all(i.compress_type == zipfile.ZIP_STORED for i in after.infolist())
        changed = [n for n in before.namelist() if before.read(n) != after.read(n)]
        assert len(changed) == 1 and changed[0].endswith(".so")


def test_rewrite_refuses_shims_the_runtime_lacks(models, tmp_path):
    # A config whose shim set lacks aoti_torch_cpu_mm_out: the matmul model would not load on it.
    config_path = tmp_path / "shimgen.toml"
    config_path.write_text('prefix = "executorch_"\nsymbols = [{}]\n'.format(", ".join(f'"{n}"' for n in sorted(BASELINE))))
    out = tmp_path / "m.pt2"
    with pytest.raises(InputError, match="executorch_aoti_torch_cpu_mm_out"):
        prefix_imports_with_config(models / "matmul.pt2", out, load_config(config_path))
    assert not out.exists() and not list(tmp_path.glob(".shimgen-*"))


def test_failed_open_leaves_no_private_directory(rt, models, prefixed, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with pytest.raises(InputError, match="undefined symbol"):
        Model(rt, models / "pointwise.pt2")
    with Model(rt, prefixed["rewrite/pointwise"]) as model:
        assert model.so_path.parent.parent == tmp_path
    assert list(tmp_path.iterdir()) == []


# ---- the CPU fallback ops the matmul model needs ----

def _call(rt, name, *args):
    function = getattr(rt.lib, PREFIX + name)
    function.restype = ctypes.c_int32
    return function(*args)


def test_cpu_matmul_ops_agree_with_numpy_on_views(rt):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 7))
    b = rng.standard_normal((3, 7)).T          # a transposed view: strides (1, 7)
    bias = rng.standard_normal(3)
    out = np.zeros((5, 3))
    handles = [rt.tensor_from_array(x) for x in (out, a, b, bias)]
    h_out, h_a, h_b, h_bias = (ctypes.c_void_p(h.value) for h in handles)
    assert _call(rt, "aoti_torch_cpu_mm_out", h_out, h_a, h_b) == 0
    assert np.allclose(out, a @ b, rtol=0, atol=1e-12)
    assert _call(rt, "aoti_torch_cpu_addmm_out", h_out, h_bias, h_a, h_b, ctypes.c_double(0.5), ctypes.c_double(2.0)) == 0
    assert np.allclose(out, 0.5 * bias + 2.0 * (a @ b), rtol=0, atol=1e-12)
    batch_a, batch_b = rng.standard_normal((2, 4, 6)).astype(np.float32), rng.standard_normal((2, 6, 3)).astype(np.float32)
    batch_out = np.zeros((2, 4, 3), np.float32)
    hb = [rt.tensor_from_array(x) for x in (batch_out, batch_a, batch_b)]
    assert _call(rt, "aoti_torch_cpu_bmm_out", *(ctypes.c_void_p(h.value) for h in hb)) == 0
    assert np.allclose(batch_out, batch_a @ batch_b, rtol=0, atol=1e-5)
    # Shapes that do not multiply: an error code and a message, out untouched.
    before = out.copy()
    assert _call(rt, "aoti_torch_cpu_mm_out", h_out, h_b, h_a) == 2
    assert "shapes do not multiply" in rt.lib.shimgen_runtime_last_error().decode()
    assert np.array_equal(out, before)
    for h in [*handles, *hb]:
        rt.delete(h)
