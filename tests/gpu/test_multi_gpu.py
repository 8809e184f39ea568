"""Issue 9: device guards and caller streams across two devices. Two-device cases skip on <2 GPUs."""

from __future__ import annotations

import ctypes
import os
import threading
from ctypes import byref, c_void_p

import pytest

from shimgen.aoti.capi import cuda_device_count

DEVICES = cuda_device_count()

pytestmark = pytest.mark.gpu
CUDA_DEV = 1
two_gpus = pytest.mark.skipif(DEVICES < 2, reason=f"needs 2 CUDA devices, found {DEVICES}")


@two_gpus
def test_device_guard_switches_and_restores(cuda):
    rt = cuda.rt
    assert cuda.current_device() == 0
    g1 = c_void_p()
    assert rt.shim("aoti_torch_create_cuda_guard")(1, byref(g1)) == 0
    assert cuda.current_device() == 1
    g0 = c_void_p()
    assert rt.shim("aoti_torch_create_cuda_guard")(0, byref(g0)) == 0
    assert cuda.current_device() == 0
    assert rt.shim("aoti_torch_delete_cuda_guard")(g0) == 0
    assert cuda.current_device() == 1
    assert rt.shim("aoti_torch_delete_cuda_guard")(g1) == 0
    assert cuda.current_device() == 0


@two_gpus
def test_empty_strided_on_device_1(cuda):
    rt = cuda.rt
    handle = rt.empty([256], device_type=CUDA_DEV, device_index=1)
    assert cuda.attributes(rt.data_ptr(handle)) == (2, 1)
    assert cuda.current_device() == 0  # allocation did not move the caller's device
    rt.delete(handle)


@two_gpus
def test_copy_between_devices_is_bit_exact(cuda):
    rt = cuda.rt
    n = 1 << 20
    host = rt.empty([n])
    payload = os.urandom(n * 4)
    ctypes.memmove(rt.data_ptr(host), payload, n * 4)
    d0 = rt.empty([n], device_type=CUDA_DEV, device_index=0)
    d1 = rt.empty([n], device_type=CUDA_DEV, device_index=1)
    back = rt.empty([n])
    rt.copy_(d0, host)
    rt.copy_(d1, d0)
    rt.copy_(d0, d1)  # and back again
    rt.copy_(back, d0)
    assert ctypes.string_at(rt.data_ptr(back), n * 4) == payload
    for handle in (host, d0, d1, back):
        rt.delete(handle)


@two_gpus
def test_device_0_caller_stream_is_never_used_for_device_1(cuda):
    rt = cuda.rt
    s0, s1 = cuda.stream(0), cuda.stream(1)
    g = c_void_p()
    assert rt.shim("aoti_torch_create_cuda_stream_guard")(s1, 1, byref(g)) == 0
    assert rt.current_cuda_stream(1) == s1
    caller = rt.caller_stream_guard(s0)
    assert rt.current_cuda_stream(0) == s0
    assert rt.current_cuda_stream(1) == s1  # the device-0 selection does not apply to device 1
    bad = c_void_p(9)
    assert rt.shim("aoti_torch_create_cuda_stream_guard")(s0, 1, byref(bad)) == 2 and bad.value == 9
    assert "belongs to device 0" in rt.last_error()
    handle = rt.empty([16], device_type=CUDA_DEV, device_index=1)  # allocated on device 1's stream
    assert cuda.attributes(rt.data_ptr(handle)) == (2, 1)
    rt.delete(handle)
    rt.end_caller_stream_guard(caller)
    assert rt.shim("aoti_torch_delete_cuda_stream_guard")(g) == 0
    assert rt.current_cuda_stream(1) == 0


def test_current_streams_are_per_device_and_per_thread(cuda):
    rt = cuda.rt
    devices = min(DEVICES, 2)
    streams = [cuda.stream(d) for d in range(devices)]
    guards = []
    for d in range(devices):
        g = c_void_p()
        assert rt.shim("aoti_torch_create_cuda_stream_guard")(streams[d], d, byref(g)) == 0
        guards.append(g)
    assert [rt.current_cuda_stream(d) for d in range(devices)] == streams
    seen = []
    worker = threading.Thread(target=lambda: seen.extend(rt.current_cuda_stream(d) for d in range(devices)))
    worker.start()
    worker.join()
    assert seen == [0] * devices  # another thread sees none of this thread's streams
    for g in reversed(guards):
        assert rt.shim("aoti_torch_delete_cuda_stream_guard")(g) == 0
    assert [rt.current_cuda_stream(d) for d in range(devices)] == [0] * devices
