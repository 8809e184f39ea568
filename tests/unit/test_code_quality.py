"""The code passes the linter and the type checker configured in pyproject.toml ([tool.ruff], [tool.mypy]),
and the runtime's C++/CUDA sources follow .clang-format."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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


def _runtime_sources() -> list[str]:
    """The runtime's C/C++/CUDA files but the generated ones, whose first line says "do not edit" (their
    generator lays them out; shim_cuda_ops.h's generated block is fenced by clang-format off/on)."""
    suffixes = {".c", ".cpp", ".h", ".cu", ".cuh"}
    return sorted(str(path.relative_to(REPO)) for path in (REPO / "shimgen" / "runtime").rglob("*")
                  if path.suffix in suffixes
                  and "do not edit" not in path.read_text(errors="replace").partition("\n")[0].lower())


def test_runtime_sources_follow_clang_format():
    clang_format = pytest.importorskip("clang_format", reason="the clang-format wheel ([test] extra)")
    sources = _runtime_sources()
    assert len(sources) > 250, "the runtime's sources were not found"
    result = subprocess.run([clang_format.get_executable("clang-format"), "--dry-run", "-Werror", *sources],
                            cwd=REPO, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr[-6000:]
