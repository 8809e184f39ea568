"""The README's config tables and the JSON schema of shimgen.toml, generated from the key specs.

    python -m shimgen.project.config_docs --write   # rewrite README.md's tables and config.schema.json
    python -m shimgen.project.config_docs --check   # exit 1 when either is out of date

tests/unit/test_config_docs.py runs the check, so the docs cannot drift from shimgen.project.config.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from shimgen.project.config import KEYS, OUTPUT_KEYS
from shimgen.project.keys import Key

SCHEMA_ID = "https://shimgen.invalid/config.schema.json"
SCHEMA_PATH = Path(__file__).with_name("config.schema.json")
README_TABLES = {"config": KEYS, "outputs": OUTPUT_KEYS}
"""README marker name (<!-- NAME:begin --> ... <!-- NAME:end -->) to the keys its table lists."""


def markdown_table(keys: Mapping[str, Key]) -> str:
    lines = ["| key | default | meaning |", "| --- | --- | --- |"]
    lines += [f"| `{spec.name}` | {spec.shown_default} | {spec.doc} |" for spec in keys.values()]
    return "\n".join(lines) + "\n"


def _property(spec: Key) -> dict[str, Any]:
    schema: dict[str, Any] = {"description": spec.doc, **spec.kind.schema, **spec.schema}
    if not spec.required and spec.default is not None:
        schema["default"] = list(spec.default) if isinstance(spec.default, tuple) else spec.default
    return schema


def _object(keys: Mapping[str, Key], **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [spec.name for spec in keys.values() if spec.required],
        "properties": {**{spec.name: _property(spec) for spec in keys.values()}, **extra},
    }


def json_schema() -> dict[str, Any]:
    """JSON schema (draft 2020-12) of shimgen.toml, or of pyproject.toml's [tool.shimgen] table."""
    outputs = _object(OUTPUT_KEYS)
    outputs["description"] = "each generated file can be renamed, or switched off with false"
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "shimgen.toml",
        "description": "shimgen's config (generated from shimgen.project.config; do not edit)",
        **_object(KEYS, outputs=outputs),
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2) + "\n"


def replace_tables(readme: str) -> str:
    """``readme`` with every generated table replaced by its current text."""
    for marker, keys in README_TABLES.items():
        pattern = re.compile(rf"(<!-- {marker}:begin -->\n).*?(<!-- {marker}:end -->)", re.S)
        match = pattern.search(readme)
        if match is None:
            raise ValueError(f"README lacks the <!-- {marker}:begin --> / <!-- {marker}:end --> markers")
        readme = readme[: match.end(1)] + markdown_table(keys) + readme[match.start(2) :]
    return readme


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m shimgen.project.config_docs", description=__doc__)
    parser.add_argument("--readme", type=Path, default=Path("README.md"))
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="rewrite the README tables and the schema")
    mode.add_argument("--check", action="store_true", help="exit 1 when either is out of date")
    args = parser.parse_args(argv)
    readme = args.readme.read_text(encoding="utf-8")
    wanted = {args.readme: replace_tables(readme), SCHEMA_PATH: schema_text()}
    stale = [path for path, text in wanted.items() if not path.is_file() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"{path} is out of date; run python -m shimgen.project.config_docs --write", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.write_text(wanted[path], encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
