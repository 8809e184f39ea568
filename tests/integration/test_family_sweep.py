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


def test_every_head_is_an_auto_class_over_families_transformers_lists():
    import transformers

    sweep = _sweep()
    for task, (auto_class, _mapping) in sweep.HEADS.items():
        assert hasattr(transformers, auto_class), (task, auto_class)
        families = sweep.model_types(task)
        assert families and families == sorted(families), task
    assert "llama" in sweep.model_types("sequence-classification")
    assert "wav2vec2" in sweep.model_types("audio-xvector") and "llama" not in sweep.model_types("audio-xvector")


def test_a_head_model_gets_a_padding_id_only_where_the_family_has_none():
    import sys

    from tests.support import REPO

    sys.path.insert(0, str(REPO / "tests"))
    import hf_auto

    classifier = hf_auto.tiny_model("llama", "AutoModelForSequenceClassification")
    assert type(classifier).__name__ == "LlamaForSequenceClassification"
    assert classifier.config.pad_token_id == 0  # Llama's default config has none
    assert type(hf_auto.tiny_model("llama")).__name__ == "LlamaModel"
    assert hf_auto.tiny_model("llama").config.pad_token_id is None  # the base model is left as it was


@pytest.mark.slow
def test_a_classifier_head_lowers_and_is_judged():
    # GPT-2's classifier takes each row's last real token (an argmax over the padding mask, then a
    # gather): its own ops beyond the base model's, lowered and judged like any family.
    from shimgen.aoti.coverage import served_by_runtime

    sweep = _sweep()
    row = sweep.screen("gpt2", timeout=600, auto_class="AutoModelForSequenceClassification")
    assert row["stage"] == "lowered", row
    served, proxied = served_by_runtime(), sweep.proxy_targets()
    assert sweep.judge(row, served, proxied)["missing"] == []
    some_shim = sorted(row["shims"])[-1]
    assert sweep.judge(row, served - {some_shim}, proxied)["missing"] == [some_shim]


def test_the_device_reaches_the_child():
    # --device cuda moves the model to CUDA before export (a GPU machine's screen, run there by
    # scripts/gpu_ring_batches.sh SWEEP=...). Here, with no GPU, the move itself must fail in the child
    # and come back as a row naming the device: proof the argument got there.
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present: the CUDA screen would lower instead (gpu_ring_batches.sh SWEEP runs it)")
    row = _sweep().screen("gpt2", timeout=300, auto_class="AutoModelForCausalLM", device="cuda")
    assert row["stage"] == "build" and row["error"].startswith("to(cuda): "), row


def test_the_json_holds_each_row_as_its_family_ends(tmp_path, monkeypatch):
    # A GPU call's limit interrupts the screen: the rows reached must be on disk already, not only at
    # the end. The second family's screen reads the file the first one's row was written to.
    import json

    sweep = _sweep()
    out = tmp_path / "rows.json"
    seen_by_second: list[dict] = []

    def screen(name, *args, **kwargs):
        if name == "second":
            seen_by_second.append(json.loads(out.read_text()))
        return {"stage": "build", "error": f"{name} not built"}

    monkeypatch.setattr(sweep, "screen", screen)
    assert sweep.main(["--jobs", "1", "--json", str(out), "first", "second"]) == 0
    assert seen_by_second == [{"first": {"stage": "build", "error": "first not built"}}]
    assert set(json.loads(out.read_text())) == {"first", "second"}
    assert not (tmp_path / "rows.json.part").exists()
