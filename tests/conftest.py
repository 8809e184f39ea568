"""Shared fixtures: run the CLI in-process, write configs, golden-file updates."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def run_cli(capsys):
    """Call shimgen.cli.main in-process and capture its exit code and output."""
    from shimgen.cli import main

    def run(*argv) -> CliResult:
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


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
