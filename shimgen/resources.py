"""Where shimgen's data lives: templates/, cmake/ and runtime/ inside the package, the same in a
source checkout, an editable install and a wheel (docs/layout.md)."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    candidate = _PACKAGE_DIR / name
    if candidate.is_dir():
        return candidate
    raise FileNotFoundError(f"shimgen's {name}/ directory is missing from {_PACKAGE_DIR}; reinstall shimgen")


def templates_dir() -> Path:
    return _data_dir("templates")


def cmake_dir() -> Path:
    """The directory holding shimgenConfig.cmake (what ``shimgen cmake-dir`` prints)."""
    return _data_dir("cmake")


def runtime_dir() -> Path:
    return _data_dir("runtime")


def default_config() -> Path:
    """The bundled config describing the shims ``shimgen/runtime/`` implements."""
    return runtime_dir() / "shimgen.toml"
