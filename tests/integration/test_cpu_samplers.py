"""The samplers of torch.distributions that have no C shim (inductor hands them to the proxy executor):
aten::_standard_gamma (Gamma, Beta, Chi2, StudentT, Dirichlet sample through it), aten::binomial and
aten::_sample_dirichlet, called through the runtime's own proxy executor by a driver model
(tests/proxy_driver.py). The runtime draws from its own engine, not torch's stream, so draws are held
to torch's by distribution: a two-sample Kolmogorov-Smirnov distance against torch's own draws from
the same parameters (and the mean against the exact one), while what torch fixes (its clamps, the
degenerate counts and probabilities, NaN, dtype, shape, strides) must be equal exactly. A sampler off
by a scale, a shape parameter or an element order fails the distance by an order of magnitude."""

from __future__ import annotations

import pytest

from tests.proxy_driver import refused

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow
DRAWS = 20000
# The two-sample KS distance at which equal distributions are rejected with p < 1e-6 (both n = DRAWS):
# 0.027, while torch's own Gamma(2.5) draws scaled by 1.1 are 0.058 away, Gamma(2.75)'s 0.072; the runtime's engine is seeded afresh each
# process, so the bound is set for a run of many comparisons never to fail by chance.
KS_LIMIT = 2.7 * (2.0 / DRAWS) ** 0.5


def ks_distance(a: torch.Tensor, b: torch.Tensor) -> float:
    """sup |F_a - F_b| over the pooled values (ties handled: right-continuous empirical CDFs)."""
    a, b = a.double().flatten().sort().values, b.double().flatten().sort().values
    points = torch.cat([a, b])
    fa = torch.searchsorted(a, points, right=True).double() / a.numel()
    fb = torch.searchsorted(b, points, right=True).double() / b.numel()
    return float((fa - fb).abs().max())


def call(driver, hs, target, **tensors):
    return driver.call(hs, target, list(tensors.items()))[0]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_standard_gamma_draws_torchs_distribution(driver, hs, dtype):
    alphas = torch.tensor([0.3, 1.0, 2.5, 9.0], dtype=dtype)
    # A strided input (alpha varies along dim 1 of a transposed view): draw i must use alpha i.
    self = alphas[:, None].expand(4, DRAWS).t()  # [DRAWS, 4], strides (0, 1)
    got = call(driver, hs, "aten::_standard_gamma", self=self)
    assert got.dtype == dtype and got.shape == (DRAWS, 4) and got.stride() == (4, 1)
    want = torch._standard_gamma(self.contiguous())
    for j, alpha in enumerate(alphas.tolist()):
        assert ks_distance(got[:, j], want[:, j]) < KS_LIMIT, (alpha, ks_distance(got[:, j], want[:, j]))
        assert abs(float(got[:, j].double().mean()) - alpha) < 5 * (alpha / DRAWS) ** 0.5, alpha


def test_standard_gamma_keeps_torchs_edge_values(driver, hs):
    for dtype in (torch.float32, torch.float64):
        self = torch.tensor([0.0, -1.0, float("nan"), float("inf"), 1e-30], dtype=dtype)
        got = call(driver, hs, "aten::_standard_gamma", self=self)
        want = torch._standard_gamma(self)  # the dtype's smallest normal where nothing was drawn; inf
        assert torch.equal(got, want), (got, want)
    says = refused(driver, hs, "aten::_standard_gamma", [("self", torch.ones(3, dtype=torch.bfloat16))])
    assert "not implemented for 'BFloat16'" in says, says


@pytest.mark.parametrize(("count", "prob"), [(20.0, 0.3), (1000.0, 0.7), (7.0, 0.95)])
def test_binomial_draws_torchs_distribution(driver, hs, count, prob):
    n, p = torch.full((DRAWS,), count), torch.full((DRAWS,), prob)
    got = call(driver, hs, "aten::binomial", count=n, prob=p)
    want = torch.binomial(n, p)
    assert got.dtype == torch.float32 and got.shape == (DRAWS,)
    assert bool((got == got.round()).all()) and bool(((got >= 0) & (got <= count)).all())
    assert ks_distance(got, want) < KS_LIMIT, ks_distance(got, want)
    sd = (count * prob * (1 - prob) / DRAWS) ** 0.5
    assert abs(float(got.double().mean()) - count * prob) < 5 * sd


def test_binomial_keeps_torchs_degenerate_cases(driver, hs):
    # Not a NaN count (torch's CPU kernel never returns from one) nor an infinite one (torch draws NaN
    # in float32, inf in float64): the runtime draws NaN for both.
    count = torch.tensor([0.0, 5.0, 10.0, -1.0, 10.0, 10.0], dtype=torch.float64)
    prob = torch.tensor([0.5, 0.0, 1.0, 0.5, 1.5, float("nan")], dtype=torch.float64)
    got = call(driver, hs, "aten::binomial", count=count, prob=prob)
    assert torch.equal(got.isnan(), torch.binomial(count, prob).isnan())
    assert torch.equal(got.nan_to_num(-7.0), torch.binomial(count, prob).nan_to_num(-7.0))
    says = refused(driver, hs, "aten::binomial", [("count", torch.ones(3)), ("prob", torch.ones(3, dtype=torch.float64))])
    assert "same dtype" in says, says


def test_sample_dirichlet_draws_torchs_distribution(driver, hs):
    alpha = torch.tensor([0.5, 2.0, 5.0]).expand(DRAWS, 3)
    got = call(driver, hs, "aten::_sample_dirichlet", self=alpha)
    want = torch._sample_dirichlet(alpha.contiguous())
    assert got.dtype == torch.float32 and got.shape == (DRAWS, 3) and got.stride() == (3, 1)
    assert torch.allclose(got.sum(-1), torch.ones(DRAWS), atol=1e-5)
    for j, share in enumerate((0.5 / 7.5, 2.0 / 7.5, 5.0 / 7.5)):
        assert ks_distance(got[:, j], want[:, j]) < KS_LIMIT, (j, ks_distance(got[:, j], want[:, j]))
        assert abs(float(got[:, j].double().mean()) - share) < 0.02, j


def test_sample_dirichlet_keeps_torchs_clamps(driver, hs):
    for dtype in (torch.float32, torch.float64):
        # alpha 0: every gamma draw is the smallest normal, so the row splits evenly, as torch's
        self = torch.zeros(2, 4, dtype=dtype)
        assert torch.equal(call(driver, hs, "aten::_sample_dirichlet", self=self), torch._sample_dirichlet(self))
        one = call(driver, hs, "aten::_sample_dirichlet", self=torch.tensor([1e-4, 1e-4], dtype=dtype))
        assert float(one.min()) >= torch.finfo(dtype).tiny and float(one.max()) < 1.0  # within torch's bounds
