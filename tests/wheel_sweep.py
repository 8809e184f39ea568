"""The real-binary sweep's file set, one definition for the test and the benchmark: the installed
torch, numpy and scipy packages, each with auditwheel's vendored ``<name>.libs`` where present."""

from __future__ import annotations

import importlib.util
from pathlib import Path

MODULES = ("torch", "numpy", "scipy")


def sweep_dirs() -> list[Path]:
    """The directories to sweep; LookupError names the first module that is not installed."""
    dirs: list[Path] = []
    for module in MODULES:
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            raise LookupError(module)
        root = Path(spec.submodule_search_locations[0])
        libs = root.parent / f"{module}.libs"
        dirs += [root, libs] if libs.is_dir() else [root]
    return dirs
