"""The code passes the linter and the type checker configured in pyproject.toml ([tool.ruff], [tool.mypy])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, check=False)


def test_ruff_finds_nothing():
    result = _run("ruff", "check", "shimgen", "tests", "benchmarks", "scripts")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def test_mypy_finds_nothing():
    result = _run("mypy")  # files and options from [tool.mypy]
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "Success" in result.stdout
