"""A non-editable install works outside the checkout: templates, shimgen/cmake/ and shimgen/runtime/ ship in the wheel."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from shimgen import __version__
from tests.support import REPO, nested_venv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def installed_venv(tmp_path_factory) -> Path:
    """A fresh venv (reusing the running interpreter's packages for speed, tests.support.nested_venv)
    with shimgen installed from the checkout, non-editable."""
    pytest.importorskip("scikit_build_core")
    venv = nested_venv(tmp_path_factory.mktemp("venv"))
    python = venv / "bin" / "python"
    result = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-cache-dir", "-q",
         "--disable-pip-version-check", str(REPO)],
        capture_output=True, text=True, cwd=venv,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return venv


def run_in(venv: Path, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{venv / 'bin'}:{env['PATH']}"
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, cwd=cwd, env=env)


def test_installed_package_is_the_wheel_not_the_checkout(installed_venv, tmp_path):
    result = run_in(installed_venv, installed_venv / "bin" / "python", "-c",
                    "import shimgen, shimgen.resources as r; print(shimgen.__file__); print(r.templates_dir());"
                    "print(r.cmake_dir()); print(r.runtime_dir())", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split()
    assert all(str(installed_venv) in line for line in lines), lines
    assert not any(str(REPO) in line for line in lines)


def test_installed_console_script_generates_from_the_bundled_config(installed_venv, tmp_path):
    out = tmp_path / "out"
    version = run_in(installed_venv, installed_venv / "bin" / "shimgen", "--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.strip() == f"shimgen {__version__}", version.stdout
    # The wheel's metadata took its version from shimgen/__init__.py (pyproject.toml: dynamic).
    metadata = run_in(installed_venv, installed_venv / "bin" / "python", "-c",
                      "import importlib.metadata as m; print(m.version('shimgen'))", cwd=tmp_path)
    assert metadata.stdout.strip() == __version__, metadata.stdout + metadata.stderr
    bundled = run_in(installed_venv, installed_venv / "bin" / "python", "-c",
                     "import shimgen.resources as r; print(r.default_config())", cwd=tmp_path).stdout.strip()
    result = run_in(installed_venv, installed_venv / "bin" / "shimgen", "generate", "-c", bundled, "-o", out,
                    cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "executorch_aoti_torch_empty_strided" in (out / "shimgen.map").read_text()
    cmake_dir = run_in(installed_venv, installed_venv / "bin" / "shimgen", "cmake-dir", cwd=tmp_path).stdout.strip()
    assert Path(cmake_dir).is_dir() and str(installed_venv) in cmake_dir
