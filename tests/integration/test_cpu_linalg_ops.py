"""The runtime's LAPACK-backed linalg C shims (issue 22; src/ops/cpu/linalg.h, scipy-openblas32's
LAPACK): cholesky_solve, cholesky_inverse, triangular_solve, geqrf, ormqr and lu_unpack, called through
ctypes with torch's exact C-shim signatures and compared with torch eager (values) and torch's fake
tensors (the strides the generated code assumes), float32 and float64, batched (broadcast batch dims),
from strided inputs. Negative controls: a refused dtype (Unsupported), a shape mismatch (InvalidArgument)
and a singular factor, which fails with torch's own message. The proxy-executor targets (linalg_qr,
_linalg_svd, ...) run end to end in the ring's linalg and linalg_more models
(tests/integration/test_arch_ring.py), their torch-like errors in test_proxy_executor.py."""

from __future__ import annotations

from ctypes import byref, c_int32, c_void_p

import pytest

from tests.aoti_helpers import INVALID, PREFIX, UNSUPPORTED, shim
from tests.cpu_shim_tensors import last_error, strided
from tests.integration.test_cpu_complex_ops import check, fake

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow
aten = torch.ops.aten
DTYPES = [torch.float32, torch.float64]


def spd(*batch: int, n: int = 5, seed: int = 0, dtype=torch.float64) -> torch.Tensor:
    x = torch.randn(*batch, n, n, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return (x @ x.mT + n * torch.eye(n, dtype=torch.float64)).to(dtype)


def randn(*shape: int, seed: int = 1, dtype=torch.float64) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).to(dtype)


def tol(dtype) -> float:
    return 1e-4 if dtype == torch.float32 else 1e-10


def outs(rt, hs, name, count, *args) -> list[torch.Tensor]:
    handles = [c_void_p() for _ in range(count)]
    assert shim(rt, name)(*args, *(byref(h) for h in handles)) == 0, last_error(rt)
    return [hs.tensor(c_void_p(h.value)) for h in handles]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [0, 1])
def test_cholesky_solve_and_inverse_match_torch(rt, hs, dtype, upper):
    a = spd(2, 3, dtype=dtype)
    factor = torch.linalg.cholesky(a, upper=bool(upper))
    for b, f in ((randn(2, 3, 5, 4, dtype=dtype), factor),          # same batch
                 (randn(3, 5, 2, dtype=dtype), factor),             # b broadcast over the leading dim
                 (strided(randn(2, 1, 5, 4, dtype=dtype)), factor),  # strided b, size-1 batch dim
                 (randn(2, 3, 5, 3, dtype=dtype), factor.mT.contiguous().mT)):  # column-major factor
        got, = outs(rt, hs, "aoti_torch_cpu_cholesky_solve", 1, hs.of(b), hs.of(f), c_int32(upper))
        check(got, aten.cholesky_solve(b, f, bool(upper)), fake(aten.cholesky_solve, b, f, bool(upper)), atol=tol(dtype))
    got, = outs(rt, hs, "aoti_torch_cpu_cholesky_inverse", 1, hs.of(factor), c_int32(upper))
    check(got, aten.cholesky_inverse(factor, bool(upper)), fake(aten.cholesky_inverse, factor, bool(upper)),
          atol=tol(dtype) * 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper, transpose, unit", [(1, 0, 0), (0, 1, 0), (1, 1, 1), (0, 0, 1)])
def test_triangular_solve_matches_torch(rt, hs, dtype, upper, transpose, unit):
    a = randn(3, 4, 4, seed=2, dtype=dtype) + 4 * torch.eye(4, dtype=dtype)
    for b, m in ((randn(3, 4, 2, dtype=dtype), a), (randn(4, 3, dtype=dtype), a), (randn(2, 3, 4, 2, dtype=dtype), a[0]),
                 (strided(randn(3, 4, 2, dtype=dtype)), a.mT)):
        got = outs(rt, hs, "aoti_torch_cpu_triangular_solve", 2, hs.of(b), hs.of(m), c_int32(upper), c_int32(transpose),
                   c_int32(unit))
        args = (bool(upper), bool(transpose), bool(unit))
        expected, meta = aten.triangular_solve(b, m, *args), fake(aten.triangular_solve, b, m, *args)
        for g, e, f in zip(got, expected, meta):
            check(g, e, f, atol=tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 6, 4), (3, 4, 6), (5, 5)])
def test_geqrf_and_ormqr_match_torch(rt, hs, dtype, shape):
    x = randn(*shape, seed=3, dtype=dtype)
    for source in (x, strided(x), x.mT.contiguous().mT):
        got = outs(rt, hs, "aoti_torch_cpu_geqrf", 2, hs.of(source))
        for g, e, f in zip(got, aten.geqrf(source), fake(aten.geqrf, source)):
            check(g, e, f, atol=tol(dtype))
    h, tau = aten.geqrf(x)
    m = shape[-2]
    for left, transpose in ((1, 0), (1, 1), (0, 0), (0, 1)):
        c = randn(*shape[:-2], m, 3, seed=4, dtype=dtype) if left else randn(*shape[:-2], 3, m, seed=4, dtype=dtype)
        got, = outs(rt, hs, "aoti_torch_cpu_ormqr", 1, hs.of(h), hs.of(tau), hs.of(strided(c)), c_int32(left),
                    c_int32(transpose))
        args = (bool(left), bool(transpose))
        check(got, aten.ormqr(h, tau, c, *args), fake(aten.ormqr, h, tau, c, *args), atol=tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 5, 5), (2, 6, 4), (4, 6)])
def test_lu_unpack_matches_torch(rt, hs, dtype, shape):
    lu, piv, _ = aten.linalg_lu_factor_ex(randn(*shape, seed=5, dtype=dtype))
    for data, pivots in ((1, 1), (0, 1), (1, 0)):
        got = outs(rt, hs, "aoti_torch_cpu_lu_unpack", 3, hs.of(lu), hs.of(piv), c_int32(data), c_int32(pivots))
        args = (bool(data), bool(pivots))
        for g, e, f in zip(got, aten.lu_unpack(lu, piv, *args), fake(aten.lu_unpack, lu, piv, *args)):
            check(g, e, f, atol=0)


def test_refusals_and_torch_errors(rt, hs):
    out = c_void_p()
    a, b = spd(2), randn(2, 5, 3)
    # Negative controls: a refused dtype, a shape mismatch; outputs untouched.
    ints = torch.eye(5, dtype=torch.int32).expand(2, 5, 5).contiguous()
    assert shim(rt, "aoti_torch_cpu_cholesky_solve")(hs.of(b), hs.of(ints), c_int32(0), byref(out)) == UNSUPPORTED
    assert "not float32 or float64" in last_error(rt)
    cplx = torch.eye(5, dtype=torch.complex64)
    assert shim(rt, "aoti_torch_cpu_cholesky_inverse")(hs.of(cplx), c_int32(0), byref(out)) == UNSUPPORTED
    assert shim(rt, "aoti_torch_cpu_cholesky_solve")(hs.of(b.float()), hs.of(a), c_int32(0), byref(out)) == INVALID
    assert shim(rt, "aoti_torch_cpu_cholesky_solve")(hs.of(randn(2, 4, 3)), hs.of(a), c_int32(0), byref(out)) == INVALID
    assert "Incompatible matrix sizes" in last_error(rt)
    assert out.value is None
    # A singular factor: torch's _linalg_check_errors message, word for word.
    singular = torch.linalg.cholesky(a)
    singular[1, 2, 2] = 0
    with pytest.raises(torch.linalg.LinAlgError) as torch_error:
        torch.cholesky_inverse(singular)
    assert shim(rt, "aoti_torch_cpu_cholesky_inverse")(hs.of(singular), c_int32(0), byref(out)) == INVALID
    assert last_error(rt) == f"{PREFIX}aoti_torch_cpu_cholesky_inverse: {torch_error.value}"
    assert out.value is None
