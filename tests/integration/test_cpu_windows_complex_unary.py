"""Proxy targets found by scripts/op_probe.py that the runtime did not serve (torch 2.13's AOTInductor,
CPU): the window factories aten::hamming_window (every overload), hann_window (its proxy forms),
blackman_window, bartlett_window, kaiser_window (spectrogram / STFT front ends build them inside the
model), aten::fft_fftfreq and fft_rfftfreq, and the unary math of a complex tensor inductor hands to
the proxy executor (aten::log, sqrt, sin, cos, tanh, sigmoid, reciprocal, rsqrt, neg, expm1, log1p).
Each is called through the runtime's own proxy executor by a driver model (tests/proxy_driver.py) and
compared with torch eager; refusals in torch's words.

Tolerances: the runtime computes in double and rounds once; torch computes a float32 window in float
(a few ulp off), a float16 / bfloat16 one step by step in that dtype (several of its ulp off), a
complex64 op in complex<float>. float64 / complex128: 1e-12 relative."""

from __future__ import annotations

import pytest

from tests.cpu_shim_tensors import gen, strided, torch_error
from tests.proxy_driver import refused

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow

WINDOW_TOL = {torch.float64: (1e-12, 1e-12), torch.float32: (2e-6, 1e-5), torch.float16: (4e-3, 8e-3),
              torch.bfloat16: (3e-2, 3e-2)}
def check(got, expected, atol, rtol):
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got.dtype, got.shape, expected.shape)
    assert got.stride() == expected.stride()
    torch.testing.assert_close(got, expected, atol=atol, rtol=rtol, equal_nan=True)


# (target, torch function, extra arguments in schema order after window_length [and periodic])
WINDOWS = [
    ("aten::hamming_window", torch.hamming_window, []),
    ("aten::hamming_window.periodic_alpha_beta", torch.hamming_window, [("alpha", 0.6), ("beta", 0.3)]),
    ("aten::hamming_window.periodic_alpha", torch.hamming_window, [("alpha", 0.5)]),
    ("aten::hann_window.periodic", torch.hann_window, []),
    ("aten::blackman_window", torch.blackman_window, []),
    ("aten::bartlett_window", torch.bartlett_window, []),
    ("aten::kaiser_window.beta", torch.kaiser_window, [("beta", 8.0)]),
    ("aten::kaiser_window.periodic", torch.kaiser_window, []),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("target,fn,extra", WINDOWS, ids=[w[0] for w in WINDOWS])
def test_window_matches_torch(driver, hs, target, fn, extra, dtype):
    for length in (0, 1, 2, 5, 8, 16, 25):
        for periodic in (True, False):
            if target == "aten::hamming_window" and not periodic:
                continue  # the default overload has no periodic argument (True)
            arguments = [("window_length", length)]
            if target != "aten::hamming_window":
                arguments.append(("periodic", periodic))
            arguments += [*extra, ("dtype", dtype), ("pin_memory", False)]
            (got,) = driver.call(hs, target, arguments)
            expected = fn(length, periodic, **dict(extra), dtype=dtype)
            check(got, expected, *WINDOW_TOL[dtype])


def test_window_defaults_and_refusals(driver, hs):
    (got,) = driver.call(hs, "aten::blackman_window.periodic", [("window_length", 9), ("periodic", False)])
    check(got, torch.blackman_window(9, False), *WINDOW_TOL[torch.float32])  # dtype absent: float32
    (got,) = driver.call(hs, "aten::kaiser_window", [("window_length", 12)])
    check(got, torch.kaiser_window(12), *WINDOW_TOL[torch.float32])  # periodic, beta 12
    for target, fn in (("aten::hamming_window", torch.hamming_window), ("aten::kaiser_window", torch.kaiser_window),
                       ("aten::bartlett_window", torch.bartlett_window)):
        assert torch_error(fn, -3) in refused(driver, hs, target, [("window_length", -3)])
    message = refused(driver, hs, "aten::hamming_window", [("window_length", 4), ("dtype", torch.int64)])
    assert "hamming_window expects floating point dtypes, got: " in message


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fftfreq_matches_torch(driver, hs, dtype):
    for n in (0, 1, 2, 7, 8, 15):
        for d in (1.0, 0.25, 1 / 16000):
            (got,) = driver.call(hs, "aten::fft_fftfreq", [("n", n), ("d", d), ("dtype", dtype)])
            check(got, torch.fft.fftfreq(n, d, dtype=dtype), 0.0, 1e-6 if dtype == torch.float32 else 1e-12)
            (got,) = driver.call(hs, "aten::fft_rfftfreq", [("n", n), ("d", d), ("dtype", dtype)])
            check(got, torch.fft.rfftfreq(n, d, dtype=dtype), 0.0, 1e-6 if dtype == torch.float32 else 1e-12)
    (got,) = driver.call(hs, "aten::fft_rfftfreq", [("n", -3)])
    check(got, torch.fft.rfftfreq(-3), 0.0, 0.0)
    (got,) = driver.call(hs, "aten::fft_fftfreq", [("n", 5), ("d", 0.0)])
    check(got, torch.fft.fftfreq(5, 0.0), 0.0, 0.0)  # nan, +-inf
    assert torch_error(torch.fft.fftfreq, -1) in refused(driver, hs, "aten::fft_fftfreq", [("n", -1)])
    assert torch_error(torch.fft.rfftfreq, -4) in refused(driver, hs, "aten::fft_rfftfreq", [("n", -4)])


UNARY = [("aten::log", torch.log), ("aten::sqrt", torch.sqrt), ("aten::sin", torch.sin), ("aten::cos", torch.cos),
         ("aten::tanh", torch.tanh), ("aten::sigmoid", torch.sigmoid), ("aten::reciprocal", torch.reciprocal),
         ("aten::rsqrt", torch.rsqrt), ("aten::neg", torch.neg), ("aten::expm1", torch.expm1),
         ("aten::log1p", torch.log1p)]


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("target,fn", UNARY, ids=[u[0] for u in UNARY])
def test_complex_unary_matches_torch(driver, hs, target, fn, dtype):
    z = torch.randn(3, 4, 5, dtype=dtype, generator=gen(7)) * 1.5
    small = torch.randn(6, dtype=dtype, generator=gen(8)) * 1e-5  # expm1 / log1p near 0: no cancellation
    axes = torch.tensor([2.0, -2.0, 0.5, -0.5], dtype=torch.float64)
    edges = torch.complex(torch.cat([axes, torch.zeros(4, dtype=torch.float64)]),
                          torch.cat([torch.zeros(4, dtype=torch.float64), axes])).to(dtype)  # branch cuts' sides
    tol = (1e-5, 2e-6) if dtype == torch.complex64 else (1e-12, 1e-14)
    for x in (z, z.transpose(0, 2), z[:, 1:3], strided(z), small, edges):
        (got,) = driver.call(hs, target, [("self", x)])
        expected = fn(x)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        torch.testing.assert_close(got, expected, rtol=tol[0], atol=tol[1] * float(expected.abs().max()))


def test_complex_unary_refuses_real(driver, hs):
    message = refused(driver, hs, "aten::log", [("self", torch.rand(3) + 1)])
    assert "log" in message and "complex64/128" in message
