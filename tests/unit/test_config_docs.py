"""The README's config tables and config.schema.json are generated from the key specs and kept in step."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from shimgen.project import config_docs
from shimgen.project.config import KEYS, OUTPUT_KEYS, load_config

ROOT = Path(__file__).resolve().parents[2]
REAL_CONFIGS = ["shimgen/runtime/shimgen.toml", "examples/cmake-consumer/shimgen.toml", "examples/bazel-consumer/shimgen.toml",
                "examples/executorch-shims/shimgen.toml", "tests/packages/executorch_shape/shimgen.toml"]
FIX = "regenerate with: python -m shimgen.project.config_docs --write (or pytest --update-golden)"


def test_readme_config_tables_match_the_specs(update_golden):
    readme_path = ROOT / "README.md"
    readme = readme_path.read_text(encoding="utf-8")
    wanted = config_docs.replace_tables(readme)
    if update_golden and wanted != readme:
        readme_path.write_text(wanted, encoding="utf-8")
    assert readme == wanted or update_golden, FIX


def test_shipped_schema_matches_the_specs(update_golden):
    wanted = config_docs.schema_text()
    if update_golden:
        config_docs.SCHEMA_PATH.write_text(wanted, encoding="utf-8")
    assert config_docs.SCHEMA_PATH.read_text(encoding="utf-8") == wanted, FIX


def test_the_tables_list_every_key_with_its_doc():
    table = config_docs.markdown_table(KEYS)
    for spec in KEYS.values():
        assert f"| `{spec.name}` | {spec.shown_default} | {spec.doc} |" in table
    assert "| `prefix` | required |" in table and "| `required` | every shim |" in table
    assert '| `patterns` | `["aoti_torch_*"]` |' in table
    assert "| `def` | `shimgen.def` |" in config_docs.markdown_table(OUTPUT_KEYS)


def _schema() -> dict:
    schema = json.loads(config_docs.SCHEMA_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


@pytest.mark.parametrize("relative", REAL_CONFIGS)
def test_real_configs_validate_against_the_schema_and_load(relative):
    path = ROOT / relative
    jsonschema.validate(tomllib.loads(path.read_text(encoding="utf-8")), _schema())
    load_config(path)  # and the loader accepts them too


@pytest.mark.parametrize(
    ("table", "why"),
    [
        ({"prefix": "p_", "symbols": ["a"], "prefx": "y"}, "unknown key"),
        ({"symbols": ["a"]}, "missing prefix"),
        ({"prefix": "p_", "symbols": "a"}, "list given as a string"),
        ({"prefix": "9lives", "symbols": ["a"]}, "bad prefix"),
        ({"prefix": "p" * 65, "symbols": ["a"]}, "long prefix"),
        ({"prefix": "p_", "symbols": ["a"], "outputs": {"header": True}}, "output neither a name nor false"),
        ({"prefix": "p_", "symbols": ["a"], "outputs": {"headr": "x.h"}}, "unknown output key"),
    ],
)
def test_schema_rejects_what_the_loader_rejects(table, why):
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(table, _schema())


def test_schema_accepts_switched_off_outputs():
    jsonschema.validate({"prefix": "p_", "symbols": ["a"], "outputs": {"bzl": False, "dir": "gen"}}, _schema())


def test_check_mode_reports_a_stale_readme(tmp_path, capsys):
    readme = tmp_path / "README.md"
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    readme.write_text(text.replace("| `macro` |", "| `macro_old` |"), encoding="utf-8")
    assert config_docs.main(["--check", "--readme", str(readme)]) == 1
    assert "README.md is out of date" in capsys.readouterr().err
    readme.write_text(text, encoding="utf-8")
    assert config_docs.main(["--check", "--readme", str(readme)]) == 0
