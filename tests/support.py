"""Helpers shared by test modules (import as `from tests.support import ...`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def run_shimgen(*argv, cwd: Path | None = None, env_extra: dict[str, str] | None = None,
                **kwargs) -> subprocess.CompletedProcess:
    """Run shimgen in a fresh interpreter (for crash/traceback checks); ``env_extra`` adds variables."""
    return subprocess.run(
        [sys.executable, "-m", "shimgen", *map(str, argv)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env_extra or {})},
        **kwargs,
    )


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path
