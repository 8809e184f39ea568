"""The package shape: each product in its own subpackage, dependencies one way (import-linter)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PRODUCTS = {"project", "generate", "builder", "binary", "check", "aoti", "repair", "commands"}
CORE = {"__init__", "__main__", "cli", "errors", "files", "record", "resources"}


def test_import_contract_is_kept() -> None:
    pytest.importorskip("importlinter")
    # A subprocess: grimp imports nothing, but runs in the checkout so the contract sees this tree.
    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(REPO / 'pyproject.toml')!r}, no_cache=True))")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_top_level_holds_only_products_and_core() -> None:
    package = REPO / "shimgen"
    modules = {p.stem for p in package.glob("*.py")}
    packages = {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    assert modules == CORE, f"top-level modules outside the core: {sorted(modules - CORE)}"
    assert packages == PRODUCTS, f"unexpected subpackages: {sorted(packages ^ PRODUCTS)}"
