"""Hostile .pt2 packages built here: a package is data, so nothing in it runs and nothing it names is
written outside the outputs (issue 19, items 1 and 5)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CC = shutil.which("gcc") or shutil.which("cc")
pytestmark = pytest.mark.skipif(CC is None or shutil.which("g++") is None, reason="needs gcc and g++")
MODEL_DIR = "m/data/aotinductor/model"


def _shimgen(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shimgen", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=_env())


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    env.pop("CXX", None)
    return env


@pytest.fixture(scope="module")
def model_so(tmp_path_factory) -> bytes:
    """A real shared library standing in for the model .so (its constants are read before any compile)."""
    tmp = tmp_path_factory.mktemp("so")
    (tmp / "m.c").write_text("int model_entry(void) { return 1; }\n")
    subprocess.run([CC, "-shared", "-fPIC", str(tmp / "m.c"), "-o", str(tmp / "m.so")], check=True)
    return (tmp / "m.so").read_bytes()


def _package(path: Path, so: bytes, comment: str) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{MODEL_DIR}/m.wrapper.so", so)
        archive.writestr(f"{MODEL_DIR}/m.wrapper.cpp", f"int x;\n// {comment}\n")
    return path


@pytest.mark.parametrize("comment, compiler", [
    ("bash -ec 'touch {marker}' x.cpp -c -o x.o", None),
    ("g++ x.cpp -wrapper sh,-c,'touch {marker}' -c -o x.o", "g++"),
    ("sh -c 'touch {marker}' x.cpp -c -o x.o", "g++"),
    ("g++ x.cpp '-fplugin={marker}.so' -c -o x.o", None),
])
def test_recompile_runs_nothing_the_package_says(tmp_path, model_so, comment, compiler):
    marker = tmp_path / "marker"
    package = _package(tmp_path / "evil.pt2", model_so, comment.format(marker=marker))
    args = ["recompile", str(package), "-o", str(tmp_path / "out.so")] + (["--compiler", compiler] if compiler else [])
    done = _shimgen(*args)
    assert not marker.exists(), "the package's command ran"
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("shimgen: error:") and "allow-list" in lines[0], done.stderr
    assert not (tmp_path / "out.so").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evil.pt2"]  # no scratch left behind
