"""aten::_is_all_true through the runtime's proxy executor (ring-vision): what torch.export leaves for
a tensor condition a model asserts (transformers' SigLIP2 and OneFormer check a mask with
torch._check / torch._assert_async), feeding the graph's _assert_async. Called by a driver model
(tests/proxy_driver.py) with bool tensors chosen here: all true, one false, empty, 0-d, strided and
offset views; compared with torch eager (a 0-d bool, the same value). A non-bool self is refused with
torch's own condition (torch fails an internal assert on it)."""

from __future__ import annotations

import pytest

from tests.cpu_shim_tensors import gen, strided

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow
aten = torch.ops.aten


def _cases() -> list[torch.Tensor]:
    mask = torch.rand(4, 6, 5, generator=gen(3)) > 0.2  # some false
    ones = torch.ones(4, 6, 5, dtype=torch.bool)
    last = ones.clone()
    last[3, 5, 4] = False  # only the last element false
    holes = ones.clone()
    holes[::2] = False  # false only where a strided view does not look
    return [ones, mask, last, torch.ones(0, 3, dtype=torch.bool), torch.tensor(True), torch.tensor(False),
            ones.transpose(0, 2), strided(mask), last[1:, 2:], holes[1::2], holes, strided(ones),
            torch.ones(3, 1, dtype=torch.bool).expand(3, 7)]


def test_is_all_true_matches_torch(driver, hs):
    for x in _cases():
        (got,) = driver.call(hs, "aten::_is_all_true", [("self", x)])
        expected = aten._is_all_true(x)
        assert got.dtype == torch.bool and got.shape == torch.Size([]), (got.dtype, got.shape)
        assert bool(got) == bool(expected), (x.shape, x.stride(), bool(got))


def test_is_all_true_refuses_non_bool_with_torchs_condition(driver, hs):
    from tests.proxy_driver import ProxyCallError

    x = torch.ones(3, dtype=torch.uint8)
    with pytest.raises(Exception) as torch_error:
        aten._is_all_true(x)
    with pytest.raises(ProxyCallError) as caught:
        driver.call(hs, "aten::_is_all_true", [("self", x)])
    condition = "self.scalar_type() == at::kBool"
    assert condition in str(torch_error.value) and condition in str(caught.value), str(caught.value)
