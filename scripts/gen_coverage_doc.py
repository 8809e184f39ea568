"""Regenerate the coverage table in docs/coverage.md from shimgen/aoti/fallbacks.json and the
runtime's headers (what it serves). tests/unit/test_coverage.py fails when the doc is stale.

    python scripts/gen_coverage_doc.py
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from shimgen.aoti import coverage


def expected() -> str:
    doc = (REPO / coverage.DOC).read_text(encoding="utf-8")
    return coverage.splice(doc, coverage.render_table(coverage.load(), coverage.served_by_runtime()))


if __name__ == "__main__":
    (REPO / coverage.DOC).write_text(expected(), encoding="utf-8")
