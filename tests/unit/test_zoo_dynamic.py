"""tests/aoti_zoo.py's dynamic-shape declarations (pure: no torch): size expressions, each run's input
shapes, the consistency check every compile makes, and cache keys (a static model's key is what it
was before dynamic dims existed; a dynamic model's key changes with its dims and runs)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import aoti_zoo  # noqa: E402 (tests/ put on sys.path just above)
from aoti_zoo import Dim, Input, ZooModel, at  # noqa: E402
from dynamic_ring import CI, DYNAMIC  # noqa: E402

_MODEL = ZooModel("", "return x.sum(1)", (Input((2, 8), dynamic=((0, "B"), (1, "4 * P"))),
                                          Input((2,), "index:10", ((0, "B"),))), 1e-5,
                  dims=(Dim("B", 1, 8), Dim("P", 1, 16)), runs=(at(B=3, P=5), at(B=1, P=16)))


def test_size_expressions_take_names_integers_and_arithmetic_only():
    assert aoti_zoo.size_of("8 * P + 1", {"P": 3}) == 25
    assert aoti_zoo.size_of("S // 2 - 1", {"S": 9}) == 3
    for bad in ("__import__('os')", "P ** 2", "P.bit_length()", "1.5 * P", "[P]"):
        with pytest.raises(ValueError, match="only dim names"):
            aoti_zoo.size_of(bad, {"P": 3})
    with pytest.raises(ValueError, match="no dim named 'Q'"):
        aoti_zoo.size_of("Q", {"P": 3})


def test_each_run_has_its_own_input_shapes():
    assert aoti_zoo.run_count(_MODEL) == 3
    assert aoti_zoo.shapes_at(_MODEL, 0) == [(2, 8), (2,)]  # the export's example
    assert aoti_zoo.shapes_at(_MODEL, 1) == [(3, 20), (3,)]
    assert aoti_zoo.shapes_at(_MODEL, 2) == [(1, 64), (1,)]


@pytest.mark.parametrize(("change", "message"), [
    ({"runs": (at(B=3),)}, "must bind exactly the dims"),
    ({"runs": (at(B=9, P=1),)}, r"puts B outside \[1, 8\]"),
    ({"dims": (Dim("B", 1, 8),)}, "no dim named 'P'"),
    ({"inputs": (Input((2, 8), dynamic=((2, "B"),)),)}, "dynamic dim 2 does not exist"),
    ({"dims": (), "inputs": (Input((2, 8)),)}, "runs at other shapes need dynamic dims"),
])
def test_an_inconsistent_declaration_is_refused(change, message):
    aoti_zoo.check_dynamic("model", _MODEL)  # the declaration above is consistent
    with pytest.raises(ValueError, match=message):
        aoti_zoo.check_dynamic("model", replace(_MODEL, **change))


def test_every_dynamic_ring_model_is_consistent_and_runs_at_three_shapes_or_more():
    for name, model in DYNAMIC.items():
        aoti_zoo.check_dynamic(name, model)
        assert aoti_zoo.run_count(model) >= 3, name
        shapes = [aoti_zoo.shapes_at(model, run) for run in range(aoti_zoo.run_count(model))]
        assert len(set(map(tuple, shapes))) == len(shapes), f"{name}: two runs at the same shapes"
    assert set(CI) <= set(DYNAMIC)


def test_a_static_key_ignores_the_new_fields_and_a_dynamic_key_follows_them(monkeypatch):
    monkeypatch.setattr(aoti_zoo, "torch_version", lambda: "2.13.0")
    table = {"static": ZooModel("", "return x", (Input((2, 8)),), 0.0), "dynamic": _MODEL}
    monkeypatch.setattr(aoti_zoo, "models", lambda: table)
    # what the key was made of before dynamic dims existed: repr(inputs) holds no `dynamic` field
    assert repr(table["static"].inputs) == "(Input(shape=(2, 8), kind='randn'),)"
    before = aoti_zoo.cache_key("dynamic", "cpu", False)
    table["dynamic"] = replace(_MODEL, runs=(at(B=3, P=5),))
    assert aoti_zoo.cache_key("dynamic", "cpu", False) != before
    table["dynamic"] = replace(_MODEL, dims=(Dim("B", 1, 4), Dim("P", 1, 16)))
    assert aoti_zoo.cache_key("dynamic", "cpu", False) != before
    table["dynamic"] = _MODEL
    assert aoti_zoo.cache_key("dynamic", "cpu", False) == before


def test_run_folders(tmp_path):
    (tmp_path / "meta.json").write_text('{"inputs": 2, "outputs": 1, "runs": 3}')
    assert aoti_zoo.runs_of(tmp_path) == 3
    assert aoti_zoo.inputs_of(tmp_path) == [tmp_path / "in0.npy", tmp_path / "in1.npy"]
    assert aoti_zoo.expected_of(tmp_path, 2) == [tmp_path / "run2" / "out0.npy"]
    (tmp_path / "meta.json").write_text('{"inputs": 1, "outputs": 1}')  # a static model's meta
    assert aoti_zoo.runs_of(tmp_path) == 1


def test_a_dim_export_specialized_or_unified_is_reported_lost():
    model = ZooModel("", "", (Input((2, 3, 32, 32), dynamic=((2, "8 * PH"), (3, "8 * PW"))),), 0.0,
                     dims=(Dim("PH", 2, 8), Dim("PW", 2, 8), Dim("A")))
    both = {"s1": ["2", "8"], "8*s1": ["16", "64"], "s2": ["2", "8"], "8*s2": ["16", "64"]}
    assert aoti_zoo.lost_dims(model, both) == []
    # ViT's `height == width` on a square example: export kept one symbol for both dims
    assert aoti_zoo.lost_dims(model, {"s1": ["2", "8"], "8*s1": ["16", "64"]}) == ["PW"]
    assert aoti_zoo.lost_dims(model, {}) == ["PH", "PW"]  # both specialized to the example


def test_the_inductor_configs_of_dynamic_models_cannot_be_written_into():
    """aoti_compile_and_package writes "aot_inductor.package" into the configs dict it is handed; the
    zoo's own mapping is part of the cache key, so a write into it moved the key of every model
    compiled after the first in one process (their directories appeared under keys nobody asked for)."""
    key = aoti_zoo.cache_key("dyn_lstm", "cpu", False)
    with pytest.raises(TypeError):
        aoti_zoo.DYNAMIC_CONFIG["aot_inductor.package"] = True  # type: ignore[index]
    handed = dict(aoti_zoo.DYNAMIC_CONFIG)  # what compile_one passes
    handed["aot_inductor.package"] = True
    assert aoti_zoo.cache_key("dyn_lstm", "cpu", False) == key
