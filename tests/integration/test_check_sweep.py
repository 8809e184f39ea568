"""Real-world sweep: every ELF binary in the installed torch, numpy and scipy wheels, checked
together as one set (so the set rules, SG007 above all, see every pair of libraries).

Expected: no error but the SG001s libtorch_cpu.so really has (its plain aoti_torch_* exports,
computed here from nm, never a literal). Notes (SG007 duplicates that are unified, or private
copies no library exports, such as torch's two cpp-httplib copies) do not change the exit code.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from shimgen.check import Policy, check_paths
from tests.integration.test_check_torch import nm_defined
from tests.wheel_sweep import sweep_dirs

pytestmark = pytest.mark.skipif(shutil.which("nm") is None, reason="binutils nm missing")


def wheel_dirs() -> list[Path]:
    try:
        return sweep_dirs()
    except LookupError as missing:
        pytest.skip(f"{missing} is not installed")


def test_torch_numpy_scipy_are_clean_but_for_libtorchs_real_sg001s():
    dirs = wheel_dirs()
    report = check_paths(dirs, Policy.from_options("executorch_", ("aoti_torch_*",)))
    assert len(report.files) > 200  # torch, numpy and scipy ship hundreds of ELF files
    errors = [f for f in report.findings if f.severity != "note"]
    expected = {("SG001", str(lib), name) for lib in (dirs[0] / "lib").glob("*.so*")
                for name in nm_defined(lib) if name.startswith("aoti_torch_")}
    assert expected
    assert {(f.code, f.path, f.symbol) for f in errors} == expected
    assert len(errors) == len(expected)
