"""aten::conv_tbc (fairseq's ConvTBC, a time-major 1-d convolution with no C shim: inductor hands it to
the proxy executor), called through the runtime's own proxy executor by a driver model
(tests/proxy_driver.py) and compared with torch.conv_tbc: values, dtype, shape and strides (torch returns
a new contiguous [T + 2 pad - K + 1, B, O]); positive, zero, negative and defaulted pads, strided and
offset inputs, the half dtypes; bad shapes refused in torch's words.

Tolerance: the runtime convolves with its own kernel, torch with one addmm per kernel offset, so the
two sums of K * C products differ in rounding order only: bounded by 2 K C u (|x| * |w| summed) + u |b|,
with u the dtype's unit roundoff (float32 2^-24; bf16/f16 results are rounded once from float32 on both
sides, while torch's CPU kernel rounds its running sum to the half dtype after the bias and after each of
the K addmms: K + 1 roundings of partial sums bounded by |x| * |w| summed plus |b|)."""

from __future__ import annotations

import pytest

from tests.cpu_shim_tensors import gen

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow
U = {torch.float32: 2.0**-24, torch.float64: 2.0**-53, torch.bfloat16: 2.0**-8, torch.float16: 2.0**-11}


def conv_tbc(driver, hs, x, w, b, pad=None):
    arguments = [("self", x), ("weight", w), ("bias", b)] + ([] if pad is None else [("pad", pad)])
    return driver.call(hs, "aten::conv_tbc", arguments, defaulted_ints=(0,) if pad is None else ())[0]


def bound(x, w, b, pad, dtype):
    """2 K C u (|x| conv |w|) + u |b| (+ K + 1 roundings of a half result), computed in float64."""
    k, c = w.shape[0], w.shape[1]
    magnitude = torch.conv_tbc(x.double().abs().contiguous(), w.double().abs().contiguous(), b.double().abs(), pad)
    u = 2.0**-24 if dtype in (torch.bfloat16, torch.float16) else U[dtype]
    limit = 2 * k * c * u * magnitude + u * b.double().abs()
    if dtype in (torch.bfloat16, torch.float16):
        limit = limit + (k + 1) * U[dtype] * (magnitude + b.double().abs())
    return limit


def check(got, x, w, b, pad):
    # torch's kernel views its input flat, which some strided inputs refuse: it gets dense copies.
    expected = torch.conv_tbc(x.contiguous(), w.contiguous(), b.contiguous(), pad)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, got.shape, expected.shape)
    assert got.stride() == expected.stride(), (got.stride(), expected.stride())
    diff = (got.double() - expected.double()).abs()
    assert bool((diff <= bound(x, w, b, pad, got.dtype)).all()), f"max diff {diff.max()}"


@pytest.mark.parametrize("pad", [0, 1, 2, -1])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_conv_tbc_matches_torch(driver, hs, dtype, pad):
    x = torch.randn(11, 3, 5, generator=gen(1)).to(dtype)
    w = torch.randn(3, 5, 4, generator=gen(2)).to(dtype)
    b = torch.randn(4, generator=gen(3)).to(dtype)
    check(conv_tbc(driver, hs, x, w, b, pad), x, w, b, pad)


def test_pad_left_at_its_default_is_zero(driver, hs):
    x, w, b = torch.randn(9, 2, 6, generator=gen(4)), torch.randn(4, 6, 3, generator=gen(5)), torch.randn(3)
    check(conv_tbc(driver, hs, x, w, b), x, w, b, 0)


def test_strided_and_offset_inputs(driver, hs):
    # fairseq transposes [B, T, C] activations to [T, B, C] without a copy: a permuted view, here also
    # offset into its storage; the weight a transposed view too.
    base = torch.randn(2 * 3 * 13 * 7 + 5, generator=gen(6))
    x = base[5:].view(3, 13, 14)[:, :, ::2].transpose(0, 1)  # [13, 3, 7], strides (14, 182, 2)
    w = torch.randn(5, 4, 7, generator=gen(7)).transpose(1, 2)  # [5, 7, 4]
    b = torch.randn(8, generator=gen(8))[::2]
    assert not x.is_contiguous() and x.storage_offset() == 5 and not w.is_contiguous()
    check(conv_tbc(driver, hs, x, w, b, 2), x, w, b, 2)


def test_output_of_length_zero(driver, hs):
    x, w, b = torch.randn(2, 2, 3), torch.randn(3, 3, 4), torch.randn(4)
    check(conv_tbc(driver, hs, x, w, b, 0), x, w, b, 0)


@pytest.mark.parametrize("x_shape,w_shape,b_shape,pad", [
    ((7, 2), (3, 3, 4), (4,), 0),        # input not 3-d
    ((7, 2, 3), (3, 3), (4,), 0),        # weight not 3-d
    ((7, 2, 3), (3, 3, 4), (4, 1), 0),   # bias not 1-d
    ((7, 2, 5), (3, 3, 4), (4,), 0),     # channels differ
    ((7, 2, 3), (3, 3, 4), (5,), 0),     # bias size differs
    ((1, 2, 3), (3, 3, 4), (4,), 0),     # negative output length
])
def test_refuses_what_torch_refuses_in_its_words(driver, hs, x_shape, w_shape, b_shape, pad):
    from tests.proxy_driver import ProxyCallError

    x, w, b = torch.randn(*x_shape), torch.randn(*w_shape), torch.randn(*b_shape)
    with pytest.raises(Exception) as torch_error:
        torch.conv_tbc(x, w, b, pad)
    with pytest.raises(ProxyCallError) as caught:
        conv_tbc(driver, hs, x, w, b, pad)
    assert str(torch_error.value).splitlines()[0].strip() in str(caught.value), (str(torch_error.value), str(caught.value))
