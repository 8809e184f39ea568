"""A ring entry compares something only if its outputs depend on its inputs (scripts/ring_sensitivity.py),
and tests/timm_models.py's unit_scale restores that dependence in a deep network whose random
initialisation loses it, without touching its biases."""

from __future__ import annotations

import numpy as np
import pytest

from tests.support import load_script


def _verdict():
    return load_script("ring_sensitivity").verdict


def test_no_output_is_empty():
    assert _verdict()([], [], 1e-4, 0.0) == "EMPTY"


def test_outputs_within_the_tolerance_of_the_other_draw_are_insensitive():
    first = [np.array([1.0, 2.0], dtype=np.float32)]
    assert _verdict()(first, [first[0] + 5e-5], 1e-4, 0.0) == "INSENSITIVE"
    assert _verdict()(first, [first[0] + 5e-3], 1e-4, 0.0) == "ok"
    assert _verdict()(first, [first[0] + 5e-4], 1e-4, 0.0) == "WEAK (5x its tolerance)"
    # the relative part counts as in the ring's comparison: 0.02 x 2 covers a move of 0.03, 0.02 x 1 not
    assert _verdict()(first, [first[0] + np.float32([0.01, 0.03])], 1e-4, 0.02) == "INSENSITIVE"
    assert _verdict()(first, [first[0] + np.float32([0.03, 0.03])], 1e-4, 0.02).startswith("WEAK")
    assert _verdict()(first, [first[0] + np.float32([0.3, 0.03])], 1e-4, 0.02) == "ok"


def test_a_changed_integer_output_is_enough():
    same = [np.ones(3, dtype=np.float32)]
    assert _verdict()([*same, np.array([0, 1])], [*same, np.array([1, 0])], 1e-4, 0.0) == "ok"
    assert _verdict()([np.zeros(2, np.float32)], [np.float32([0, 1e-9])], 0.0, 0.0) == "ok"  # exact entries
    assert _verdict()([*same, np.array([0, 1])], [*same, np.array([0, 1])], 1e-4, 0.0) == "INSENSITIVE"


def _deep_relu_stack(torch, depth: int = 40):
    torch.manual_seed(0)
    layers = [torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU()]
    for _ in range(depth):
        layers += [torch.nn.Conv2d(16, 16, 1), torch.nn.ReLU()]
    return torch.nn.Sequential(*layers, torch.nn.Flatten(), torch.nn.Linear(16 * 8 * 8, 4)).eval()


def test_unit_scale_gives_a_collapsed_network_its_input_back_and_keeps_its_biases():
    torch = pytest.importorskip("torch")
    from tests.timm_models import unit_scale

    model = _deep_relu_stack(torch)
    biases = [m.bias.clone() for m in model.modules() if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    x0, x1 = torch.randn(2, 1, 3, 8, 8, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        before = float((model(x0) - model(x1)).abs().max())
    assert before < 1e-4  # the control: at PyTorch's default init, 40 ReLU layers lose the image

    assert unit_scale(model, (2, 3, 8, 8)) is model
    with torch.no_grad():
        after = float((model(x0) - model(x1)).abs().max())
    assert after > 0.1
    assert all(torch.equal(b, m.bias) for b, m in
               zip(biases, (m for m in model.modules() if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)))))


def test_unit_scale_is_deterministic():
    torch = pytest.importorskip("torch")
    from tests.timm_models import unit_scale

    a, b = (unit_scale(_deep_relu_stack(torch, 8), (2, 3, 8, 8)) for _ in range(2))
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_a_dynamic_model_is_judged_at_every_shape_it_declares():
    pytest.importorskip("torch")
    script = load_script("ring_sensitivity")
    import aoti_zoo

    rows = script.judge("dyn_conv1d")
    shapes = aoti_zoo.run_count(aoti_zoo.models()["dyn_conv1d"])
    assert shapes > 1
    assert rows == [("dyn_conv1d", "ok")] + [(f"dyn_conv1d@{run}", "ok") for run in range(1, shapes)]


def test_an_input_free_model_is_flagged_and_excused_by_name():
    pytest.importorskip("torch")
    script = load_script("ring_sensitivity")
    # the control: its outputs are statistics of random draws, the same for any input
    assert script.judge("random") == [("random", "INSENSITIVE")]
    assert script.free("random") and script.free("randperm@1") and not script.free("dyn_conv1d@0")
