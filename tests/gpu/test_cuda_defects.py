"""Issue 13's CUDA runtime defects, each reproduced on the GPU (each test failed before its fix)."""

from __future__ import annotations

import ctypes
import time
from ctypes import byref, c_int, c_void_p

import numpy as np
import pytest
from _tensors import to_device, to_host, view

pytestmark = pytest.mark.gpu
NOT_READY = 600
N = 1 << 20


def _pinned(rt, values: np.ndarray) -> int:
    host = rt.empty([values.size], pinned=True)
    ctypes.memmove(rt.data_ptr(host), values.ctypes.data, values.nbytes)
    return host


def test_device_memory_is_freed_on_its_allocation_stream(cuda):
    """A block still being written on its allocation stream must not be handed out again.

    Before: delete under another stream freed it there at once (cudaFreeAsync on the stream current
    at delete time); the next allocation on that stream got the same block, and the pending write
    from the allocation stream landed in the new tensor."""
    rt, kit = cuda.rt, cuda.kit
    s1, s2 = cuda.stream(), cuda.stream()
    first = _pinned(rt, np.full(N, 1.0, np.float32))
    second = _pinned(rt, np.full(N, 2.0, np.float32))
    guard = rt.caller_stream_guard(s1)
    x = rt.empty([N], device_type=1)
    assert kit.tk_spin(s1, 300_000_000) == 0
    rt.copy_(x, first, non_blocking=True)  # lands in x after the 300 ms spin on s1
    rt.end_caller_stream_guard(guard)
    guard = rt.caller_stream_guard(s2)
    rt.delete(x)                           # the write is still pending on s1
    y = rt.empty([N], device_type=1)
    rt.copy_(y, second)                    # blocking: y holds 2.0 now
    rt.end_caller_stream_guard(guard)
    assert kit.tk_stream_sync(s1) == 0     # the spin ends, the pending copy runs
    got = to_host(rt, y)
    assert np.all(got == 2.0), f"the tensor allocated after the free was overwritten ({np.count_nonzero(got != 2.0)} elements)"
    for h in (first, second, y):
        rt.delete(h)


def test_device_to_device_copy_does_not_wait_on_the_host(cuda):
    rt, kit = cuda.rt, cuda.kit
    busy = cuda.stream()
    guard = rt.caller_stream_guard(busy)
    src = to_device(rt, np.arange(N, dtype=np.float32))
    square = to_device(rt, np.arange(N, dtype=np.float32).reshape(1024, 1024))
    dst = rt.empty([N], device_type=1)
    strided = rt.empty([1024, 1024], [1, 1024], device_type=1)
    assert kit.tk_spin(busy, 300_000_000) == 0
    start = time.perf_counter()
    rt.copy_(dst, src)  # blocking copy_, device to device: stream-ordered, no host sync (as PyTorch)
    clone = c_void_p()
    assert rt.shim("aoti_torch_clone")(src, byref(clone)) == 0
    assert rt.shim("aoti_torch_copy_")(strided, square, 0) == 0  # the strided kernel path
    took = time.perf_counter() - start
    still_busy = kit.tk_stream_query(busy)
    back = to_host(rt, clone.value)
    rt.end_caller_stream_guard(guard)
    assert still_busy == NOT_READY and took < 0.15, f"device-to-device copies blocked the host for {took:.3f} s"
    assert np.array_equal(back, np.arange(N, dtype=np.float32))
    for h in (src, square, dst, strided, clone.value):
        rt.delete(h)


def test_clone_inside_cuda_graph_capture(cuda):
    """A clone (allocation + device-to-device copy) captured into a CUDA graph, then replayed."""
    rt, kit = cuda.rt, cuda.kit
    kit.tk_capture_begin.argtypes = [c_void_p]
    kit.tk_capture_end_and_launch.argtypes = [c_void_p, ctypes.POINTER(c_int)]
    stream = cuda.stream()
    values = np.arange(4096, dtype=np.float32) * 0.5
    guard = rt.caller_stream_guard(stream)
    src = to_device(rt, values)
    transposed = to_device(rt, values.reshape(64, 64), [1, 64])
    assert kit.tk_stream_sync(stream) == 0
    assert kit.tk_capture_begin(stream) == 0
    clone, dense = c_void_p(), c_void_p()
    code = rt.shim("aoti_torch_clone")(src, byref(clone))
    error = rt.last_error()
    code2 = rt.shim("aoti_torch_clone_preserve_strides")(transposed, byref(dense)) if code == 0 else -1
    nodes = c_int(0)
    ended = kit.tk_capture_end_and_launch(stream, byref(nodes))
    assert code == 0 and code2 == 0, f"clone under graph capture failed: {error} {rt.last_error()}"
    assert ended == 0 and nodes.value >= 2, (ended, nodes.value)
    got = to_host(rt, clone.value)
    got_t = to_host(rt, dense.value)
    rt.end_caller_stream_guard(guard)
    assert np.array_equal(got, values)
    assert np.array_equal(got_t, values.reshape(64, 64))
    for h in (src, transposed, clone.value, dense.value):
        rt.delete(h)


@pytest.mark.parametrize("source", ["device", "host"])
def test_copy_between_gapped_overlapping_views_leaves_the_gaps_alone(cuda, source):
    """sizes [2, 2, 2], strides [1, 1, 5] address offsets {0, 1, 2, 5, 6, 7}: 8 elements span, 8 numel.

    Before: the dense fast path took span == numel for "one contiguous block" and copied 8 flat
    elements, writing offsets 3 and 4 of the destination, which the view does not address."""
    rt = cuda.rt
    sizes, strides = [2, 2, 2], [1, 1, 5]
    values = np.arange(8, dtype=np.float32)
    if source == "device":
        src_base = to_device(rt, values)
    else:
        src_base = rt.empty([8])
        ctypes.memmove(rt.data_ptr(src_base), values.ctypes.data, values.nbytes)
    dst_base = to_device(rt, np.full(8, -1.0, np.float32))
    src, dst = view(rt, src_base, sizes, strides), view(rt, dst_base, sizes, strides)
    rt.copy_(dst, src)
    got = to_host(rt, dst_base)
    expected = np.full(8, -1.0, np.float32)
    addressed = sorted({i * 1 + j * 1 + k * 5 for i in (0, 1) for j in (0, 1) for k in (0, 1)})
    expected[addressed] = values[addressed]
    assert np.array_equal(got, expected), f"copy_ wrote outside the view: {got} (expected {expected})"
    for h in (src, dst, src_base, dst_base):
        rt.delete(h)


def test_cuda_error_paths_leave_nothing_behind(cuda):
    """The CUDA backend's and guards' refusals (shimgen/runtime/tests/leak_tests.cpp cuda_errors): a 256 TiB
    allocation, a device that does not exist for a tensor, a device guard and a stream guard, a copy
    that cannot broadcast; 51 rounds, no C++ allocation and no device memory left, device 0 current."""
    import subprocess

    done = subprocess.run([cuda.listing["leak_tests"], "cuda_errors"], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0 and "cuda_errors: ok" in done.stdout, done.stdout + done.stderr[-3000:]
