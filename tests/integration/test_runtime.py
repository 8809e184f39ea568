"""The shim runtime, built once (CPU-only) with `shimgen build`, tested natively and through ctypes."""

from __future__ import annotations

import ctypes
import os
import random
import re
import shutil
import subprocess
import sys
import time
from ctypes import byref, c_bool, c_int32, c_int64, c_void_p
from pathlib import Path

import pytest

from shimgen.aoti.capi import Runtime, int64_array
from shimgen.builder.builder import BuildOptions, build, find_nvcc
from shimgen.project.config import load_config
from shimgen.project.shims import resolve_shims
from shimgen.resources import default_config, runtime_dir
from tests.cuda_mode_model import cuda_mode
from tests.cuda_renorm_model import cpu_rule, torch_cuda_renorm
from tests.cuda_renorm_model import rows as renorm_rows
from tests.support import cpu_flags, write_loader_inputs

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
FLOAT32, INT64, UINT8 = 6, 4, 0
INVALID, UNSUPPORTED, STATE = 2, 3, 6


def _tests_listing(build_dir: Path) -> dict[str, str]:
    text = (build_dir / "shimgen-tests.txt").read_text()
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


@pytest.fixture(scope="module")
def built(cpu_runtime_with_tests):
    return cpu_runtime_with_tests


@pytest.fixture(scope="module")
def rt(built) -> Runtime:
    return Runtime(built.artifacts[0].path, "executorch_", mode=ctypes.RTLD_LOCAL)


# ---- caller-stream contract: compiled C++ consumers ----

@pytest.mark.parametrize("case", ["no_guard", "null_is_selection", "nesting", "per_thread", "stress", "prefixed_calls",
                                  "overflow"])
def test_native(built, case):
    program = _tests_listing(built.build_dir)["native_tests"]
    completed = subprocess.run([program, case], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    if case == "stress":
        assert "32 threads x 10000 nested iterations, 0 wrong observations" in completed.stdout


def test_op_tests(built):
    """The native test of every CPU op (shimgen/runtime/tests/ops/<op>_test.cpp), hand-computed values."""
    program = _tests_listing(built.build_dir)["op_tests"]
    completed = subprocess.run([program, "all"], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "0 failed expectations" in completed.stdout and "cumsum: ok" in completed.stdout


@pytest.mark.parametrize("case", ["same_dense_layout", "internal_overlap", "fft_cuda_layout", "packed_weight_cache",
                                  "packed_weight_immutable", "small_attention", "free_lists", "int8_gemms"])
def test_internal_helpers(built, case):
    """The runtime's internal helpers, native (shimgen/runtime/tests/internal_tests.cpp, internal_cpu_tests.cpp):
    the CUDA copy fast path's layout test; ATen's internal-overlap rule (what scatter refuses to write
    to, and clone copies element by element); the CUDA FFT ops' result layouts against torch's meta
    function (cuFFT's staged plan; control: the CPU layout differs); the small GEMM's packed-weight cache (a weight changed in
    place is repacked; negative control: a cache trusting the address serves the stale copy), and its
    trust in an open model's parameters (ended by the model's close; control: without that, stale); the
    small-shape attention against a float64 reference; the free lists (warm runs of shim calls make
    no C++ allocation; control: the counter sees one); the int8 GEMMs, dispatched and portable, against an
    int64 reference on every remainder of their vector kernels."""
    program = _tests_listing(built.build_dir)["internal_tests"]
    completed = subprocess.run([program, case], capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0 and f"{case}: ok" in completed.stdout, completed.stdout + completed.stderr
    if "avx512f" in cpu_flags():  # the kernel parts ran (elsewhere they report themselves skipped)
        assert "skipped" not in completed.stdout and "not taken" not in completed.stdout, completed.stdout


def test_cuda_mode_tie_rule_matches_torchs_kernel(built):
    """aoti_torch_cuda_mode's tie rule (ops/mode.h, run here on host tensors through the internal test
    program) against a step-by-step model of torch's CUDA kernel (tests/cuda_mode_model.py): rows with
    ties between 2 to 7 values, of the lengths that take each block size and thrust's path. Control:
    the rows include ties the kernel gives to the smallest, the largest and a middle value, so a fixed
    smallest- or largest-value rule fails."""
    generator = random.Random(22)
    rows = [[3, 1, 5, 2, 0, 2, 4, 1, 3], [5, 0, 3, 1, 4, 5, 2, 3, 1], [2, 0, 1, 5, 0, 4, 2, 1, 3]]
    for _ in range(300):
        n = generator.choice([2, 5, 9, 17, 64, 100, 128, 129, 300, 1024, 1500, 2048, 2050])
        k = generator.choice([2, 3, 5, 7, max(2, n // 2)])
        rows.append([generator.randrange(k) for _ in range(n)])
    program = _tests_listing(built.build_dir)["internal_tests"]
    completed = subprocess.run([program, "cuda_mode_rows"], input="\n".join(" ".join(map(str, r)) for r in rows),
                               capture_output=True, text=True, timeout=120)
    assert completed.returncode == 0 and "cuda_mode_rows: ok" in completed.stdout, completed.stderr
    got = [tuple(map(int, line.split())) for line in completed.stdout.splitlines()[:-1]]
    want = [cuda_mode(r) for r in rows]
    assert got == want, next(f"row {i} (n={len(rows[i])}): shimgen {g}, torch's kernel {w}"
                             for i, (g, w) in enumerate(zip(got, want)) if g != w)
    kinds = set()
    for r, (value, _) in zip(rows, want):
        counts = {v: r.count(v) for v in set(r)}
        tied = sorted(v for v, c in counts.items() if c == max(counts.values()))
        if len(tied) > 1:
            kinds.add("smallest" if value == tied[0] else "largest" if value == tied[-1] else "middle")
    assert kinds == {"smallest", "largest", "middle"}, kinds


def test_cuda_embedding_renorm_follows_torchs_cuda_kernel(built):
    """aten::embedding_renorm on a CUDA weight (the proxy's CUDA-kernel norm rule, run here on host tensors
    through the internal test program) against torch's CUDA kernel's arithmetic: on the H200, ring
    op_shapes_4's F.embedding(max_norm=1.5, norm_type=3) was 4.51 off eager CUDA with the CPU rule.
    Control: the rows with negative entries at p = 3 and 0.5 renorm differently under the CPU rule (true
    p-norm of |x|), so a runtime applying it fails."""
    import numpy as np

    rows = renorm_rows()
    program = _tests_listing(built.build_dir)["internal_tests"]
    completed = subprocess.run([program, "cuda_renorm_rows"], capture_output=True, text=True, timeout=120,
                               input="\n".join(f"{p} {m} " + " ".join(map(str, r)) for p, m, r in rows))
    assert completed.returncode == 0 and "cuda_renorm_rows: ok" in completed.stdout, completed.stderr
    got = [np.array(line.split(), dtype=np.float32) for line in completed.stdout.splitlines()[:-1]]
    assert len(got) == len(rows)
    cpu_rule_differs = 0
    for (p, max_norm, row), g in zip(rows, got):
        want = torch_cuda_renorm(row, p, max_norm)
        assert np.allclose(g, want, rtol=2e-6, atol=1e-7), (p, max_norm, row, g.tolist(), want.tolist())
        cpu_rule_differs += not np.allclose(cpu_rule(row, p, max_norm), want, rtol=1e-5, atol=1e-6)
    assert cpu_rule_differs >= 10, cpu_rule_differs


@pytest.mark.parametrize("case", ["loader_errors", "guard_errors", "handle_misuse"])
def test_error_paths_leave_nothing_behind(built, case, tmp_path):
    """Every refusal of shimgen_model_open, of misused model handles (double close, use after close,
    garbage pointers: an error code, not a crash) and of the guards, run 51 times: no C++ allocation
    left (counted by the program's own operator new), no private directory, no model still mapped."""
    listing = _tests_listing(built.build_dir)
    args = {"loader_errors": [str(write_loader_inputs(tmp_path / "inputs", Path(listing["not_a_model"])))],
            "handle_misuse": [listing["fake_model"]]}.get(case, [])
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    completed = subprocess.run([listing["leak_tests"], case, *args], capture_output=True, text=True, timeout=120,
                               env={**os.environ, "TMPDIR": str(scratch)}, check=False)
    assert completed.returncode == 0 and f"{case}: ok" in completed.stdout, completed.stdout + completed.stderr
    assert not list(scratch.iterdir())


_OPEN_UNDER_A_FILE_SIZE_LIMIT = """
import ctypes, resource, signal, sys
limit = int(sys.argv[3])  # bytes; 0: no limit
if limit:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead of killing
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
rt = ctypes.CDLL(sys.argv[1])
rt.shimgen_model_last_error.restype = ctypes.c_char_p
model = ctypes.c_void_p()
rc = rt.shimgen_model_open(sys.argv[2].encode(), None, None, 0, ctypes.byref(model))
print(rc, rt.shimgen_model_last_error().decode())
rt.shimgen_model_close(model)
"""


def test_a_model_that_cannot_be_written_out_leaves_no_part_behind(built, tmp_path):
    """The loader copies a model's .so into a private directory; when the disk is full (here: a 4 KiB
    file size limit, so the 15 KB .so's copy fails part way), the open is refused naming the write, and
    the part written is removed with the directory. A model of gigabytes left half-copied in /tmp (as a
    full disk did to the ring's run on 2026-12-07) fills it for everything after. Control: the same open
    without the limit succeeds, so the refusal is the write's."""
    model = _tests_listing(built.build_dir)["fake_model"]
    assert Path(model).stat().st_size > 8192
    scratch = tmp_path / "tmp"
    scratch.mkdir()

    def open_model(limit: int) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", _OPEN_UNDER_A_FILE_SIZE_LIMIT, str(built.artifacts[0].path),
                               model, str(limit)], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "TMPDIR": str(scratch)})

    completed = open_model(4096)
    rc, _, message = completed.stdout.strip().partition(" ")
    assert rc not in ("", "0") and "cannot write" in message and "model.so" in message, completed
    assert not list(scratch.iterdir()), [str(p.relative_to(scratch)) for p in scratch.rglob("*")]
    unlimited = open_model(0)
    assert unlimited.stdout.startswith("0 "), unlimited


_RUN_THE_FAKE_MODEL = """
import ctypes, sys
rt = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)  # the model finds the runtime's shims in the process
rt.shimgen_model_last_error.restype = ctypes.c_char_p
model = ctypes.c_void_p()
assert rt.shimgen_model_open(sys.argv[2].encode(), None, None, 0, ctypes.byref(model)) == 0
rc = rt.shimgen_model_run(model, None, 0, None, 0, None)
print(rc, rt.shimgen_model_last_error().decode() if rc else "")
rt.shimgen_model_close(model)
"""


def test_a_run_that_went_on_after_a_failed_shim_call_fails(built):
    """torch's generated code leaves some shim calls' error codes unchecked (torch 2.13's scatter into a
    slice of a cat's buffer: torch_geometric's readouts came back zero, docs/aoti.md). A run whose model
    reports success after such a failure fails, naming the shim and its error, instead of handing out
    outputs the failed call never wrote. Control: the same model, run without the failing call, succeeds."""
    model = _tests_listing(built.build_dir)["fake_model"]
    shim = next(s.prefixed for s in resolve_shims(load_config(default_config())).shims
                if s.prefixed.endswith("_aoti_torch_get_numel"))

    def run(env: dict[str, str]) -> tuple[str, str]:
        completed = subprocess.run([sys.executable, "-c", _RUN_THE_FAKE_MODEL, str(built.artifacts[0].path), model],
                                   capture_output=True, text=True, timeout=60, env={**os.environ, **env})
        assert completed.returncode == 0, completed.stderr
        rc, _, message = completed.stdout.strip().partition(" ")
        return rc, message

    assert run({}) == ("0", "")
    rc, message = run({"SHIMGEN_FAKE_MODEL_IGNORE": shim})
    assert rc != "0", "a run that went on after a failed shim call was reported as successful"
    assert "does not check that call's error code" in message and "aoti_torch_get_numel" in message, message


def test_c_consumer(built):
    program = _tests_listing(built.build_dir)["c_consumer"]
    completed = subprocess.run([program], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0 and "c_consumer: ok" in completed.stdout, completed.stdout + completed.stderr


def test_consumers_hold_no_copy_of_the_runtime(built):
    """The thread-local lives in the shared library only: consumers define none of its symbols."""
    if shutil.which("nm") is None:
        pytest.skip("nm not installed")
    listing = _tests_listing(built.build_dir)
    for program in (listing["native_tests"], listing["c_consumer"]):
        output = subprocess.run(["nm", "-C", "--defined-only", program], capture_output=True, text=True).stdout
        defined = {line.split(maxsplit=2)[-1] for line in output.splitlines() if len(line.split()) >= 3}
        assert not {name for name in defined if name.startswith(("shimgen_runtime_", "executorch_", "aoti_torch"))}
        assert not {name for name in defined if name.endswith(("::t_caller", "::t_seq", "::t_current"))}
        undefined = subprocess.run(["nm", "-u", program], capture_output=True, text=True).stdout
        assert "shimgen_runtime_shim_call_count" in undefined
    library = subprocess.run(["nm", "-C", str(built.artifacts[0].path)], capture_output=True, text=True).stdout
    assert "::t_caller" in library  # (static symbol table: the one copy of the thread-local)


def test_caller_stream_c_abi_from_python(rt):
    selected, stream = c_int32(7), c_void_p(0x99)
    get = rt.api("shimgen_runtime_get_caller_stream")
    assert get(byref(selected), byref(stream)) == 0 and selected.value == 0 and stream.value == 0x99  # untouched
    guard = rt.caller_stream_guard(None)
    assert get(byref(selected), byref(stream)) == 0 and selected.value == 1 and stream.value is None
    rt.end_caller_stream_guard(guard)
    assert get(byref(selected), byref(stream)) == 0 and selected.value == 0
    assert get(None, byref(stream)) == INVALID


# ---- tensors ----

def test_dtype_and_device_codes(rt):
    expected = {"dtype_float32": 6, "dtype_int64": 4, "dtype_bfloat16": 15, "dtype_bool": 11, "dtype_uint64": 29,
                "dtype_float8_e4m3fn": 24, "dtype_complex128": 10, "device_type_cpu": 0, "device_type_cuda": 1,
                "device_type_meta": 14, "layout_strided": 0, "layout_jagged": 7, "memory_format_channels_last": 2}
    assert {name: rt.shim("aoti_torch_" + name)() for name in expected} == expected
    assert rt.shim("aoti_torch_dtype_element_size")(10) == 16
    assert rt.shim("aoti_torch_dtype_element_size")(99) == 0


def test_codes_equal_libtorch(rt):
    """Every getter the runtime exports returns what the real libtorch returns (loaded side by side)."""
    torch = pytest.importorskip("torch")
    libtorch = ctypes.CDLL(str(Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"))
    shims = resolve_shims(load_config(default_config())).names
    getters = [n for n in shims if re.match(r"aoti_torch_(dtype|device_type|layout|memory_format)_", n)
               and n != "aoti_torch_dtype_element_size"]
    compared = 0
    for name in getters:
        theirs = getattr(libtorch, name, None)
        if theirs is None:
            continue
        theirs.restype = c_int32
        assert rt.shim(name)() == theirs(), name
        compared += 1
    assert compared >= 35


def test_empty_strided_round_trip(rt):
    handle = rt.empty([2, 3, 4], [1, 2, 6], dtype=INT64)
    assert rt.sizes(handle) == [2, 3, 4]
    assert rt.strides(handle) == [1, 2, 6]
    assert rt.scalar(handle, "aoti_torch_get_dim") == 3
    assert rt.scalar(handle, "aoti_torch_get_numel") == 24
    assert rt.scalar(handle, "aoti_torch_get_storage_offset") == 0
    assert rt.scalar(handle, "aoti_torch_get_storage_size") == 24 * 8
    assert rt.scalar(handle, "aoti_torch_get_dtype", c_int32) == INT64
    assert rt.scalar(handle, "aoti_torch_get_device_type", c_int32) == 0
    assert rt.scalar(handle, "aoti_torch_get_device_index", c_int32) == -1
    assert rt.scalar(handle, "aoti_torch_is_contiguous", c_bool) is False
    assert rt.data_ptr(handle) % 64 == 0
    rt.delete(handle)
    contiguous = rt.empty([5, 7])
    assert rt.strides(contiguous) == [7, 1] and rt.scalar(contiguous, "aoti_torch_is_contiguous", c_bool) is True
    rt.delete(contiguous)


def test_reinterpret_view_shares_storage_and_outlives_base(rt):
    base = rt.empty([4, 4])
    data = (ctypes.c_float * 16).from_address(rt.data_ptr(base))
    for i in range(16):
        data[i] = float(i)
    view = c_void_p()
    code = rt.shim("aoti_torch__reinterpret_tensor")(base, 2, int64_array([2, 2]), int64_array([4, 1]), 5, byref(view))
    assert code == 0
    assert rt.scalar(view.value, "aoti_torch_get_storage_offset") == 5
    assert rt.data_ptr(view.value) == rt.data_ptr(base) + 5 * 4
    # The offset adds to the base's offset (PyTorch's offset_increment).
    nested = c_void_p()
    assert rt.shim("aoti_torch__reinterpret_tensor")(view.value, 1, int64_array([2]), int64_array([1]), 3, byref(nested)) == 0
    assert rt.scalar(nested.value, "aoti_torch_get_storage_offset") == 8
    rt.delete(base)  # the views keep the storage alive
    clone = c_void_p()
    assert rt.shim("aoti_torch_clone")(view.value, byref(clone)) == 0
    values = (ctypes.c_float * 4).from_address(rt.data_ptr(clone.value))
    assert list(values) == [5.0, 6.0, 9.0, 10.0]
    assert rt.strides(clone.value) == [2, 1]
    for handle in (view.value, nested.value, clone.value):
        rt.delete(handle)


def test_new_handle_and_blob(rt):
    buffer = (ctypes.c_float * 12)(*range(12))
    blob = c_void_p()
    code = rt.shim("aoti_torch_create_tensor_from_blob_v2")(ctypes.addressof(buffer), 2, int64_array([2, 3]),
                                                            int64_array([3, 1]), 6, FLOAT32, 0, 0, byref(blob), 0, None, 0)
    assert code == 0
    assert rt.data_ptr(blob.value) == ctypes.addressof(buffer) + 24
    assert rt.scalar(blob.value, "aoti_torch_get_storage_size") == 12 * 4
    other = c_void_p()
    assert rt.shim("aoti_torch_new_tensor_handle")(blob.value, byref(other)) == 0
    rt.delete(blob.value)
    assert rt.data_ptr(other.value) == ctypes.addressof(buffer) + 24 and rt.sizes(other.value) == [2, 3]
    preserved = c_void_p()
    assert rt.shim("aoti_torch_clone_preserve_strides")(other.value, byref(preserved)) == 0
    assert list((ctypes.c_float * 6).from_address(rt.data_ptr(preserved.value))) == [6, 7, 8, 9, 10, 11]
    rt.delete(other.value)
    rt.delete(preserved.value)
    assert list(buffer) == list(range(12))  # borrowed memory is never freed or changed


def test_copy_strided_and_broadcast(rt):
    src = rt.empty([3, 4])
    values = (ctypes.c_float * 12).from_address(rt.data_ptr(src))
    for i in range(12):
        values[i] = i * 1.5
    transposed = rt.empty([3, 4], [1, 3])
    rt.copy_(transposed, src)
    out = (ctypes.c_float * 12).from_address(rt.data_ptr(transposed))
    assert [out[c * 3 + r] for r in range(3) for c in range(4)] == [i * 1.5 for i in range(12)]
    row = rt.empty([4])
    broadcast_src = rt.empty([1, 4])
    b = (ctypes.c_float * 4).from_address(rt.data_ptr(broadcast_src))
    for i in range(4):
        b[i] = 100 + i
    rt.copy_(src, broadcast_src)
    assert list(values) == [100.0, 101.0, 102.0, 103.0] * 3
    for handle in (src, transposed, row, broadcast_src):
        rt.delete(handle)


def test_errors_leave_outputs_untouched(rt):
    sentinel = 0x5EED
    out = c_void_p(sentinel)
    empty = rt.shim("aoti_torch_empty_strided")
    sizes = int64_array([2, 2])
    rt.api("shimgen_runtime_clear_last_error")()
    assert empty(2, sizes, None, 77, 0, 0, byref(out)) == INVALID and out.value == sentinel
    assert "unknown dtype code 77" in rt.last_error()
    assert empty(2, int64_array([2, -1]), None, FLOAT32, 0, 0, byref(out)) == INVALID and out.value == sentinel
    assert "negative" in rt.last_error()
    assert empty(2, sizes, None, FLOAT32, 1, 0, byref(out)) == UNSUPPORTED and out.value == sentinel
    assert "built without CUDA" in rt.last_error()
    assert empty(2, sizes, None, FLOAT32, 0, 0, None) == INVALID
    dim = c_int64(-3)
    assert rt.shim("aoti_torch_get_dim")(None, byref(dim)) == INVALID and dim.value == -3
    assert "null tensor handle" in rt.last_error()
    assert rt.shim("aoti_torch_delete_tensor_object")(None) == INVALID
    a, b = rt.empty([2, 2]), rt.empty([2, 2], dtype=INT64)
    assert rt.shim("aoti_torch_copy_")(a, b, 0) == UNSUPPORTED and "dtype conversion" in rt.last_error()
    c = rt.empty([3])
    assert rt.shim("aoti_torch_copy_")(a, c, 0) == INVALID and "broadcast" in rt.last_error()
    assert rt.shim("aoti_torch__reinterpret_tensor")(a, 1, int64_array([5]), int64_array([1]), 0, byref(out)) == INVALID
    assert out.value == sentinel and "past the storage" in rt.last_error()
    guard = c_void_p(sentinel)
    assert rt.shim("aoti_torch_create_cuda_guard")(0, byref(guard)) == UNSUPPORTED and guard.value == sentinel
    stream = c_void_p(sentinel)
    assert rt.shim("aoti_torch_get_current_cuda_stream")(0, byref(stream)) == UNSUPPORTED and stream.value == sentinel
    for handle in (a, b, c):
        rt.delete(handle)


def test_last_error_is_per_thread(rt):
    import threading

    rt.api("shimgen_runtime_clear_last_error")()
    seen = []

    def fail_here():
        rt.shim("aoti_torch_delete_tensor_object")(None)
        seen.append(rt.last_error())

    worker = threading.Thread(target=fail_here)
    worker.start()
    worker.join()
    assert "null tensor handle" in seen[0]
    assert rt.last_error() == ""


def test_grad_mode_is_per_thread_and_calls_are_counted(rt):
    import threading

    before = rt.calls()
    set_enabled, is_enabled = rt.shim("aoti_torch_grad_mode_set_enabled"), rt.shim("aoti_torch_grad_mode_is_enabled")
    assert is_enabled() is True
    set_enabled(False)
    other = []
    thread = threading.Thread(target=lambda: other.append(is_enabled()))
    thread.start()
    thread.join()
    assert is_enabled() is False and other == [True]
    set_enabled(True)
    assert rt.calls() == before + 5


def test_pinned_cpu_build_locks_pages(rt):
    """CPU-only build: pinned = mlock(2)ed host memory (VmLck grows), never a silent pageable fallback."""

    def locked_kb() -> int:
        match = re.search(r"VmLck:\s+(\d+) kB", Path("/proc/self/status").read_text())
        return int(match.group(1))

    before = locked_kb()
    handle = c_void_p()
    code = rt.shim("aoti_torch_empty_strided_pinned")(1, int64_array([1 << 18]), None, FLOAT32, 0, 0, byref(handle))
    if code != 0:  # RLIMIT_MEMLOCK too small: the allocation must fail loudly instead
        assert code == 4 and "RLIMIT_MEMLOCK" in rt.last_error()
        return
    assert locked_kb() - before >= 1024
    rt.delete(handle.value)
    assert locked_kb() == before
    bad = c_void_p(1)
    assert rt.shim("aoti_torch_empty_strided_pinned")(1, int64_array([4]), None, FLOAT32, 1, 0, byref(bad)) != 0
    assert bad.value == 1


# ---- symbols ----

def _dynamic_exports(path: Path) -> set[str]:
    output = subprocess.run(["nm", "-D", "--defined-only", str(path)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in output.splitlines() if line.strip()}


def test_exports_prefixed_only(built):
    if shutil.which("nm") is None:
        pytest.skip("nm not installed")
    exported = _dynamic_exports(built.artifacts[0].path)
    shimset = resolve_shims(load_config(default_config()))
    assert {s.prefixed for s in shimset.shims} <= exported
    assert not {n for n in exported if n.startswith("aoti_torch_")}
    # Nothing in the library references layout_sparse_bsc: it is present only because the archive
    # was whole-archived (retention).
    assert "executorch_aoti_torch_layout_sparse_bsc" in exported
    assert exported == {s.prefixed for s in shimset.shims} | set(shimset.exports)
    assert built.artifacts[0].prefixed_exports == len(shimset.shims)


# ---- shimgen build: no-op rebuild, prefix change, CLI ----

def test_second_build_does_no_work(built):
    command = [sys.executable, "-m", "shimgen", "build", "-B", str(built.build_dir), "--cuda", "off", "-j", "2"]
    # The fixture built with the tests on; the CLI run must keep that cache entry, so pass it the same way.
    env = dict(os.environ, PYTHONPATH=str(REPO))
    start = time.perf_counter()
    first = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO)
    assert first.returncode == 0, first.stdout + first.stderr
    start = time.perf_counter()
    second = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO)
    elapsed = time.perf_counter() - start
    assert second.returncode == 0, second.stdout + second.stderr
    assert "configure: up to date" in second.stderr and "ninja: no work to do" in second.stdout  # progress: stderr
    assert "wrote" not in second.stdout + second.stderr
    expected = len(resolve_shims(load_config(default_config())).shims)
    assert f"{expected}/{expected} prefixed shims exported" in second.stdout
    assert "check-symbols: passed" in second.stdout
    # Speed is measured by benchmarks/, not asserted here; this only reports it.
    print(f"no-op shimgen build: {elapsed:.2f} s")


@pytest.mark.skipif(not os.environ.get("SHIMGEN_SLOW_BUILDS"),
                    reason="two whole runtime builds (about 160 s on 2 cores): set SHIMGEN_SLOW_BUILDS=1; CI runs the "
                           "same property on a one-shim project (test_runtime_build.py)")
def test_prefix_change_leaves_no_trace(tmp_path):
    project = tmp_path / "runtime"
    shutil.copytree(runtime_dir(), project, ignore=shutil.ignore_patterns("build*", "__pycache__"))
    toml = project / "shimgen.toml"
    toml.write_text(toml.read_text().replace('prefix = "executorch_"', 'prefix = "oldpfx_"'))
    options = BuildOptions(tmp_path / "build", cuda="off", jobs=2)
    first = build(load_config(toml), options)
    library = first.artifacts[0].path
    assert b"oldpfx_aoti_torch_empty_strided" in library.read_bytes()
    toml.write_text(toml.read_text().replace('prefix = "oldpfx_"', 'prefix = "newpfx_"'))
    second = build(load_config(toml), options)
    data = second.artifacts[0].path.read_bytes()
    assert b"newpfx_aoti_torch_empty_strided" in data
    assert b"oldpfx" not in data
    expected = len(resolve_shims(load_config(toml)).shims)
    assert second.check.exit_code == 0 and second.artifacts[0].prefixed_exports == expected


def test_build_cli_bad_config_is_one_line(tmp_path):
    completed = subprocess.run([sys.executable, "-m", "shimgen", "build", "-c", str(tmp_path / "missing.toml"),
                                "-B", str(tmp_path / "b")], capture_output=True, text=True,
                               env=dict(os.environ, PYTHONPATH=str(REPO)))
    assert completed.returncode == 2
    assert completed.stderr.count("\n") == 1 and "config file not found" in completed.stderr


@pytest.mark.heavy  # one more whole-runtime build, CUDA included (about 5 minutes on 2 cores)
@pytest.mark.skipif(find_nvcc() is None, reason="no nvcc")
def test_cuda_build_compiles_and_links(tmp_path):
    """With a toolkit, the CUDA backend compiles (sm_90 + PTX) and links libcudart; no GPU needed."""
    result = build(load_config(default_config()),
                   BuildOptions(tmp_path / "cuda", cuda="on", jobs=2, cache=(("SHIMGEN_RUNTIME_BUILD_TESTS", "ON"),)))
    library = result.artifacts[0].path
    expected = len(resolve_shims(load_config(default_config())).shims)
    assert result.cuda and result.check.exit_code == 0 and result.artifacts[0].prefixed_exports == expected
    dynamic = subprocess.run(["readelf", "-dW", str(library)], capture_output=True, text=True).stdout
    assert "libcudart.so" in dynamic
    sections = subprocess.run(["readelf", "-SW", str(library)], capture_output=True, text=True).stdout
    assert ".nv_fatbin" in sections
    assert b"sm_90" in library.read_bytes() or b"compute_90" in library.read_bytes()
    # Loads and serves CPU tensors without a GPU; a CUDA tensor fails with a clear error when none.
    rt = Runtime(library, "executorch_")
    assert rt.api("shimgen_runtime_has_cuda")() == 1
    handle = rt.empty([3, 3])
    rt.delete(handle)

    # A library that calls cudart without DT_NEEDED (like an AOTI CUDA model) loads only once the
    # runtime was loaded RTLD_GLOBAL: the runtime's libcudart then serves it.
    user = _tests_listing(tmp_path / "cuda")["cudart_user"]
    assert "libcudart" not in subprocess.run(["readelf", "-dW", user], capture_output=True, text=True).stdout
    probe = (
        "import ctypes, sys\n"
        "if sys.argv[1] == 'global': ctypes.CDLL(sys.argv[2], mode=ctypes.RTLD_GLOBAL)\n"
        "user = ctypes.CDLL(sys.argv[3])\n"
        "count = ctypes.c_int(-1)\n"
        "print('status', user.cudart_user_device_count(ctypes.byref(count)))\n"
    )
    alone = subprocess.run([sys.executable, "-c", probe, "alone", str(library), user], capture_output=True, text=True)
    assert alone.returncode != 0 and "undefined symbol: cudaGetDeviceCount" in alone.stderr
    loaded = subprocess.run([sys.executable, "-c", probe, "global", str(library), user], capture_output=True, text=True)
    assert loaded.returncode == 0 and "status" in loaded.stdout, loaded.stderr
