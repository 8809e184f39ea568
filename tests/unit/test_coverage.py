"""The coverage table (docs/coverage.md) is generated from shimgen/aoti/fallbacks.json and the
runtime's headers, and kept in step."""

from __future__ import annotations

from pathlib import Path

from shimgen.aoti import coverage
from tests.support import load_script

REPO = Path(__file__).resolve().parents[2]


def test_doc_table_is_in_step():
    module = load_script("gen_coverage_doc")
    assert (REPO / coverage.DOC).read_text(encoding="utf-8") == module.expected(), \
        "docs/coverage.md is stale: run python scripts/gen_coverage_doc.py"


def test_served_comes_from_the_runtime_headers():
    served = coverage.served_by_runtime()
    assert "aoti_torch_cpu_cumsum" in served and "aoti_torch_cpu_mm_out" in served
    assert "aoti_torch_proxy_executor_call_function" in served  # issue 22: the runtime's proxy executor
    entries = [coverage.Entry("X", "cpu", "t", ("aoti_torch_cpu_cumsum", "aoti_torch_cpu_made_up"), "x")]
    table = coverage.render_table(entries, served)
    assert "| X | cpu | t | `cpu_cumsum`, `cpu_made_up` ✗ | `cpu_made_up` |" in table
    assert "| `aoti_torch_cpu_made_up` | **no** | X (cpu) |" in table
    assert "| `aoti_torch_cpu_cumsum` | yes | X (cpu) |" in table


def test_fallbacks_of_keeps_ops_only_and_data_loads():
    assert coverage.fallbacks_of(["aoti_torch_get_sizes", "aoti_torch_cpu_topk", "aoti_torch_cuda_mm_out",
                                  "aoti_torch_proxy_executor_call_function", "aoti_torch_cpu_topk",
                                  "aoti_torch_index_put_out", "aoti_torch_copy_"]) == (
        "aoti_torch_cpu_topk", "aoti_torch_cuda_mm_out", "aoti_torch_index_put_out",
        "aoti_torch_proxy_executor_call_function")
    entries = coverage.load()
    families = {e.family.split(" ")[0] for e in entries if e.device == "cpu"}
    assert {"Llama", "Qwen2", "Gemma3", "GPT-2", "Mixtral", "BERT", "Whisper", "ViT", "ResNet", "ConvNeXt",
            "LSTM"} <= families


def test_splice_replaces_only_the_table():
    doc = f"intro\n{coverage.BEGIN}\nold\n{coverage.END}\ntail\n"
    assert coverage.splice(doc, "new\n") == f"intro\n{coverage.BEGIN}\nnew\n{coverage.END}\ntail\n"
