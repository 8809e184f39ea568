"""Helpers for tests that build native code: the pip cmake and ninja, a C compiler, and the
cmake-consumer example built against this checkout's CMake package."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "cmake-consumer"
CMAKE_DIR = REPO / "shimgen" / "cmake"


def pip_cmake() -> Path:
    """The cmake of the `cmake` PyPI package (4.x: has $<LINK_LIBRARY:WHOLE_ARCHIVE>)."""
    cmake = pytest.importorskip("cmake", reason="the cmake PyPI package is not installed")
    return Path(cmake.CMAKE_BIN_DIR) / "cmake"


def pip_ninja() -> Path:
    ninja = pytest.importorskip("ninja", reason="the ninja PyPI package is not installed")
    return Path(ninja.BIN_DIR) / "ninja"


def c_compiler() -> str:
    for name in (os.environ.get("CC", ""), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)  # type: ignore[return-value]
    pytest.skip("no C compiler (cc, gcc, clang) on PATH")


def run(command: list[str | os.PathLike], *, cwd: Path | None = None, env: dict | None = None,
        check: bool = True) -> subprocess.CompletedProcess:
    """Run ``command``, capturing output; on failure show the command and its output."""
    result = subprocess.run([str(c) for c in command], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=600)
    if check and result.returncode != 0:
        raise AssertionError(f"command failed ({result.returncode}): {' '.join(map(str, command))}\n"
                             f"--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}")
    return result


@functools.cache
def has_check_symbols() -> bool:
    """Whether this checkout's shimgen has `check-symbols` (merged from another branch)."""
    result = subprocess.run([sys.executable, "-m", "shimgen", "check-symbols", "--help"], cwd=REPO,
                            capture_output=True, text=True, env=python_env())
    return result.returncode == 0


def python_env(extra: dict | None = None) -> dict:
    """The environment with this checkout first on PYTHONPATH."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    env.update(extra or {})
    return env


def configure(source: Path, build: Path, *definitions: str, env: dict | None = None,
              check: bool = True) -> subprocess.CompletedProcess:
    return run([pip_cmake(), "-S", source, "-B", build, "-G", "Ninja",
                f"-DCMAKE_MAKE_PROGRAM={pip_ninja()}", "-DCMAKE_BUILD_TYPE=Release", *definitions],
               env=env, check=check)


def build(build_dir: Path, *, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    return run([pip_cmake(), "--build", build_dir, "-j2"], env=env, check=check)


def build_example(build_dir: Path) -> Path:
    """Configure and build examples/cmake-consumer against this checkout; returns the build dir.
    The symbol checks run when `check-symbols` is available, and are switched off otherwise."""
    checks = "ON" if has_check_symbols() else "OFF"
    configure(EXAMPLE, build_dir, f"-Dshimgen_DIR={CMAKE_DIR}", f"-DSHIMGEN_CHECK_SYMBOLS={checks}",
              env=python_env())
    build(build_dir, env=python_env())
    return build_dir
