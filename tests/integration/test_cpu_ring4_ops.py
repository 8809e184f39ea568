"""The CPU ops round 4 of the ring imports (tests/arch_ring.py op_shapes_5; src/ops/cpu/):
nonzero_static, gcd, masked_scatter, adaptive_max_pool3d, _trilinear (nn.Bilinear), int8 weight-only
linear (_weight_int8pack_mm), int8 matmul (_int_mm_out) and segment_reduce, called through ctypes
with torch's exact C-shim signatures on real data (strided inputs where models pass them) and
compared with torch eager: values, dtypes, shapes and, where the generated code relies on them,
strides; each with a negative control that must be refused."""

from __future__ import annotations

from ctypes import byref, c_char_p, c_double, c_int32, c_int64, c_void_p

import pytest

from tests.aoti_helpers import INVALID, UNSUPPORTED, shim
from tests.cpu_shim_tensors import assert_same, gen, got_, ints, last_error, strided

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bool, torch.bfloat16])
def test_nonzero_static_matches_torch(rt, hs, dtype):
    x = torch.randn(3, 4, 5, generator=gen(1))
    x[0, 1, 2] = float("nan")  # NaN counts as non-zero
    x = (x > 0.3).to(dtype) if dtype != torch.float32 else x.masked_fill(x.abs() < 0.5, 0.0)
    count = int(torch.count_nonzero(torch.nan_to_num(x.float(), nan=1.0)))
    for view in (x, x.transpose(0, 2)):
        for size, fill in ((0, -1), (count // 2, -1), (count, 7), (count + 5, -3)):
            out = c_void_p()
            assert shim(rt, "aoti_torch_cpu_nonzero_static")(hs.of(view), c_int64(size), c_int64(fill), byref(out)) == 0
            assert_same(got_(hs, out), torch.nonzero_static(view, size=size, fill_value=fill))
    assert shim(rt, "aoti_torch_cpu_nonzero_static")(hs.of(x), c_int64(-1), c_int64(0), byref(c_void_p())) == INVALID


@pytest.mark.parametrize(("da", "db"), [(torch.int64, torch.int64), (torch.int32, torch.int32),
                                        (torch.int32, torch.int64), (torch.uint8, torch.int8), (torch.int16, torch.int16)])
def test_gcd_matches_torch(rt, hs, da, db):
    a = torch.randint(-60, 60, (4, 6), generator=gen(2)).to(da) if da != torch.uint8 else \
        torch.randint(0, 120, (4, 6), generator=gen(2)).to(da)
    b = torch.randint(-60, 60, (6,), generator=gen(3)).to(db)
    a[0, :3] = 0
    b[1] = 0  # gcd(0, 0) = 0, gcd(x, 0) = |x|
    for x, y in ((a, b), (a.t().contiguous().t(), b), (strided(a), b[None])):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_gcd")(hs.of(x), hs.of(y), byref(out)) == 0, last_error(rt)
        assert_same(got_(hs, out), torch.gcd(x, y))
    f = torch.ones(3)
    assert shim(rt, "aoti_torch_cpu_gcd")(hs.of(f), hs.of(f), byref(c_void_p())) == UNSUPPORTED


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.int64, torch.bool])
def test_masked_scatter_matches_torch(rt, hs, dtype):
    x = torch.randn(3, 4, 5, generator=gen(4))
    source = (torch.randn(70, generator=gen(5)) * 10).to(dtype)
    x = (x * 10).to(dtype)
    for self_, mask in ((x, x.float() > 0), (x.transpose(1, 2), (x.float() > 0).transpose(1, 2)),
                        (x, torch.rand(4, 1, generator=gen(6)) > 0.4), (strided(x), strided(x.float() < 0))):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_masked_scatter")(hs.of(self_), hs.of(mask), hs.of(source), byref(out)) == 0
        assert_same(got_(hs, out), self_.masked_scatter(mask, source))
    few = source[:3]
    assert shim(rt, "aoti_torch_cpu_masked_scatter")(hs.of(x), hs.of(x.float() > -9), hs.of(few),
                                                     byref(c_void_p())) == INVALID


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_adaptive_max_pool3d_matches_torch(rt, hs, dtype):
    x = torch.randn(2, 3, 5, 7, 6, generator=gen(7)).to(dtype)
    x[0, 1, 2, 3, 4] = float("nan")  # NaN wins its window
    x[1, 0, :, :2, :2] = 1.5  # ties: the first maximum's index
    for view, size in ((x, (2, 3, 4)), (x[0], (5, 7, 6)), (x.transpose(3, 4), (3, 1, 5)), (strided(x), (1, 1, 1))):
        values, indices = c_void_p(), c_void_p()
        array, n = ints(size)
        assert shim(rt, "aoti_torch_cpu_adaptive_max_pool3d")(hs.of(view), array, n, byref(values),
                                                              byref(indices)) == 0, last_error(rt)
        want_v, want_i = torch.ops.aten.adaptive_max_pool3d(view, list(size))
        assert_same(got_(hs, values), want_v)
        assert_same(got_(hs, indices), want_i)
    array, n = ints((2, 2))
    assert shim(rt, "aoti_torch_cpu_adaptive_max_pool3d")(hs.of(x), array, n, byref(c_void_p()),
                                                          byref(c_void_p())) == INVALID


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_adaptive_max_pool2d_matches_torch(rt, hs, dtype):
    # spatial pyramid pooling and RoI heads: windows of unequal sizes (17 -> 3, 13 -> 5), a 3-d self,
    # channels-last (torch returns channels-last values and indices for it), transposed and strided
    # views, output sizes of 1 and of the input's size.
    x = (torch.randn(2, 3, 17, 13, generator=gen(20)) * 10).to(dtype)
    x[0, 1, 2, 3] = float("nan")  # NaN wins its window
    x[1, 0, :4, :4] = 7  # ties: the first maximum's index
    for view, size in ((x, (3, 5)), (x[0], (17, 13)), (x.to(memory_format=torch.channels_last), (3, 5)),
                       (x.transpose(2, 3), (4, 6)), (strided(x), (1, 1)), (x[:, :, ::2], (2, 7))):
        values, indices = c_void_p(), c_void_p()
        array, n = ints(size)
        assert shim(rt, "aoti_torch_cpu_adaptive_max_pool2d")(hs.of(view), array, n, byref(values),
                                                              byref(indices)) == 0, last_error(rt)
        want_v, want_i = torch.ops.aten.adaptive_max_pool2d(view, list(size))
        assert_same(got_(hs, values), want_v)
        assert_same(got_(hs, indices), want_i)


@pytest.mark.parametrize("shape,size", [((2, 3), (2, 2)), ((2, 0, 3), (2, 2)), ((2, 3, 3), (2,)),
                                        ((2, 3, 3), (-1, 2))])
def test_adaptive_max_pool2d_refuses_in_torchs_words(rt, hs, shape, size):
    x = torch.randn(*shape)
    with pytest.raises(Exception) as caught:
        torch.ops.aten.adaptive_max_pool2d(x, list(size))
    array, n = ints(size)
    assert shim(rt, "aoti_torch_cpu_adaptive_max_pool2d")(hs.of(x), array, n, byref(c_void_p()),
                                                          byref(c_void_p())) == INVALID
    assert str(caught.value).splitlines()[0] in last_error(rt)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_trilinear_matches_torch(rt, hs, dtype):
    a, w, b = (torch.randn(*s, generator=gen(8 + k)).to(dtype) for k, s in enumerate(((4, 8), (3, 8, 6), (4, 6))))
    cases = [  # nn.Bilinear's call, strided operands, another split of expand/sum dims
        ((a, w, b), ([1, 3], [0], [1, 2], [2, 3]), 1),
        ((strided(a), w.transpose(1, 2).contiguous().transpose(1, 2), strided(b)), ([1, 3], [0], [1, 2], [2, 3]), 0),
        ((a, a, a), ([], [], [], [1]), 0),
        ((a[:, :6], torch.randn(6, 5, generator=gen(12)).to(dtype), torch.randn(4, 5, generator=gen(13)).to(dtype)),
         ([2], [0], [1], [1]), 2),
    ]
    for (i1, i2, i3), (e1, e2, e3, sd), unroll in cases:
        out = c_void_p()
        arrays = [ints(e) for e in (e1, e2, e3, sd)]
        code = shim(rt, "aoti_torch_cpu__trilinear")(hs.of(i1), hs.of(i2), hs.of(i3), *arrays[0], *arrays[1],
                                                     *arrays[2], *arrays[3], c_int64(unroll), byref(out))
        assert code == 0, last_error(rt)
        want = torch._trilinear(i1, i2, i3, e1, e2, e3, sd, unroll)
        assert_same(got_(hs, out), want, atol=0.1 if dtype == torch.bfloat16 else 1e-5)
    arrays = [ints(e) for e in ([1], [0], [1, 2], [2, 3])]  # expand1 gives a rank the others do not
    assert shim(rt, "aoti_torch_cpu__trilinear")(hs.of(a), hs.of(w), hs.of(b), *arrays[0], *arrays[1], *arrays[2],
                                                 *arrays[3], c_int64(0), byref(c_void_p())) == INVALID


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
def test_weight_int8pack_mm_matches_torch(rt, hs, dtype):
    x = torch.randn(5, 32, generator=gen(14)).to(dtype)
    w = torch.randint(-128, 128, (24, 32), generator=gen(15), dtype=torch.int8)
    scales = (torch.rand(24, generator=gen(16)) * 0.02 + 0.001).to(dtype)
    for a in (x, torch.cat([x, x], dim=1)[:, :32]):  # rows 64 apart (torch wants a unit stride along K)
        out = c_void_p()
        code = shim(rt, "aoti_torch_cpu__weight_int8pack_mm")(hs.of(a), hs.of(w), hs.of(scales), byref(out))
        assert code == 0, last_error(rt)
        want = torch.ops.aten._weight_int8pack_mm(a, w, scales)
        atol = 1e-4 if dtype == torch.float32 else 0.02 * float(want.abs().max())
        assert_same(got_(hs, out), want, atol=atol)
    assert shim(rt, "aoti_torch_cpu__weight_int8pack_mm")(hs.of(x), hs.of(w[:, :16].contiguous()), hs.of(scales),
                                                          byref(c_void_p())) == INVALID


def test_int_mm_out_matches_torch(rt, hs):
    a = torch.randint(-128, 128, (17, 64), generator=gen(17), dtype=torch.int8)
    b = torch.randint(-128, 128, (64, 24), generator=gen(18), dtype=torch.int8)
    a[0] = -128
    b[:, 0] = -128  # the largest products: 64 * 2^14 within int32
    # uint8 activations as torch's CPU kernel takes them (torchao's u8s8 path on a CPU with AVX512-VNNI
    # and no AMX shifts int8 activations by 128); 255 * -128 * 64 is the largest product sum
    u = torch.randint(0, 256, (17, 64), generator=gen(20), dtype=torch.uint8)
    u[0] = 255
    for x, y in ((a, b), (strided(a), b.t().contiguous().t()), (u, b), (strided(u), b.t().contiguous().t())):
        out = torch.full((17, 24), 5, dtype=torch.int32)
        assert shim(rt, "aoti_torch_cpu__int_mm_out")(hs.of(out), hs.of(x), hs.of(y)) == 0, last_error(rt)
        assert torch.equal(out, torch._int_mm(x, y))
    for bad_out in (torch.zeros(17, 24, dtype=torch.int64), torch.zeros(16, 24, dtype=torch.int32)):
        before = bad_out.clone()
        assert shim(rt, "aoti_torch_cpu__int_mm_out")(hs.of(bad_out), hs.of(a), hs.of(b)) == INVALID
        assert torch.equal(bad_out, before)
    # torch refuses a uint8 mat2 and an int16 self: so does the runtime, out untouched
    for x, y in ((u, torch.randint(0, 256, (64, 24), generator=gen(21), dtype=torch.uint8)), (a.to(torch.int16), b)):
        out = torch.full((17, 24), 5, dtype=torch.int32)
        assert shim(rt, "aoti_torch_cpu__int_mm_out")(hs.of(out), hs.of(x), hs.of(y)) == INVALID
        assert torch.equal(out, torch.full((17, 24), 5, dtype=torch.int32))


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
@pytest.mark.parametrize("initial", [None, 2.0])
def test_segment_reduce_matches_torch(rt, hs, reduce, initial):
    data = torch.randn(12, 3, generator=gen(19))
    data[4, 1] = float("nan")
    lengths = torch.tensor([3, 0, 5, 4])
    offsets = torch.tensor([0, 3, 3, 8, 12])
    f = shim(rt, "aoti_torch_cpu_segment_reduce")
    init = byref(c_double(initial)) if initial is not None else None
    cases = [(data, lengths, None, 0), (strided(data), None, offsets, 0), (data.double(), lengths.int(), None, 0),
             (data.t(), torch.tensor([[2, 10], [12, 0], [6, 6]]), None, 1)]
    for x, lens, offs, axis in cases:
        out = c_void_p()
        code = f(hs.of(x), c_char_p(reduce.encode()), byref(hs.of(lens)) if lens is not None else None, None,
                 byref(hs.of(offs)) if offs is not None else None, c_int64(axis), c_int32(0), init, byref(out))
        assert code == 0, last_error(rt)
        want = torch.segment_reduce(x, reduce, lengths=lens, offsets=offs, axis=axis, initial=initial)
        assert_same(got_(hs, out), want.contiguous(), atol=1e-5, strides=False)
    bad = torch.tensor([3, 0, 5, 3])  # sums to 11, not 12
    assert f(hs.of(data), c_char_p(reduce.encode()), byref(hs.of(bad)), None, None, c_int64(0), c_int32(0), None,
             byref(c_void_p())) == INVALID
    assert f(hs.of(data), c_char_p(b"median"), byref(hs.of(lengths)), None, None, c_int64(0), c_int32(0), None,
             byref(c_void_p())) == INVALID


@pytest.mark.parametrize("spatial", [2, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_adaptive_avg_pool_matches_torch(rt, hs, spatial, dtype):
    x = torch.randn(2, 3, *(13, 17, 11)[:spatial], generator=gen(20)).to(dtype)
    fn = torch.ops.aten._adaptive_avg_pool2d if spatial == 2 else torch.ops.aten._adaptive_avg_pool3d
    name = f"aoti_torch_cpu__adaptive_avg_pool{spatial}d"
    channels_last = x.to(memory_format=torch.channels_last if spatial == 2 else torch.channels_last_3d)
    for view, size in ((x, (3, 4, 2)), (x[0], (5, 17, 1)), (channels_last, (2, 3, 4)), (strided(x), (13, 1, 11)),
                       (x[:, :1].expand(2, 3, *x.shape[2:]), (4, 4, 4))):
        out = c_void_p()
        array, n = ints(size[:spatial])
        assert shim(rt, name)(hs.of(view), array, n, byref(out)) == 0, last_error(rt)
        assert_same(got_(hs, out), fn(view, list(size[:spatial])), atol=0.02 if dtype == torch.bfloat16 else 1e-6)
    array, n = ints((2,) * (spatial + 1))
    assert shim(rt, name)(hs.of(x), array, n, byref(c_void_p())) == INVALID


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("density", [False, True])
def test_histogramdd_from_bin_cts_matches_torch(rt, hs, dtype, density):
    x = torch.randn(40, 3, generator=gen(21)).to(dtype)
    x[3, 1] = float("nan")  # a sample with NaN is skipped
    x[4] = torch.tensor([2.0, -1.0, 0.0], dtype=dtype)  # on the last edge of dim 0: the last bin
    w = torch.rand(40, generator=gen(22)).to(dtype)
    f = shim(rt, "aoti_torch_cpu__histogramdd_from_bin_cts")
    for sample, bins, rng, weight in ((x, [3, 4, 2], [-2.0, 2.0, -1.0, 1.5, -3.0, 3.0], None),
                                      (strided(x), [5, 1, 3], [-1.0, 1.0, -2.0, 2.0, -1.0, 0.5], w),
                                      (x[:, :2].reshape(4, 10, 2), [2, 6], [-2.0, 2.0, -2.0, 2.0], w.view(4, 10))):
        out = c_void_p()
        b, nb = ints(bins)
        r = (c_double * len(rng))(*rng)
        rp = ctypes_pointer(r)
        code = f(hs.of(sample), b, nb, byref(rp), c_int64(len(rng)), byref(hs.of(weight)) if weight is not None else None,
                 c_int32(density), byref(out))
        assert code == 0, last_error(rt)
        want = torch.histogramdd(sample, bins=bins, range=rng, weight=weight, density=density).hist
        assert_same(got_(hs, out), want, atol=1e-6)
    b, nb = ints([3, 4])  # two bin counts for three coordinates
    assert f(hs.of(x), b, nb, None, c_int64(0), None, c_int32(0), byref(c_void_p())) == INVALID


def ctypes_pointer(array):
    from ctypes import POINTER, cast

    return cast(array, POINTER(c_double))


def assert_close_complex(got: torch.Tensor, want: torch.Tensor, rtol: float):
    assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
    g, w = torch.view_as_real(got.resolve_conj()), torch.view_as_real(want.resolve_conj())
    assert torch.allclose(g, w, rtol=rtol, atol=rtol), f"max diff {(g - w).abs().max()}"


def _complex(shape, seed, dtype=torch.complex64):
    return torch.complex(torch.randn(*shape, generator=gen(seed)), torch.randn(*shape, generator=gen(seed + 1))).to(dtype)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_add_and_pow_match_torch(rt, hs, dtype):
    a, b = _complex((3, 5), 23, dtype), _complex((5,), 25, dtype)
    real = torch.randn(3, 1, generator=gen(27))
    seven = torch.tensor(7)  # a Python int beside a complex tensor: a 0-d int64
    rtol = 1e-5 if dtype == torch.complex64 else 1e-12
    for x, y, alpha in ((a, b, 1.0), (a.t().contiguous().t(), real, 2.5), (a, seven, 1.0), (real, a, -1.0)):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_add_Tensor")(hs.of(x), hs.of(y), c_double(alpha), byref(out)) == 0, last_error(rt)
        assert_close_complex(got_(hs, out), torch.add(x, y, alpha=alpha), rtol)
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_pow_Tensor_Tensor")(hs.of(x), hs.of(y * 0.3 if y is not seven else y),
                                                            byref(out)) == 0, last_error(rt)
        assert_close_complex(got_(hs, out), torch.pow(x, y * 0.3 if y is not seven else y), rtol * 10)
    for exponent in (2.0, 0.5, -1.0, 3.0):
        out = c_void_p()
        assert shim(rt, "aoti_torch_cpu_pow_Tensor_Scalar")(hs.of(strided(a)), c_double(exponent), byref(out)) == 0
        assert_close_complex(got_(hs, out), torch.pow(strided(a), exponent).contiguous(), rtol * 10)
    for base in (2.0, 10.0, 0.5, 1.0, -3.0):  # a real scalar base, a complex exponent (torch.pow(2.0, z))
        for e in (a * 0.5, strided(a) * 0.5, a.t()):  # torch's result is contiguous for each
            out = c_void_p()
            assert shim(rt, "aoti_torch_cpu_pow_Scalar")(c_double(base), hs.of(e), byref(out)) == 0, last_error(rt)
            assert_close_complex(got_(hs, out), torch.pow(base, e), rtol * 10)
    f = torch.ones(3)
    assert shim(rt, "aoti_torch_cpu_add_Tensor")(hs.of(f), hs.of(f), c_double(1.0), byref(c_void_p())) == UNSUPPORTED
    assert shim(rt, "aoti_torch_cpu_pow_Scalar")(c_double(2.0), hs.of(f), byref(c_void_p())) == UNSUPPORTED
    assert shim(rt, "aoti_torch_cpu_pow_Tensor_Scalar")(hs.of(f), c_double(2.0), byref(c_void_p())) == UNSUPPORTED


@pytest.mark.parametrize(("src", "dst"), [(torch.complex64, torch.float32), (torch.float32, torch.complex64),
                                          (torch.float32, torch.int32), (torch.bfloat16, torch.int16),
                                          (torch.float32, torch.bfloat16), (torch.int16, torch.float64)])
def test_view_dtype_matches_torch(rt, hs, src, dst):
    from tests.cpu_shim_tensors import CODES

    base = torch.randn(4, 6, 8, generator=gen(29))
    x = (torch.view_as_complex(base.view(4, 6, 4, 2)) if src == torch.complex64 else base.to(src))
    for view in (x, x[1:, ::2], x.transpose(0, 1)):
        out = c_void_p()
        code = shim(rt, "aoti_torch_cpu_view_dtype")(hs.of(view), c_int32(CODES[dst]), byref(out))
        try:
            want = view.view(dst)
        except RuntimeError:
            assert code == INVALID  # torch refuses it too (a non-unit last stride across sizes)
            continue
        assert code == 0, last_error(rt)
        got = got_(hs, out)
        assert got.shape == want.shape and got.stride() == want.stride() and got.dtype == want.dtype
        assert torch.equal(got.contiguous().flatten().view(torch.uint8), want.contiguous().flatten().view(torch.uint8))


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize(("n", "k", "group"), [(16, 64, 32), (48, 64, 64), (96, 128, 32), (208, 64, 32)])
def test_weight_int4pack_mm_cpu_tensor_matches_torch(rt, hs, dtype, n, k, group):
    """Row counts that exercise every packing block torch uses (64-row blocks and the smaller rest)."""
    q = torch.randint(0, 16, (n, k), generator=gen(31), dtype=torch.int32)
    packed = torch._convert_weight_to_int4pack_for_cpu(q, 2)
    scales_zeros = (torch.rand(k // group, n, 2, generator=gen(32)) * 0.1).to(dtype)
    x = torch.randn(5, k, generator=gen(33)).to(dtype)
    g = torch.tensor(group)
    for a in (x, x[1:4]):  # torch takes a contiguous A only
        out = c_void_p()
        code = shim(rt, "aoti_torch_cpu__weight_int4pack_mm_cpu_tensor")(hs.of(a), hs.of(packed), hs.of(g),
                                                                         hs.of(scales_zeros), byref(out))
        assert code == 0, last_error(rt)
        want = torch._weight_int4pack_mm_for_cpu(a, packed, group, scales_zeros)
        atol = 1e-4 if dtype == torch.float32 else 0.02 * float(want.abs().max())
        assert_same(got_(hs, out), want, atol=atol)
    bad = torch.tensor(48)  # not a group size torch packs
    assert shim(rt, "aoti_torch_cpu__weight_int4pack_mm_cpu_tensor")(hs.of(x), hs.of(packed), hs.of(bad),
                                                                     hs.of(scales_zeros), byref(c_void_p())) == INVALID
