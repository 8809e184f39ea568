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
