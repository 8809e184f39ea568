"""Shared by the collision tests: the impostor, the probe subprocess, and libtorch_cpu.so's path."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = Path(__file__).with_name("collision_probe.py")

# The impostor returns values that differ from the real shims (6, 4, 0), so behaviour tells the two
# apart as well as dladdr() does.
IMPOSTOR_SOURCE = """
#include <stdint.h>
int32_t aoti_torch_dtype_float32(void) { return 1006; }
int32_t aoti_torch_dtype_int64(void) { return 1004; }
int32_t aoti_torch_device_type_cpu(void) { return 1000; }
"""
SHIM_RESULT = 6 * 100 + 4 * 10 + 0
IMPOSTOR_RESULT = 1006 * 100 + 1004 * 10 + 1000


def probe(plugin: Path, *, global_libs: tuple[Path, ...] = (), local_libs: tuple[Path, ...] = ()) -> dict:
    command = [sys.executable, str(PROBE)]
    command += [arg for lib in global_libs for arg in ("--global", str(lib))]
    command += [arg for lib in local_libs for arg in ("--local", str(lib))]
    command.append(str(plugin))
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"probe crashed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return json.loads(result.stdout.strip().splitlines()[-1])


def same_file(a: str, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def libtorch_cpu_path() -> Path | None:
    spec = importlib.util.find_spec("torch")  # no import: only the library file is needed
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "lib" / "libtorch_cpu.so"
    return path if path.is_file() else None
