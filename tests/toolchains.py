"""Cross toolchains for the tests' PE, Mach-O and foreign-ELF fixtures, installable by pip.

The PyPI `ziglang` package (in the `[test]` extra) ships `zig cc`: clang plus lld, with target
support for Windows (lld-link), macOS (ld64.lld) and every ELF architecture. So the tests build
real DLLs, dylibs and objects on any machine that has the test extra, with no apt packages.

Every link passes -nostdlib: a fixture needs its own exports and imports, not a C runtime, and
without it zig would first build the target's libc (about a minute for MinGW's). zig caches what
it compiles; the cache here is one temporary directory per test session, removed at exit.

No lipo ships with zig, so `fat_macho` writes the fat container itself from two zig-built slices:
the format is fixed and small (Apple's <mach-o/fat.h>: a big-endian header, one `fat_arch` per
slice, each slice at an aligned offset), and LIEF parses the result like lipo's.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

PE_TARGET = "x86_64-windows-gnu"
MACHO_TARGETS = {"x86_64": "x86_64-macos", "arm64": "aarch64-macos"}
INSTALL_HINT = "python -m pip install ziglang (it is in shimgen's [test] extra)"

FAT_MAGIC = 0xCAFEBABE
MACHO_MAGIC_64 = 0xFEEDFACF
FAT_ALIGN = 14  # 2**14: the arm64 page size, which also satisfies x86_64's 4 KiB pages

_cache: Path | None = None


def has_zig() -> bool:
    return importlib.util.find_spec("ziglang") is not None


def require_zig() -> None:
    if not has_zig():
        pytest.skip(f"zig is not installed: {INSTALL_HINT}")


def _env() -> dict[str, str]:
    global _cache
    if _cache is None:
        _cache = Path(tempfile.mkdtemp(prefix="shimgen-tests-zig-"))
        atexit.register(shutil.rmtree, _cache, ignore_errors=True)
    return {**os.environ, "ZIG_GLOBAL_CACHE_DIR": str(_cache), "ZIG_LOCAL_CACHE_DIR": str(_cache)}


def zig_cc(target: str, *args: str | os.PathLike[str]) -> None:
    """Run `zig cc -target <target> ...`; a failure raises with the compiler's own message."""
    command = [sys.executable, "-m", "ziglang", "cc", "-target", target, "-fno-sanitize=all", *map(str, args)]
    result = subprocess.run(command, capture_output=True, text=True, env=_env(), check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")


def pe_dll(source: Path, output: Path, *link: str | os.PathLike[str]) -> Path:
    """A PE32+ DLL for x86-64 Windows (lld-link). Without any dllexport, nothing is exported;
    with one, only the marked names are, without a leading underscore (x64)."""
    zig_cc(PE_TARGET, "-shared", "-nostdlib", "-Wl,--no-entry", source, "-o", output, *link)
    return output


def macho_dylib(source: Path, output: Path, arch: str = "x86_64") -> Path:
    """A Mach-O dylib (ld64.lld); its unresolved names stay imports, bound at load time."""
    zig_cc(MACHO_TARGETS[arch], "-shared", "-nostdlib", source, "-o", output, "-Wl,-undefined,dynamic_lookup")
    return output


def macho_object(source: Path, output: Path, arch: str = "x86_64") -> Path:
    zig_cc(MACHO_TARGETS[arch], "-c", source, "-o", output)
    return output


def bitcode_object(source: Path, output: Path) -> Path:
    """An LLVM bitcode object, as `-flto -c` leaves it (no machine code, no symbol table)."""
    zig_cc("x86_64-linux-gnu", "-flto", "-c", source, "-o", output)
    return output


def fat_macho(slices: Sequence[Path], output: Path) -> Path:
    """A universal (fat) Mach-O holding each thin 64-bit slice, as `lipo -create` would write it."""
    datas = [path.read_bytes() for path in slices]
    header = struct.pack(">II", FAT_MAGIC, len(datas))
    alignment = 1 << FAT_ALIGN
    offset = -(-(8 + 20 * len(datas)) // alignment) * alignment
    arches, body = [], bytearray()
    for path, data in zip(slices, datas):
        magic, cputype, cpusubtype = struct.unpack_from("<III", data, 0)
        if magic != MACHO_MAGIC_64:
            raise ValueError(f"{path} is not a thin little-endian 64-bit Mach-O file")
        arches.append(struct.pack(">IIIII", cputype, cpusubtype, offset, len(data), FAT_ALIGN))
        body += bytes(offset - (8 + 20 * len(datas)) - len(body)) + data
        offset = -(-(offset + len(data)) // alignment) * alignment
    output.write_bytes(header + b"".join(arches) + body)
    return output


def coff_object(target: str, source: Path, output: Path, *flags: str) -> Path:
    """A COFF object (.obj) for a Windows target: x86_64-windows-msvc, x86_64-windows-gnu (MinGW's
    conventions), x86-windows-msvc (i386, whose C names carry a leading underscore)."""
    zig_cc(target, "-c", *flags, source, "-o", output)
    return output


def zig_tool(tool: str, *args: str | os.PathLike[str], cwd: Path | None = None) -> None:
    """Run one of zig's LLVM tools (`ar`, `lib`: llvm-ar and llvm-lib), raising with its message.
    llvm-lib names each member by the path it was given: run it in the objects' directory."""
    command = [sys.executable, "-m", "ziglang", tool, *map(str, args)]
    result = subprocess.run(command, capture_output=True, text=True, env=_env(), check=False, cwd=cwd)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}{result.stdout}")
