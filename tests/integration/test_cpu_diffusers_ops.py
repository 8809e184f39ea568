"""The ops the diffusers ring brought (tests/arch_ring.py diffusers_qwenimage: Qwen-Image's complex
rotary table, torch.polar frequencies split per axis and concatenated again, built on the CPU and
moved to the model's device): the C shim aoti_torch_cpu_cat (through ctypes with torch's C-shim
signature) and the proxy-executor targets aten::split_with_sizes, aten::split.Tensor and
prims::device_put (through the runtime's own proxy executor, by a driver
model: tests/proxy_driver.py). Inductor concatenates and splits real tensors itself and falls back
for complex ones; the runtime serves every dtype. Compared with torch eager: values, dtypes, shapes
and strides (cat's channels-last rule: the generated code indexes the result with torch's strides),
the splits' sharing of self's memory; torch's legacy skip of 1-d empty tensors; a refused call per
rule, in torch's words."""

from __future__ import annotations

from ctypes import byref, c_int64, c_void_p

import pytest

from shimgen.errors import InputError
from tests.aoti_helpers import INVALID, UNSUPPORTED, shim
from tests.cpu_shim_tensors import gen, got_, last_error, strided, torch_error
from tests.proxy_driver import refused

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow
DTYPES = [torch.complex64, torch.complex128, torch.float32, torch.bfloat16, torch.int64, torch.bool]


def sample(*shape, seed=0, dtype=torch.complex64) -> torch.Tensor:
    x = torch.randn(*shape, dtype=torch.complex128 if dtype.is_complex else torch.float64, generator=gen(seed))
    return (x > 0) if dtype == torch.bool else (x * 10).to(dtype)


def assert_same(got: torch.Tensor, expected: torch.Tensor):
    """dtype, shape, strides and every element (both parts of a complex one) equal: copies and views."""
    assert (got.dtype, got.shape, got.stride()) == (expected.dtype, expected.shape, expected.stride())
    assert torch.equal(got, expected)


def _cat(rt, hs, tensors, dim) -> tuple[int, c_void_p]:
    handles = (c_void_p * max(len(tensors), 1))(*[hs.of(t).value for t in tensors])
    out = c_void_p()
    return shim(rt, "aoti_torch_cpu_cat")(handles, c_int64(len(tensors)), c_int64(dim), byref(out)), out


@pytest.mark.parametrize("dtype", DTYPES)
def test_cat_matches_torch(rt, hs, dtype):
    a, b = sample(2, 3, 4, seed=1, dtype=dtype), sample(2, 5, 4, seed=2, dtype=dtype)
    none = torch.empty(0, dtype=dtype)
    cases = [([a, b], 1), ([a, b], -2), ([a.transpose(0, 2).contiguous().transpose(0, 2), strided(b)], 1),
             ([a[:, 1:], b[:, ::2], a], 1), ([a, a, a], 0), ([a, a], -1), ([a, none, b, none], 1),
             ([a[:, :0], b], 1),  # an empty piece along dim
             ([none, none], 0),  # every input skipped: an empty [0]
             ([a[0, 0]], 0), ([a[0, 0], b[1, 2]], 0)]  # 1-d pieces (Qwen-Image's rotary rows)
    for tensors, dim in cases:
        code, out = _cat(rt, hs, tensors, dim)
        assert code == 0, last_error(rt)
        assert_same(got_(hs, out), torch.cat(tensors, dim))


@pytest.mark.parametrize("dtype", [torch.complex64, torch.float32])
def test_cat_memory_format_matches_torch(rt, hs, dtype):
    """Channels-last (2-d and 3-d) when every input suggests it, else contiguous: the strides the
    compiled model indexes the result with."""
    x, y = sample(2, 3, 4, 5, seed=3, dtype=dtype), sample(2, 2, 4, 5, seed=4, dtype=dtype)
    cl = lambda t: t.contiguous(memory_format=torch.channels_last)  # noqa: E731
    v, w = sample(1, 3, 2, 4, 5, seed=5, dtype=dtype), sample(1, 2, 2, 4, 5, seed=6, dtype=dtype)
    cl3 = lambda t: t.contiguous(memory_format=torch.channels_last_3d)  # noqa: E731
    n1 = cl(sample(1, 3, 1, 1, seed=7, dtype=dtype))  # size-1 dims: c10's rules for ambiguous strides
    for tensors, dim in (([cl(x), cl(y)], 1), ([cl(x), y], 1), ([x, cl(y)], 1), ([cl(x), cl(x)], 0),
                         ([cl(x), cl(x)], 3), ([cl(x), torch.empty(0, dtype=dtype)], 1),
                         ([cl3(v), cl3(w)], 1), ([cl3(v), w], 1), ([n1, n1], 1)):
        code, out = _cat(rt, hs, tensors, dim)
        assert code == 0, last_error(rt)
        assert_same(got_(hs, out), torch.cat(tensors, dim))


def test_cat_refuses_what_torch_refuses(rt, hs):
    a, b, c = torch.randn(2, 3), torch.randn(3, 3), torch.randn(3)
    for tensors, dim in (([a, b], 1), ([a, c], 0), ([torch.tensor(1.0), torch.tensor(2.0)], 0)):
        code, _ = _cat(rt, hs, tensors, dim)
        assert code == INVALID
        assert torch_error(torch.cat, tensors, dim) in last_error(rt)
    code, _ = _cat(rt, hs, [], 0)
    assert code == INVALID and "expected a non-empty list of Tensors" in last_error(rt)
    # Mixed dtypes: torch promotes (complex64 here); the runtime refuses, as unsupported.
    code, _ = _cat(rt, hs, [a.to(torch.complex64), b], 0)
    assert code == UNSUPPORTED and "different dtypes" in last_error(rt)


# ---- proxy targets: aten::split_with_sizes, aten::split.Tensor ----

def _check_pieces(got, expected, base):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_same(g, e)
        if e.numel():  # views of self: the same memory, at torch's offsets
            assert g.address == e.data_ptr() and g.offset == e.storage_offset() - base.storage_offset()


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128, torch.float32])
def test_split_with_sizes_matches_torch(driver, hs, dtype):
    x = sample(3, 8, 5, seed=8, dtype=dtype)
    for t in (x, x.transpose(0, 2), strided(x)[:, 1:]):
        for sizes, dim in (([4, 2, t.shape[1] - 6], 1), ([t.shape[0]], 0), ([0, t.shape[-1]], -1),
                           ([1, 0, t.shape[0] - 1], -3)):
            got = driver.call(hs, "aten::split_with_sizes", [("self", t), ("split_sizes", sizes), ("dim", dim)],
                              len(sizes), output_list=True)
            _check_pieces(got, torch.split_with_sizes(t, sizes, dim), t)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.float32])
def test_split_matches_torch(driver, hs, dtype):
    x = sample(3, 8, 5, seed=9, dtype=dtype)
    for t in (x, strided(x)):
        for size, dim in ((3, 1), (8, 1), (10, 1), (1, 0), (2, -1)):
            expected = torch.ops.aten.split.Tensor(t, size, dim)
            got = driver.call(hs, "aten::split.Tensor", [("self", t), ("split_size", size), ("dim", dim)],
                              len(expected), output_list=True)
            _check_pieces(got, expected, t)
    empty = sample(3, 0, dtype=dtype)
    got = driver.call(hs, "aten::split.Tensor", [("self", empty), ("split_size", 0), ("dim", 1)], 1, output_list=True)
    _check_pieces(got, torch.ops.aten.split.Tensor(empty, 0, 1), empty)


def test_splits_refuse_what_torch_refuses(driver, hs):
    x, scalar = sample(3, 8, 5, seed=10), torch.tensor(1j)
    for sizes in ([4, 2], [10, -2]):
        message = refused(driver, hs, "aten::split_with_sizes", [("self", x), ("split_sizes", sizes), ("dim", 1)])
        assert torch_error(torch.split_with_sizes, x, sizes, 1) in message, message
    message = refused(driver, hs, "aten::split_with_sizes", [("self", scalar), ("split_sizes", [1]), ("dim", 0)])
    assert torch_error(torch.split_with_sizes, scalar, [1], 0) in message, message
    for t, size in ((x, -1), (x, 0), (scalar, 1)):
        message = refused(driver, hs, "aten::split.Tensor", [("self", t), ("split_size", size), ("dim", 0)])
        assert torch_error(torch.ops.aten.split.Tensor, t, size, 0) in message, message


# ---- proxy target: prims::device_put (CUDA models move a complex table built on the CPU) ----

@pytest.mark.parametrize("dtype", [torch.complex64, torch.float32, torch.bfloat16, torch.int64, torch.bool])
def test_device_put_copies_with_torchs_layout(driver, hs, dtype):
    """A copy on the named device (here the CPU; the CUDA route is the ring's diffusers_qwenimage on
    the GPU) laid out as torch's _to_copy (what .to(device) runs) lays it: a dense tensor keeps its
    strides, a gapped one takes its suggested memory format (channels-last included); never an alias."""
    x = sample(4, 6, 5, seed=11, dtype=dtype)
    x4 = sample(2, 3, 4, 6, seed=13, dtype=dtype).contiguous(memory_format=torch.channels_last)
    for t in (x, x.permute(2, 0, 1), x[:, 1:, ::2], x[1:], x4, x4[:, :, :, ::2], x4[:, :2]):
        for device in (torch.device("cpu"), torch.device("cpu", 0)):
            (got,) = driver.call(hs, "prims::device_put", [("a", t), ("device", device)])
            assert_same(got, torch.ops.aten._to_copy.default(t))
            assert got.numel() == 0 or got.address != t.data_ptr()


def test_device_put_refuses_what_it_cannot_serve(driver, hs):
    x = sample(2, 3, seed=12)
    message = refused(driver, hs, "prims::device_put", [("a", x), ("device", torch.device("meta"))])
    assert "device 'meta' is not supported" in message, message
    # A CPU-only runtime has no CUDA device to put it on: the allocation's own refusal, named.
    message = refused(driver, hs, "prims::device_put", [("a", x), ("device", torch.device("cuda", 0))])
    assert "empty_strided" in message and "CUDA" in message, message
    node = {"target": "prims::device_put", "outputs": [{"as_tensor": {"name": "out0"}}],
            "inputs": [{"name": "a", "arg": {"as_tensor": {"name": "a"}}, "kind": 1},
                       {"name": "device", "arg": {"as_device": {"type": "cuda", "index": 5000}}, "kind": 1}]}
    with pytest.raises(InputError) as caught:  # refused when the model opens, before any call
        driver.call_raw(hs, node, [x], [])
    assert "device index 5000 is out of range" in str(caught.value), caught.value
