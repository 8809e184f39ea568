"""Where shimgen's data lives: beside the installed package, or in a source checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent
_CHECKOUT_DIR = _PACKAGE_DIR.parent


def _data_dir(name: str) -> Path:
    # A wheel installs the data inside the package; a checkout (or editable install) has it at
    # the repository root.
    for candidate in (_PACKAGE_DIR / name, _CHECKOUT_DIR / name):
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
    """The bundled config describing the shims ``runtime/`` implements."""
    return runtime_dir() / "shimgen.toml"
