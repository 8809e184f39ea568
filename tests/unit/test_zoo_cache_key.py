"""tests/aoti_zoo.py's cache key: a cached model is reused only while everything it was compiled from
is unchanged, the helper modules its source imports (tests/hf_auto.py) included."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
import aoti_zoo  # noqa: E402 (tests/ put on sys.path just above)


def test_a_transformers_family_depends_on_hf_auto():
    assert aoti_zoo.local_imports(aoti_zoo.source("glm_image_text")) == [REPO / "tests" / "hf_auto.py"]
    assert aoti_zoo.local_imports(aoti_zoo.source("transformer_block")) == []  # plain torch: no helper


def test_the_key_changes_with_an_imported_helper(monkeypatch, tmp_path):
    helper = tmp_path / "hf_auto.py"
    helper.write_text("HEAD_DIM = 'from the config'\n")
    monkeypatch.setattr(aoti_zoo, "torch_version", lambda: "2.13.0")
    monkeypatch.setattr(aoti_zoo, "local_imports", lambda text: [helper])
    before = aoti_zoo.cache_key("glm_image_text", "cpu", False)
    assert aoti_zoo.cache_key("glm_image_text", "cpu", False) == before  # stable for the same content
    helper.write_text("HEAD_DIM = 'from the instance dict'\n")
    assert aoti_zoo.cache_key("glm_image_text", "cpu", False) != before


def test_a_torchao_model_depends_on_its_config_and_torchao(monkeypatch):
    """A quantize_ model (tests/torchao_zoo.py) is compiled again when torchao changes or its config's
    text does; a PT2E-quantized or float model's key does not name torchao."""
    monkeypatch.setattr(aoti_zoo, "torch_version", lambda: "2.13.0")
    monkeypatch.setattr(aoti_zoo, "torchao_version", lambda: "0.18.0")
    before = aoti_zoo.cache_key("tao_int8dyn_mlp", "cpu", False)
    pt2e, plain = aoti_zoo.cache_key("frozen_q8_mlp", "cpu", False), aoti_zoo.cache_key("mlp", "cpu", False)
    assert aoti_zoo.cache_key("tao_int8dyn_mlp", "cpu", False) == before
    # the same source under another config is another model
    assert aoti_zoo.cache_key("tao_int8wo_mlp", "cpu", False) != before
    monkeypatch.setattr(aoti_zoo, "torchao_version", lambda: "0.19.0")
    assert aoti_zoo.cache_key("tao_int8dyn_mlp", "cpu", False) != before
    assert (aoti_zoo.cache_key("frozen_q8_mlp", "cpu", False), aoti_zoo.cache_key("mlp", "cpu", False)) == (pt2e, plain)
    monkeypatch.setattr(aoti_zoo, "torchao_version", lambda: "0.18.0")
    monkeypatch.setattr(aoti_zoo, "TORCHAO_CONFIGS",
                        {**aoti_zoo.TORCHAO_CONFIGS, "int8dyn": "q.Int8DynamicActivationInt8WeightConfig(version=2)"})
    assert aoti_zoo.cache_key("tao_int8dyn_mlp", "cpu", False) != before


def test_a_timm_entry_depends_on_timm_models():
    assert aoti_zoo.local_imports(aoti_zoo.source("timm_swin")) == [REPO / "tests" / "timm_models.py"]


def test_a_missing_library_is_not_kept_as_the_verdict(monkeypatch, tmp_path):
    """A ring entry of a library the compiling environment lacks (timm, diffusers) records
    ModuleNotFoundError; ensure_compiled tries it again next time (installing the library changes no
    cache key), while an export failure stays recorded."""
    error = tmp_path / "timm_vit.error"
    error.write_text("ModuleNotFoundError: No module named 'timm'\n")
    assert aoti_zoo.library_absent(error) == "timm"
    error.write_text("ModuleNotFoundError: No module named 'diffusers.models'\n")
    assert aoti_zoo.library_absent(error) == "diffusers.models"
    error.write_text("UserError: Could not guard on data-dependent expression Eq(u0, 1)\n")
    assert aoti_zoo.library_absent(error) is None

    monkeypatch.setattr(aoti_zoo, "torch_version", lambda: "2.13.0")
    spawned = []
    monkeypatch.setattr(aoti_zoo.subprocess, "Popen", lambda command, **kw: spawned.append(command) or _Done())
    for name, reason in (("timm_vit", "ModuleNotFoundError: No module named 'timm'"),
                         ("timm_swin", "TypeError: unhashable type: non-nested SymInt")):
        aoti_zoo.error_of(aoti_zoo.model_dir(tmp_path, name, "cpu", False)).write_text(reason + "\n")
    aoti_zoo.ensure_compiled(["timm_vit", "timm_swin"], root=tmp_path, keep_going=True)
    assert len(spawned) == 1 and spawned[0][-1] == "timm_vit" and "timm_swin" not in spawned[0]


class _Done:
    returncode = 0

    def communicate(self, timeout=None):
        return "", ""
