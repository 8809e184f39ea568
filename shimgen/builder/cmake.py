"""Run CMake and Ninja: find them, write the init cache, configure, build.

Knows nothing of shimgen.toml (``build.py`` joins the config to this driver). Prefers the PyPI
``cmake`` and ``ninja`` packages, so no system CMake is needed; falls back to the tools on PATH.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from shimgen.builder.process import run
from shimgen.errors import ToolError, UsageError
from shimgen.files import write_if_changed
from shimgen.generate.cmake_syntax import bracket_argument

INIT_CACHE_NAME = "shimgen-init.cmake"
STAMP_NAME = "shimgen-configured.stamp"
"""sha256 of the init cache the last finished configure used."""
_CACHE_NAME = re.compile(r"[A-Za-z0-9_.+-]+")


@dataclass(frozen=True)
class Tools:
    cmake: Path
    ninja: Path


@dataclass(frozen=True)
class CacheEntry:
    value: str
    type: str = "STRING"


def find_tools() -> Tools:
    """CMake and Ninja: the PyPI packages' binaries first, then PATH."""
    cmake = _package_binary("cmake", "CMAKE_BIN_DIR", "cmake") or _which("cmake")
    ninja = _package_binary("ninja", "BIN_DIR", "ninja") or _which("ninja")
    if cmake is None:
        raise ToolError("CMake not found. Try: python -m pip install cmake")
    if ninja is None:
        raise ToolError("Ninja not found. Try: python -m pip install ninja")
    return Tools(cmake=cmake, ninja=ninja)


def _package_binary(module: str, attribute: str, name: str) -> Path | None:
    try:
        package = __import__(module)
        directory = Path(getattr(package, attribute))
    except (ImportError, AttributeError, TypeError):
        return None
    candidate = directory / (name + (".exe" if os.name == "nt" else ""))
    return candidate if candidate.is_file() else None


def _which(name: str) -> Path | None:
    found = shutil.which(name)
    return Path(found) if found else None


def init_cache_text(entries: Mapping[str, CacheEntry]) -> str:
    """An init-cache script (cmake -C). FORCE so a changed option reaches an existing cache too.

    Values are bracket arguments, so ``$``, ``;``, quotes and backslashes in a path arrive as
    written. A line break cannot: CMakeCache.txt holds one entry per line."""
    lines = ["# written by shimgen build; passed to cmake -C"]
    for name in sorted(entries):
        entry = entries[name]
        if not _CACHE_NAME.fullmatch(name):
            raise UsageError(f"CMake cache entry name '{name}' is not a plain variable name (letters, digits, _ . + -)")
        if "\n" in entry.value or "\r" in entry.value:
            raise UsageError(f"CMake cache entry {name} contains a line break, which a CMake cache cannot hold")
        value = entry.value
        if os.name == "nt" and entry.type in ("PATH", "FILEPATH"):
            value = value.replace("\\", "/")  # CMake's own separator; elsewhere a backslash is a name character
        lines.append(f'set({name} {bracket_argument(value)} CACHE {entry.type} "" FORCE)')
    return "\n".join(lines) + "\n"


def write_init_cache(build_dir: Path, entries: Mapping[str, CacheEntry]) -> tuple[Path, bool]:
    """Write the init cache; returns its path and whether it changed."""
    path = build_dir / INIT_CACHE_NAME
    return path, write_if_changed(path, init_cache_text(entries).encode())


def is_configured(build_dir: Path, init_cache: Path) -> bool:
    """True when CMake's cache and build.ninja exist and the last configure that *finished* used
    exactly ``init_cache``'s present bytes (the stamp). A configure killed midway leaves the new
    init cache beside the old CMake cache and no matching stamp, so the next run configures again
    instead of building with the old options."""
    if not ((build_dir / "CMakeCache.txt").is_file() and (build_dir / "build.ninja").is_file()):
        return False
    try:
        return (build_dir / STAMP_NAME).read_text() == _digest(init_cache)
    except (OSError, UnicodeDecodeError):
        return False


def configure(tools: Tools, source_dir: Path, build_dir: Path, init_cache: Path, *, stream: bool = True) -> None:
    """``stream``: CMake's output goes to the terminal as it comes; else it is captured (logged at DEBUG).

    The stamp goes first and comes back only after CMake succeeded (see ``is_configured``)."""
    (build_dir / STAMP_NAME).unlink(missing_ok=True)
    run([tools.cmake, "-S", source_dir, "-B", build_dir, "-G", "Ninja", "-C", init_cache], stream=stream)
    write_if_changed(build_dir / STAMP_NAME, _digest(init_cache).encode())


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() + "\n"


def build(tools: Tools, build_dir: Path, *, jobs: int | None = None, stream: bool = True) -> None:
    command: list[str | os.PathLike[str]] = [tools.cmake, "--build", build_dir]
    if jobs:
        command += ["-j", str(jobs)]
    run(command, stream=stream)
