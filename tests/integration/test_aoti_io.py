"""What `shimgen run` and the Python API read and write: byte order, half precision, DLPack, and
which runtime library they load. Real AOTInductor models compiled by the installed torch; expected
values from eager torch in the compiling process (tests/aoti_models.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shimgen.aoti.capi import Runtime
from shimgen.aoti.prefix_imports import prefix_imports_with_config
from shimgen.errors import InputError
from shimgen.project.config import load_config
from shimgen.resources import default_config
from tests.aoti_helpers import PREFIX

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def models(tmp_path_factory) -> Path:
    """pointwise (float32), mixed_half (bf16 and fp16 in and out) and float8_io (float8 in and out),
    compiled and prefixed."""
    out = tmp_path_factory.mktemp("aoti-io")
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(out / "inductor-cache")}
    done = subprocess.run([sys.executable, str(REPO / "tests" / "aoti_models.py"), "compile", str(out), "pointwise",
                           "mixed_half", "float8_io"], capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    config = load_config(default_config())
    for name in ("pointwise", "mixed_half", "float8_io"):
        prefix_imports_with_config(out / f"{name}.pt2", out / f"{name}.prefixed.pt2", config)
    return out


@pytest.fixture(scope="module")
def runtime_lib(cpu_runtime) -> Path:
    return cpu_runtime.library


def _run_cli(*args: str, cwd: Path = REPO, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shimgen", "run", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=180, env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})


# ---- byte order (issue 19 item 6) ----

def test_big_endian_inputs_give_eager_results(models, runtime_lib, tmp_path):
    inputs = []
    for i in range(2):
        array = np.load(models / f"pointwise.in{i}.npy").astype(">f4")
        assert array.tobytes() != array.astype("<f4").tobytes()  # the bytes really differ
        np.save(tmp_path / f"be{i}.npy", array)
        inputs += ["-i", str(tmp_path / f"be{i}.npy")]
    done = _run_cli(str(models / "pointwise.prefixed.pt2"), "--runtime", str(runtime_lib), "-o", str(tmp_path), *inputs)
    assert done.returncode == 0, done.stderr
    got, expected = np.load(tmp_path / "output_0.npy"), np.load(models / "pointwise.out0.npy")
    assert got.dtype == np.float32 and np.abs(got - expected).max() <= 1e-6


def test_the_api_refuses_to_borrow_non_native_bytes(runtime_lib):
    rt = Runtime(runtime_lib, PREFIX)
    with pytest.raises(InputError, match="byte order"):
        rt.tensor_from_array(np.zeros(4, ">f4"))


# ---- which library is loaded (issue 19 item 8) ----

@pytest.mark.parametrize("how", ["--runtime", "env"])
def test_a_relative_runtime_path_loads_that_file_not_a_namesake(models, runtime_lib, tmp_path, how):
    """``./x.so`` must not turn into ``x.so``, which dlopen looks up on the library path: a decoy
    x.so there (a library without the runtime's API) must never be the one loaded."""
    decoy_dir = tmp_path / "decoy"
    decoy_dir.mkdir()
    (decoy_dir / "d.c").write_text("int not_the_runtime(void) { return 0; }\n")
    subprocess.run([shutil.which("gcc") or "cc", "-shared", "-fPIC", str(decoy_dir / "d.c"), "-o",
                    str(decoy_dir / "x.so")], check=True)
    here = tmp_path / "here"
    here.mkdir()
    shutil.copyfile(runtime_lib, here / "x.so")
    inputs = [arg for i in range(2) for arg in ("-i", str(models / f"pointwise.in{i}.npy"))]
    env = {"LD_LIBRARY_PATH": str(decoy_dir)}
    args = [str(models / "pointwise.prefixed.pt2"), "-o", str(tmp_path / "out"), *inputs]
    if how == "--runtime":
        args += ["--runtime", "./x.so"]
    else:
        env["SHIMGEN_RUNTIME"] = "./x.so"
    done = _run_cli(*args, cwd=here, env=env)
    assert done.returncode == 0, done.stderr
    assert np.abs(np.load(tmp_path / "out" / "output_0.npy") - np.load(models / "pointwise.out0.npy")).max() <= 1e-6


# ---- bfloat16 and float16 end to end (issue 22 item 2) ----

def _half_expected(models: Path) -> tuple[list, list]:
    """mixed_half's inputs and eager outputs as their raw bits (uint16) or values, and dtypes."""
    meta = json.loads((models / "mixed_half.json").read_text())
    outs = [np.load(models / f"mixed_half.out{i}.npy") for i in range(meta["outputs"])]
    return outs, meta["dtypes"]["outputs"]


def _half_inputs(models: Path):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.load(models / "mixed_half.in0.npy").view(ml_dtypes.bfloat16)
    y = np.load(models / "mixed_half.in1.npy").view(np.float16)
    return x, y


def _bits(array) -> np.ndarray:
    return array.view(np.uint16) if array.dtype.itemsize == 2 else array


def test_shimgen_run_reads_and_writes_bfloat16_and_float16(models, runtime_lib, tmp_path):
    from shimgen.aoti.runner import save_array

    x, y = _half_inputs(models)
    save_array(tmp_path / "x.npy", x)  # descr 'bfloat16': docs/aoti.md's convention
    np.save(tmp_path / "y.npy", y)
    assert b"'descr': 'bfloat16'" in (tmp_path / "x.npy").read_bytes()[:128]
    done = _run_cli(str(models / "mixed_half.prefixed.pt2"), "--runtime", str(runtime_lib), "-o", str(tmp_path / "out"),
                    "-i", str(tmp_path / "x.npy"), "-i", str(tmp_path / "y.npy"))
    assert done.returncode == 0, done.stderr
    expected, dtypes = _half_expected(models)
    assert dtypes == ["bfloat16", "float16", "float32"]
    for i, (want, dtype) in enumerate(zip(expected, dtypes)):
        got = np.load(tmp_path / "out" / f"output_{i}.npy")  # ml_dtypes is imported: 'bfloat16' parses
        assert got.dtype.name == dtype
        assert np.array_equal(_bits(got), want), (i, dtype)


def test_a_bfloat16_npy_saved_by_numpy_is_refused_with_the_convention(models, runtime_lib, tmp_path):
    x, y = _half_inputs(models)
    np.save(tmp_path / "x.npy", x)  # numpy writes '<V2': the type is lost
    np.save(tmp_path / "y.npy", y)
    done = _run_cli(str(models / "mixed_half.prefixed.pt2"), "--runtime", str(runtime_lib), "-o", str(tmp_path / "out"),
                    "-i", str(tmp_path / "x.npy"), "-i", str(tmp_path / "y.npy"))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "descr 'bfloat16'" in lines[0] and "x.npy" in lines[0], done.stderr
    assert not (tmp_path / "out").exists()


def test_shimgen_run_reads_and_writes_float8(models, runtime_lib, tmp_path):
    """float8_e4m3fn and float8_e5m2 in and out, as ml_dtypes arrays in .npy files named by their dtype
    (the bfloat16 convention). Before, an output of either failed the run: "output dtype code 24 has
    no numpy equivalent", and an input could not be given at all."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    from shimgen.aoti.runner import save_array

    meta = json.loads((models / "float8_io.json").read_text())
    inputs = [np.load(models / f"float8_io.in{i}.npy").view(getattr(ml_dtypes, dtype))
              for i, dtype in enumerate(meta["dtypes"]["inputs"])]
    for i, array in enumerate(inputs):
        save_array(tmp_path / f"in{i}.npy", array)
    assert b"'descr': 'float8_e4m3fn'" in (tmp_path / "in0.npy").read_bytes()[:128]
    done = _run_cli(str(models / "float8_io.prefixed.pt2"), "--runtime", str(runtime_lib), "-o", str(tmp_path / "out"),
                    "-i", str(tmp_path / "in0.npy"), "-i", str(tmp_path / "in1.npy"))
    assert done.returncode == 0, done.stderr
    assert meta["dtypes"]["outputs"] == ["float8_e5m2", "float8_e4m3fn", "float32"]
    for i, dtype in enumerate(meta["dtypes"]["outputs"]):
        got, want = np.load(tmp_path / "out" / f"output_{i}.npy"), np.load(models / f"float8_io.out{i}.npy")
        assert got.dtype.name == dtype
        assert np.array_equal(got.view(np.uint8) if got.dtype.itemsize == 1 else got, want), (i, dtype)
    # The control: the inputs' bits read as the other float8 format give other outputs.
    swapped = [inputs[0].view(ml_dtypes.float8_e5m2), inputs[1].view(ml_dtypes.float8_e4m3fn)]
    for i, array in enumerate(swapped):
        save_array(tmp_path / f"in{i}.npy", array)
    done = _run_cli(str(models / "float8_io.prefixed.pt2"), "--runtime", str(runtime_lib), "-o", str(tmp_path / "bad"),
                    "-i", str(tmp_path / "in0.npy"), "-i", str(tmp_path / "in1.npy"))
    assert done.returncode != 0 and "dtype" in done.stderr, done.stderr


@pytest.fixture(scope="module")
def half_model(models, runtime_lib):
    from shimgen.aoti.runner import Model

    rt = Runtime(runtime_lib, PREFIX)
    with Model(rt, models / "mixed_half.prefixed.pt2") as model:
        yield rt, model


def test_the_api_takes_and_returns_ml_dtypes_arrays(models, half_model):
    _, model = half_model
    x, y = _half_inputs(models)
    outputs = model.run([x, y])
    expected, dtypes = _half_expected(models)
    assert [o.dtype.name for o in outputs] == dtypes
    assert all(np.array_equal(_bits(o), e) for o, e in zip(outputs, expected))


def test_dlpack_torch_in_and_out_without_copies(models, half_model):
    torch = pytest.importorskip("torch")
    rt, model = half_model
    x, y = _half_inputs(models)
    tx = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
    ty = torch.from_numpy(y)
    # An input handle is the caller's memory (negative control: a transposed copy is not).
    handle, keep = rt.tensor_from_dlpack(tx)
    assert rt.data_ptr(handle) == tx.data_ptr() and rt.strides(handle) == [16, 1]
    rt.delete(handle)
    del keep
    outs = model.run_dlpack([tx, ty])
    tensors = [torch.from_dlpack(o) for o in outs]
    assert [t.data_ptr() for t in tensors] == [o.data_ptr for o in outs]  # a view of the runtime's memory
    assert [t.dtype for t in tensors] == [torch.bfloat16, torch.float16, torch.float32]
    expected, _ = _half_expected(models)
    for t, want in zip(tensors, expected):
        got = t.view(torch.int16).numpy().view(np.uint16) if t.element_size() == 2 else t.numpy()
        assert np.array_equal(got, want)
    # A strided input is copied into the layout the model was compiled for: same results.
    strided = torch.empty(16, 8, dtype=torch.bfloat16).t().copy_(tx)
    assert not strided.is_contiguous()
    again = [torch.from_dlpack(o) for o in model.run_dlpack([strided, ty])]
    assert torch.equal(again[0], tensors[0])


def test_dlpack_float8_in_and_out(models, runtime_lib):
    """torch's float8 tensors through DLPack (type codes 10 and 12, DLPack 1.1), both ways, no copy of
    the inputs; the outputs' bits equal eager's."""
    torch = pytest.importorskip("torch")
    from shimgen.aoti.runner import Model

    meta = json.loads((models / "float8_io.json").read_text())
    inputs = [torch.from_numpy(np.load(models / f"float8_io.in{i}.npy")).view(getattr(torch, dtype))
              for i, dtype in enumerate(meta["dtypes"]["inputs"])]
    rt = Runtime(runtime_lib, PREFIX)
    handle, keep = rt.tensor_from_dlpack(inputs[0])
    assert rt.data_ptr(handle) == inputs[0].data_ptr()
    rt.delete(handle)
    del keep
    with Model(rt, models / "float8_io.prefixed.pt2") as model:
        tensors = [torch.from_dlpack(o) for o in model.run_dlpack(inputs)]
        assert [t.dtype for t in tensors] == [torch.float8_e5m2, torch.float8_e4m3fn, torch.float32]
        for i, t in enumerate(tensors):
            got = t.view(torch.uint8).numpy() if t.element_size() == 1 else t.numpy()
            assert np.array_equal(got, np.load(models / f"float8_io.out{i}.npy")), i
        del tensors


def test_dlpack_outputs_free_their_tensor_when_the_last_consumer_does(models, half_model):
    torch = pytest.importorskip("torch")
    import gc

    from shimgen.aoti import dlpack

    _, model = half_model
    x, y = _half_inputs(models)
    tx = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
    freed: list[int] = []
    outs = model.run_dlpack([tx, torch.from_numpy(y)])
    for out in outs:  # record frees, still freeing for real
        out._free = lambda handle, free=out._free: (freed.append(handle), free(handle))
    handles = [o.handle for o in outs]
    consumer = torch.from_dlpack(outs[2])
    unconsumed = outs[1].__dlpack__()  # a capsule nobody takes: freed with the capsule
    del outs, out
    gc.collect()
    assert freed == [handles[0]]  # the one nobody took; the others are still in use
    value = consumer.clone()
    del consumer, unconsumed
    gc.collect()
    assert sorted(freed) == sorted(handles) and not dlpack._LIVE
    assert torch.equal(value, torch.from_numpy(_half_expected(models)[0][2]))


class _StreamObject:
    """A caller's stream object as CuPy's or torch's: the CUDA stream protocol, or a pointer attribute."""

    def __init__(self, pointer: int, how: str) -> None:
        self.pointer, self.how = pointer, how

    def __getattr__(self, name: str):
        if self.how == "protocol" and name == "__cuda_stream__":
            return lambda: (0, self.pointer)
        if name == {"torch": "cuda_stream", "cupy": "ptr"}.get(self.how):
            return self.pointer
        raise AttributeError(name)


@pytest.mark.parametrize("how", ["protocol", "torch", "cupy"])
def test_a_stream_object_is_read_as_its_pointer(how):
    from shimgen.aoti.dlpack import stream_pointer

    assert stream_pointer(_StreamObject(0x1234, how)) == 0x1234
    assert stream_pointer(None) is None and stream_pointer(77) == 77
    with pytest.raises(InputError, match="neither a cudaStream_t"):
        stream_pointer("stream 7")


def test_a_dlpack_output_keeps_the_callers_stream_object_alive(half_model):
    """The runtime frees an output on the stream it was allocated on; CuPy destroys a stream with its last
    reference, which Python may drop before the outputs' (a function's locals): on the H200 that freed
    onto a destroyed stream and crashed. The output holds the stream object until its last consumer goes
    (negative control: a bare pointer is held by nobody)."""
    import gc
    import weakref

    rt, _ = half_model
    stream = _StreamObject(0x1234, "protocol")
    alive = weakref.ref(stream)
    out = rt.to_dlpack(rt.empty([2, 3]), stream)
    assert out.stream == 0x1234 and out.stream_owner is stream
    capsule = out.__dlpack__()  # a consumer that still holds the data
    del stream, out
    gc.collect()
    assert alive() is not None  # the consumer's capsule -> the output -> the stream object
    del capsule
    gc.collect()
    assert alive() is None
    bare = rt.to_dlpack(rt.empty([2]), 0x1234)
    assert bare.stream == 0x1234 and bare.stream_owner is None


def test_dlpack_numpy_in_and_out(models, half_model):
    _, model = half_model
    x, y = _half_inputs(models)
    pytest.importorskip("torch")
    import torch

    tx = torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)  # numpy has no DLPack bfloat16
    outs = model.run_dlpack([tx, y])  # y: a numpy float16 array through DLPack
    got = np.from_dlpack(outs[1])
    assert got.dtype == np.float16 and got.ctypes.data == outs[1].data_ptr
    assert np.array_equal(got.view(np.uint16), _half_expected(models)[0][1])
    with pytest.raises(InputError, match="not DLPack-capable"):
        model.run_dlpack([tx, [1.0, 2.0]])


def test_a_package_with_a_repeated_member_is_refused_before_the_loader(models, runtime_lib, tmp_path):
    """The C loader and Python's zipfile take different copies of a repeated name: refuse it."""
    import warnings
    import zipfile

    from shimgen.aoti.runner import Model

    package = tmp_path / "twice.pt2"
    with zipfile.ZipFile(models / "pointwise.prefixed.pt2") as source, warnings.catch_warnings(), \
            zipfile.ZipFile(package, "w") as out:
        warnings.simplefilter("ignore")
        for info in source.infolist():
            out.writestr(info, source.read(info))
        so = next(i for i in source.infolist() if i.filename.endswith(".so"))
        out.writestr(so.filename, b"\x7fELF not the model")
    with pytest.raises(InputError, match="appears twice"):
        Model(Runtime(runtime_lib, PREFIX), package)
