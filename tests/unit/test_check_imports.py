"""check-symbols' start-up cost is part of its speed target (issue 20: libtorch_cpu.so against
``nm -D``): the check path must not import what it does not use. Each module kept off it here
cost milliseconds of every run, measured (see docs/check-symbols.md, Performance)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Modules the check path of ``check-symbols --prefix P FILE`` (an ELF file) must not import.
KEPT_OFF = ("logging",)

CHILD = """
import io, sys, contextlib
from shimgen.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["check-symbols", "--prefix", "p_", sys.argv[1]])
print(code, *sorted(m for m in {kept!r} if m in sys.modules))
"""


def test_check_symbols_on_an_elf_file_imports_none_of_the_heavy_modules() -> None:
    out = subprocess.run([sys.executable, "-c", CHILD.format(kept=KEPT_OFF), sys.executable], cwd=ROOT,
                         capture_output=True, text=True, check=True, env={"PYTHONPATH": str(ROOT)}).stdout.split()
    assert out[0] in ("0", "1"), out
    assert out[1:] == [], f"imported on the check path: {out[1:]}"


def test_the_readers_and_the_rules_never_log() -> None:
    """shimgen.cli skips the logger set-up for check-symbols with --prefix/--manifest because
    nothing on that path logs; a module there that imported logging would log unformatted."""
    for package in ("binary", "check"):
        for path in sorted((ROOT / "shimgen" / package).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                assert not any(n == "logging" or n.startswith("logging.") for n in names), path
