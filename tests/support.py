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


def write_loader_inputs(directory: Path, not_a_model: Path) -> Path:
    """The files runtime/tests/leak_tests.cpp `loader_errors` feeds to shimgen_model_open: each one a
    different way a file is not a loadable model (missing.pt2 deliberately absent)."""
    import zipfile

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "empty.pt2").write_bytes(b"")
    (directory / "text.pt2").write_text("not an archive, not an ELF file\n")
    member = "model/data/aotinductor/model/abc.wrapper.so"
    with zipfile.ZipFile(directory / "nomodel.pt2", "w", zipfile.ZIP_STORED) as z:
        z.writestr("model/data/constants/x.txt", "no shared object here")
    with zipfile.ZipFile(directory / "deflated.pt2", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(member, not_a_model.read_bytes())
    with zipfile.ZipFile(directory / "twomodels.pt2", "w", zipfile.ZIP_STORED) as z:
        z.writestr("model/data/aotinductor/a/a.wrapper.so", b"\x7fELF")
        z.writestr("model/data/aotinductor/b/b.wrapper.so", b"\x7fELF")
    with zipfile.ZipFile(directory / "notmodel.pt2", "w", zipfile.ZIP_STORED) as z:
        z.writestr(member, not_a_model.read_bytes())
    whole = (directory / "notmodel.pt2").read_bytes()
    (directory / "corrupt.pt2").write_bytes(whole[: len(whole) - 30])  # cut inside the central directory
    (directory / "broken.so").write_bytes(b"\x7fELF" + bytes(60))     # extracted, then dlopen fails
    shutil.copy(not_a_model, directory / "notmodel.so")                # loads, has no container API
    return directory


def load_script(name: str):
    """A script of scripts/ imported as a module (its ``main`` not run), for tests of generators."""
    import importlib.util

    path = REPO / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
