"""The CUDA runtime on a real GPU: caller streams, pinned memory, copies, guards."""

from __future__ import annotations

import ctypes
import os
import subprocess
import time
from ctypes import byref, c_void_p

import pytest

pytestmark = pytest.mark.gpu
CPU, CUDA_DEV = 0, 1
FLOAT32, UINT8 = 6, 0
NOT_READY = 600  # cudaErrorNotReady


def _fill_random(rt, handle, nbytes):
    payload = os.urandom(nbytes)
    ctypes.memmove(rt.data_ptr(handle), payload, nbytes)
    return payload


def test_pinned_memory_is_page_locked_host_memory(cuda):
    rt = cuda.rt
    handle = rt.empty([1024], pinned=True)
    kind, _ = cuda.attributes(rt.data_ptr(handle))
    assert kind == 1  # cudaMemoryTypeHost: page-locked, registered with CUDA
    plain = rt.empty([1024])
    assert cuda.attributes(rt.data_ptr(plain))[0] == 0  # cudaMemoryTypeUnregistered: pageable
    rt.delete(handle)
    rt.delete(plain)


def test_device_allocation(cuda):
    rt = cuda.rt
    handle = rt.empty([64, 64], device_type=CUDA_DEV, device_index=0)
    assert cuda.attributes(rt.data_ptr(handle)) == (2, 0)  # cudaMemoryTypeDevice on device 0
    assert rt.scalar(handle, "aoti_torch_get_device_index", ctypes.c_int32) == 0
    rt.delete(handle)


@pytest.mark.parametrize("pinned", [False, True])
def test_host_device_round_trip_is_bit_exact(cuda, pinned):
    rt = cuda.rt
    n = 1 << 20
    host = rt.empty([n], pinned=pinned)
    payload = _fill_random(rt, host, n * 4)  # random bits: NaN payloads and denormals included
    device = rt.empty([n], device_type=CUDA_DEV)
    back = rt.empty([n], pinned=pinned)
    rt.copy_(device, host)
    rt.copy_(back, device)
    assert ctypes.string_at(rt.data_ptr(back), n * 4) == payload
    for handle in (host, device, back):
        rt.delete(handle)


def test_strided_copies_through_the_device(cuda):
    rt = cuda.rt
    host = rt.empty([64, 48])
    payload = _fill_random(rt, host, 64 * 48 * 4)
    transposed_dev = rt.empty([64, 48], [1, 64], device_type=CUDA_DEV)  # staging path
    rt.copy_(transposed_dev, host)
    dense_dev = rt.empty([64, 48], device_type=CUDA_DEV)
    rt.copy_(dense_dev, transposed_dev)  # on-device strided kernel
    clone = c_void_p()
    assert rt.shim("aoti_torch_clone_preserve_strides")(transposed_dev, byref(clone)) == 0
    back = rt.empty([64, 48])
    rt.copy_(back, dense_dev)
    assert ctypes.string_at(rt.data_ptr(back), len(payload)) == payload
    back2 = rt.empty([64, 48])
    rt.copy_(back2, clone.value)
    assert ctypes.string_at(rt.data_ptr(back2), len(payload)) == payload
    for handle in (host, transposed_dev, dense_dev, clone.value, back, back2):
        rt.delete(handle)


def test_copies_run_on_the_caller_stream(cuda):
    rt, kit = cuda.rt, cuda.kit
    busy, free = cuda.stream(), cuda.stream()
    n = 1 << 16
    host = rt.empty([n], pinned=True)
    payload = _fill_random(rt, host, n * 4)

    # A 400 ms kernel on the caller's stream: a non-blocking copy queued there waits behind it.
    assert kit.tk_spin(busy, 400_000_000) == 0
    guard = rt.caller_stream_guard(busy)
    assert rt.current_cuda_stream(0) == busy
    device = rt.empty([n], device_type=CUDA_DEV)  # stream-ordered allocation on `busy`
    rt.copy_(device, host, non_blocking=True)
    assert kit.tk_stream_query(busy) == NOT_READY
    start = time.perf_counter()
    back = rt.empty([n])
    rt.copy_(back, device)  # blocking: waits for the spin, then the copies
    waited = time.perf_counter() - start
    rt.end_caller_stream_guard(guard)
    assert ctypes.string_at(rt.data_ptr(back), n * 4) == payload
    assert waited > 0.2, f"blocking copy on the busy caller stream returned after {waited:.3f} s"

    # The same spin does not delay copies when the caller selected another stream.
    assert kit.tk_spin(busy, 400_000_000) == 0
    guard = rt.caller_stream_guard(free)
    assert rt.current_cuda_stream(0) == free
    start = time.perf_counter()
    other = rt.empty([n], device_type=CUDA_DEV)
    rt.copy_(other, host)
    rt.copy_(back, other)
    quick = time.perf_counter() - start
    still_busy = kit.tk_stream_query(busy)
    rt.end_caller_stream_guard(guard)
    assert still_busy == NOT_READY
    assert quick < 0.2, f"copies on a free stream took {quick:.3f} s behind a busy one"
    assert ctypes.string_at(rt.data_ptr(back), n * 4) == payload
    assert rt.current_cuda_stream(0) == 0  # no selection: the runtime's current stream (legacy default)
    kit.tk_stream_sync(busy)
    print(f"blocking copy behind a 400 ms spin: {waited:.3f} s; on a free stream: {quick * 1000:.1f} ms")
    for handle in (host, device, back, other):
        rt.delete(handle)


def test_device_guard_sets_and_restores(cuda):
    rt = cuda.rt
    assert cuda.current_device() == 0
    guard = c_void_p()
    assert rt.shim("aoti_torch_create_cuda_guard")(0, byref(guard)) == 0
    assert cuda.current_device() == 0
    assert rt.shim("aoti_torch_cuda_guard_set_index")(guard, 0) == 0
    assert rt.shim("aoti_torch_delete_cuda_guard")(guard) == 0
    bad = c_void_p(7)
    assert rt.shim("aoti_torch_create_cuda_guard")(cuda.devices, byref(bad)) == 2 and bad.value == 7
    assert "out of range" in rt.last_error()
    assert cuda.current_device() == 0


def test_stream_guards_and_caller_guards_nest(cuda):
    rt = cuda.rt
    s1, s2, s3 = cuda.stream(), cuda.stream(), cuda.stream()
    assert rt.current_cuda_stream(0) == 0
    g1 = c_void_p()
    assert rt.shim("aoti_torch_create_cuda_stream_guard")(s1, 0, byref(g1)) == 0
    assert rt.current_cuda_stream(0) == s1
    caller = rt.caller_stream_guard(s2)  # innermost selection wins
    assert rt.current_cuda_stream(0) == s2
    g3 = c_void_p()
    assert rt.shim("aoti_torch_create_cuda_stream_guard")(s3, 0, byref(g3)) == 0
    assert rt.current_cuda_stream(0) == s3
    assert rt.shim("aoti_torch_delete_cuda_stream_guard")(g3) == 0
    assert rt.current_cuda_stream(0) == s2
    rt.end_caller_stream_guard(caller)
    assert rt.current_cuda_stream(0) == s1
    assert rt.shim("aoti_torch_delete_cuda_stream_guard")(g1) == 0
    assert rt.current_cuda_stream(0) == 0
    for s in (s1, s2, s3):
        cuda.kit.tk_stream_destroy(s)


@pytest.mark.parametrize("case", ["no_guard", "null_is_selection", "nesting", "per_thread", "stress", "prefixed_calls"])
def test_native_contract_in_cuda_build(cuda, case):
    completed = subprocess.run([cuda.native_tests, case], capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
