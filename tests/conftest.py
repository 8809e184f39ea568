"""Shared fixtures: run the CLI in-process, write configs, find tools."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def run_cli(capsys):
    """Call shimgen.cli.main in-process and capture its exit code and output."""
    from shimgen.cli import main

    def run(*argv: str) -> CliResult:
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def run_shimgen(*argv: str, cwd: Path | None = None, **kwargs) -> subprocess.CompletedProcess:
    """Run shimgen in a fresh interpreter (for crash/traceback checks)."""
    return subprocess.run(
        [sys.executable, "-m", "shimgen", *map(str, argv)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "PYTHONPATH": str(REPO)},
        **kwargs,
    )


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


@pytest.fixture
def write_config(tmp_path):
    """Write a shimgen.toml (and any extra files) into tmp_path; return its path."""

    def write(body: str, name: str = "shimgen.toml", files: dict[str, str] | None = None) -> Path:
        for relative, text in (files or {}).items():
            target = tmp_path / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        path = tmp_path / name
        path.write_text(body)
        return path

    return write


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", help="rewrite golden files from current output")


@pytest.fixture
def update_golden(request) -> bool:
    return bool(request.config.getoption("--update-golden"))
