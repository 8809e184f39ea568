"""scripts/family_sweep.py: the screen of every transformers family for fallbacks the runtime lacks.
Its verdict must name a shim or proxy target the runtime does not serve, and must not flag what it
serves (measured on real lowered wrappers, not on fixtures)."""

from __future__ import annotations

import pytest

from tests.support import load_script

pytest.importorskip("torch")
pytest.importorskip("transformers")


def _sweep():
    return load_script("family_sweep")


def test_proxy_targets_are_the_executor_tables():
    targets = _sweep().proxy_targets()
    # the main table, a custom namespace, the special functions' table beside it
    assert {"aten::topk", "aten::sort.stable", "transformers::grouped_mm_fallback", "aten::special_zeta"} <= targets
    assert not any(t.startswith("aten::aoti_") for t in targets)


@pytest.mark.slow
def test_a_moe_decoder_lowers_served_and_a_missing_shim_is_named():
    from shimgen.aoti.coverage import served_by_runtime

    sweep = _sweep()
    served, proxied = served_by_runtime(), sweep.proxy_targets()
    row = sweep.screen("olmoe", timeout=600)  # MoE routing: topk, histc, the grouped-mm proxy call
    assert row["stage"] == "lowered", row
    assert {"aoti_torch_cpu_topk", "aoti_torch_proxy_executor_call_function"} <= set(row["shims"])
    assert "transformers::grouped_mm_fallback" in row["proxy"]
    assert sweep.judge(row, served, proxied)["missing"] == []
    # Negative controls: the same wrapper against a runtime without topk, an executor without the
    # grouped matmul.
    judged = sweep.judge(row, served - {"aoti_torch_cpu_topk"}, proxied - {"transformers::grouped_mm_fallback"})
    assert judged["missing"] == ["aoti_torch_cpu_topk", "transformers::grouped_mm_fallback"]
    assert sweep.status_of(judged).startswith("MISSING aoti_torch_cpu_topk")


def test_a_family_that_does_not_build_is_a_row_not_a_crash():
    row = _sweep().screen("no_such_family_type", timeout=120)
    assert row["stage"] == "config" and "no_such_family_type" in row["error"]
