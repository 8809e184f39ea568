"""Real-world sweep: every ELF binary in the installed torch, numpy and scipy wheels, checked
together as one set (so the set rules, SG007 above all, see every pair of libraries).

Expected: no error but the SG001s libtorch_cpu.so really has (its plain aoti_torch_* exports,
computed here from nm, never a literal), and SG007 errors only where binutils shows one library
seeing two copies: its copy LOCAL (readelf -s), the other library among its DT_NEEDED (readelf
-d), and a name of the thread-local's namespace imported from it (nm -D). torch 2.13 has one:
libtorch_python.so keeps a LOCAL copy of at::internal::lazy_init_num_threads()'s thread-local
flag while it calls at:: code of libtorch_cpu.so, which keeps its own. Notes (SG007 duplicates that
are unified, or private copies nothing crosses to, such as torch's two cpp-httplib copies) do not
change the exit code. SG010 (bundled libraries) has tests of its own.
"""

from __future__ import annotations

import re
import shutil
import subprocess
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
    errors = [f for f in report.findings if f.code != "SG010"]
    expected = {("SG001", str(lib), name) for lib in (dirs[0] / "lib").glob("*.so*")
                for name in nm_defined(lib) if name.startswith("aoti_torch_")}
    assert expected
    holders: dict[str, set[str]] = {}
    for f in [*report.findings, *report.notes]:
        if f.code == "SG007":
            holders.setdefault(f.symbol, set()).add(f.path)
    expected |= {("SG007", f.path, f.symbol) for f in errors
                 if f.code == "SG007" and _sees_two_copies(f.path, f.symbol, holders[f.symbol] - {f.path})}
    assert {(f.code, f.path, f.symbol) for f in errors} == expected
    assert len(errors) == len(expected)


def _binutils(*args: str) -> str:
    return subprocess.run(list(args), capture_output=True, text=True, check=False).stdout


def _sees_two_copies(binder: str, symbol: str, others: set[str]) -> bool:
    """Independent evidence for an SG007 error: ``binder``'s copy is LOCAL, and it NEEDs another
    holder and imports a name of the symbol's namespace from it (or the reverse)."""
    from shimgen.check.reach import namespace_of  # the rule's definition of a namespace only

    if not re.search(rf"TLS\s+LOCAL\s+\w+\s+\S+\s+{re.escape(symbol)}$", _binutils("readelf", "-W", "-s", binder), re.M):
        return False
    space = namespace_of(symbol)
    for other in others:
        for user, provider in ((binder, other), (other, binder)):
            if Path(provider).name not in re.findall(r"\(NEEDED\).*\[(.+)\]", _binutils("readelf", "-W", "-d", user)):
                continue
            imported = {line.split()[-1] for line in _binutils("nm", "-D", "--undefined-only", user).splitlines()}
            if any(namespace_of(n) == space for n in imported & nm_defined(Path(provider))):
                return True
    return False
