"""Real-world: torch 2.13.0 CPU's own libraries (installed from PyPI, never checked in).

- libtorch_cpu.so exports the plain aoti_torch_* shims: check-symbols must report SG001 once for
  each, the expected set computed here from `nm -D --defined-only`, never a literal.
- The fast ELF reader gives exactly the LIEF reader's answer on torch's libraries.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shimgen.binary.elf import image_end, read_elf
from shimgen.binary.lief_reader import read_elf_lief

ROOT = Path(__file__).resolve().parents[2]


def torch_lib() -> Path:
    torch = pytest.importorskip("torch")
    return Path(torch.__file__).parent / "lib"


def nm_defined(path: Path) -> set[str]:
    """Defined dynamic symbols per binutils nm, globally visible (upper case, or 'u' GNU_UNIQUE)."""
    out = subprocess.run(["nm", "-D", "--defined-only", str(path)], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, name = parts[-2], parts[-1]
        if kind.isupper() or kind == "u":
            names.add(name.split("@", 1)[0])
    return names


@pytest.mark.skipif(shutil.which("nm") is None, reason="binutils nm missing")
def test_libtorch_cpu_reports_sg001_once_per_unprefixed_aoti_export():
    lib = torch_lib() / "libtorch_cpu.so"
    if not lib.exists():
        pytest.skip("torch has no libtorch_cpu.so")
    expected = sorted(n for n in nm_defined(lib) if n.startswith("aoti_torch_"))
    assert expected, "nm found no aoti_torch_* export; the test would prove nothing"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "shimgen", "check-symbols", str(lib), "--prefix", "executorch_",
         "--pattern", "aoti_torch_*", "--format", "json"],
        capture_output=True, text=True, env=env)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    sg001 = [f["symbol"] for f in report["findings"] if f["code"] == "SG001"]
    assert sorted(sg001) == expected  # once each: no duplicates, none missing, none extra
    # Besides SG001 only SG010: libtorch_cpu really exports bundled pthreadpool/cpuinfo and BLAS
    # (the names ExecuTorch's threadpool library exports too).
    assert {f["code"] for f in report["findings"]} == {"SG001", "SG010"}
    families = {f["message"] for f in report["findings"] if f["code"] == "SG010"}
    assert any("pthreadpool" in m for m in families), families
    assert report["files"][0]["exports"] == len(nm_defined(lib))


@pytest.mark.parametrize("name", ["libtorch_cpu.so", "libc10.so", "libtorch.so", "libtorch_python.so",
                                  "libshm.so", "libtorch_global_deps.so", "libgomp.so.1"])
def test_fast_reader_equals_lief_on_torch_libraries(name):
    path = torch_lib() / name
    if not path.exists():
        pytest.skip(f"torch has no {name}")
    data = path.read_bytes()
    fast = read_elf(data, str(path), local_tls=True)
    slow = read_elf_lief(data, str(path), local_tls=True)
    for field in ("soname", "needed", "symbolic", "tls_unique", "tls_protected", "tls_hidden"):
        assert getattr(fast, field) == getattr(slow, field), field
    assert fast.exports and fast.kind == slow.kind
    assert fast.exports == slow.exports
    assert fast.imports == slow.imports
    assert fast.tls == slow.tls


@pytest.mark.parametrize("name", ["libc10.so", "libtorch.so", "libshm.so", "libgomp.so.1"])
def test_image_end_is_liefs_end_of_image(name):
    """prefix-imports cuts a model's overlay (appended weights) at image_end before LIEF reads it: it
    must be where LIEF itself puts the end of the image, on libraries nobody here linked."""
    import lief

    path = torch_lib() / name
    if not path.exists():
        pytest.skip(f"torch has no {name}")
    # torch's libgomp.so.1 ends in one byte no header describes (its image ends one byte short).
    assert image_end(path.read_bytes(), str(path)) == lief.ELF.parse(str(path)).eof_offset <= path.stat().st_size


def test_the_libtorch_check_never_builds_all_74k_names():
    """The performance shape the benchmark relies on: rules search the string table."""
    from shimgen.binary.load import load_paths
    from shimgen.check import Policy, check_binaries

    lib = torch_lib() / "libtorch_cpu.so"
    if not lib.exists():
        pytest.skip("torch has no libtorch_cpu.so")
    (binary,) = load_paths([lib])
    report = check_binaries([binary], Policy.from_options("executorch_", ("aoti_torch_*",)))
    assert report.findings and not binary.exports.materialized
