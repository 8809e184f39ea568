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
KEPT_OFF = ("logging", "dataclasses", "inspect", "pathlib",
            # argparse (with gettext and locale), re (with enum), json, fnmatch: the plain command
            # line is parsed by shimgen.commands.plainargs, globs and data are read without them.
            "argparse", "gettext", "re", "enum", "json", "fnmatch")

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


def test_a_record_behaves_as_the_frozen_dataclass_it_replaces() -> None:
    import pytest

    from shimgen.record import FrozenRecordError, fields, record, replace

    @record
    class Point:
        x: int
        y: int = 0
        """A field's docstring, as the records carry them."""

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError("x")

    p = Point(1, y=2)
    assert (p.x, p.y, Point(3).y) == (1, 2, 0)
    assert repr(p) == "test_a_record_behaves_as_the_frozen_dataclass_it_replaces.<locals>.Point(x=1, y=2)"
    assert p == Point(1, 2) and p != Point(2, 2) and hash(p) == hash(Point(1, 2)) and len({p, Point(1, 2)}) == 1
    assert replace(p, y=5) == Point(1, 5) and fields(Point) == ("x", "y") == Point.__match_args__
    with pytest.raises(FrozenRecordError):
        p.x = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del p.y  # type: ignore[misc]
    with pytest.raises(ValueError):
        Point(-1)
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        replace(p, z=1)


def test_paths_are_named_as_pathlib_names_them() -> None:
    from pathlib import Path, PurePosixPath

    from shimgen.binary.load import path_name
    from shimgen.check import _suffix

    for word in ("a.whl", "./x", "x//y/", "//x", "///x", "/", "", ".", "..", "a/./b", "./", "//", "x/../y", ".whl",
                 "a.b.zip", "a.", "a..whl", "x.whl/", "d/lib.so.1"):
        assert path_name(word) == str(PurePosixPath(word)), word
        assert _suffix(word) == PurePosixPath(word).suffix, word
    assert path_name(Path("./q/r")) == "q/r"
