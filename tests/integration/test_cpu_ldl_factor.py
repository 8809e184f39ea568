"""aten::linalg_ldl_factor_ex (torch.linalg.ldl_factor / ldl_factor_ex; no C shim: the proxy executor),
found unserved by scripts/op_probe.py: called through the runtime's own proxy executor by a driver
model (tests/proxy_driver.py) and compared with torch eager: LD (values, torch's batched column-major
strides), pivots (LAPACK's, exactly) and info, for symmetric indefinite matrices, batched and strided,
a non-symmetric one (only its lower triangle is read), a singular one (info > 0) and an empty batch;
float32 and float64; a complex input refused."""

from __future__ import annotations

import pytest

from tests.cpu_shim_tensors import gen, strided

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow


def sym(*shape, seed=0, dtype=torch.float64):
    a = torch.randn(*shape, generator=gen(seed), dtype=torch.float64)
    return (a + a.mT).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_ldl_factor_matches_torch(driver, hs, dtype):
    tol = 1e-5 if dtype == torch.float32 else 1e-12
    singular = torch.zeros(3, 3, dtype=dtype)
    singular[0, 0] = 1.0
    cases = [sym(5, 5, seed=1, dtype=dtype), sym(3, 4, 4, seed=2, dtype=dtype), strided(sym(2, 6, 6, seed=3, dtype=dtype)),
             sym(6, 6, seed=4, dtype=dtype).mT, torch.randn(5, 5, generator=gen(5), dtype=torch.float64).to(dtype),
             singular, torch.zeros(0, 4, 4, dtype=dtype), torch.ones(1, 1, dtype=dtype) * 3]
    for a in cases:
        for hermitian in (False, True):
            got = driver.call(hs, "aten::linalg_ldl_factor_ex", [("self", a), ("hermitian", hermitian)], outputs=3)
            want = torch.linalg.ldl_factor_ex(a, hermitian=hermitian)
            for g, w in zip(got, want):
                assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
                if g.numel():
                    assert g.stride() == w.stride(), (g.stride(), w.stride())
            torch.testing.assert_close(got[0], want[0], rtol=tol, atol=tol * float(a.abs().max() if a.numel() else 1))
            assert torch.equal(got[1], want[1]) and torch.equal(got[2], want[2])


def test_ldl_factor_refuses_complex(driver, hs):
    from tests.proxy_driver import ProxyCallError

    with pytest.raises(ProxyCallError) as caught:
        driver.call(hs, "aten::linalg_ldl_factor_ex", [("self", torch.eye(3, dtype=torch.complex64))], outputs=3)
    assert "not float32 or float64" in str(caught.value)
