"""The compile flags recompile takes from a package: an allow-list, because a package is data.

torch records the command it compiled a model's ``.cpp`` with in a comment at the end of the file.
That comment is written by whoever made the package, so nothing in it is run as given: the
compiler comes from the user (``--compiler``, ``$CXX``, ``g++``), and each flag must be one of the
kinds torch's own compile emits (``-I``, ``-D``, ``-O``, ``-std``, ``-f…``, ``-m…``, ``-W…``,
``-g…``) with a value of a vetted shape. Options that load code into the compiler, hand arguments to
another program, or read or write files of their own choosing (``-wrapper``, ``-B``, ``-specs``,
``@file``, ``-fplugin``, clang's ``-fpass-plugin``, ``-Xlinker``, ``-Wl,``, ``-fdump-…``, ``-fprofile-…``,
``-ftime-trace=DIR``, a value ``.`` or ``..``) are refused with one
line; so is any word that is not an option. Pure functions over the comment's text.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from shimgen.errors import InputError

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DEFINE_VALUE = re.compile(r"[A-Za-z0-9_.+-]*")

ALLOWED = (
    re.compile(r"-O[0-3sgz]?|-Ofast"),
    re.compile(r"-std=(c|gnu)\+\+[0-9][0-9a-z]"),
    re.compile(r"-f(no-)?[A-Za-z0-9][A-Za-z0-9+-]*(=[A-Za-z0-9_+-][A-Za-z0-9_.+-]*)?"),  # no value '.' or '..'
    re.compile(r"-m(no-)?[a-z0-9][a-z0-9-]*(=[A-Za-z0-9_+-][A-Za-z0-9_.+-]*)?"),
    re.compile(r"-W(no-)?[a-z][a-z0-9+-]*(=[a-z0-9+-]+)?"),  # no comma: -Wl, -Wa, -Wp pass arguments on
    re.compile(r"-g([0-3]|db|line-tables-only)?"),
    re.compile(r"-pedantic|-pthread|-w"),
)
"""The shapes a flag may take (full match); ``-I`` and ``-D`` are checked by their own functions."""

REFUSED_FAMILIES = (
    "-fplugin", "-fprofile", "-fauto-profile", "-fcreate-profile", "-fdump", "-fsave-optimization-record",
    "-fstack-usage", "-fcallgraph-info", "-fopt-info", "-fdiagnostics", "-fcompare-debug", "-ftest-coverage",
    "-fcoverage", "-fuse-ld", "-fdebug-prefix-map", "-ffile-prefix-map", "-fmacro-prefix-map", "-frecord",
    "-mllvm", "-fdeps", "-fmodule", "-fself-test", "-fltrans", "-fresolution", "-fwpa", "-fada-spec",
    # Clang: a pass plugin is dlopened by the compiler; the others read or write files they name.
    "-fpass-plugin", "-ftime-trace", "-fcrash-diagnostics", "-fproc-stat-report", "-foffload", "-fembed-offload",
    "-fthinlto-index", "-fsanitize-ignorelist", "-fsanitize-blacklist", "-fsanitize-coverage-allowlist",
    "-fsanitize-coverage-ignorelist", "-fxray-attr-list", "-fxray-always-instrument", "-fxray-never-instrument",
    "-frandomize-layout-seed-file", "-fprebuilt-module", "-fcs-profile", "-fmemory-profile", "-fbasic-block-sections",
    "-fapinotes", "-fvtv", "-freport-bug", "-fintegrated-cc1", "-fno-integrated-cc1",
)
"""Shapes that match ``ALLOWED`` but load code or name files of their own (prefixes)."""

DROPPED_WITH_VALUE = ("-o", "-include")
"""Names files on the machine that compiled the package (its output, torch's precompiled header)."""


@dataclass(frozen=True)
class CompileFlags:
    recorded_compiler: str
    """What the package names as its compiler: logged, never run."""
    flags: tuple[str, ...]


def recorded_command(source_text: str, source_name: str) -> list[str]:
    """The words of the compile command torch recorded at the end of a generated .cpp."""
    for line in reversed(source_text.splitlines()):
        if line.startswith("// ") and ".cpp " in line and " -c " in line and " -shared" not in line:
            try:
                return shlex.split(line[3:])
            except ValueError as exc:
                raise InputError(f"{source_name}: unreadable compile command ({exc})") from None
    raise InputError(f"{source_name}: no compile command recorded in the generated source")


def _include_dir(value: str, is_dir: Callable[[Path], bool]) -> str | None:
    """``-I<dir>`` for an absolute directory that exists here (resolved); None for one that does not,
    or a relative one (relative to a directory on the machine that compiled the package)."""
    path = Path(value)
    if not path.is_absolute():
        return None
    resolved = path.resolve()
    return f"-I{resolved}" if is_dir(resolved) else None


def _define(value: str, where: str) -> str:
    name, _, definition = value.partition("=")
    if not IDENTIFIER.fullmatch(name) or not DEFINE_VALUE.fullmatch(definition):
        raise InputError(f"{where}: -D{value} is not a plain NAME or NAME=VALUE definition")
    return f"-D{value}"


def _vet(token: str, where: str) -> str:
    if token.startswith(REFUSED_FAMILIES) or not any(shape.fullmatch(token) for shape in ALLOWED):
        raise InputError(f"{where}: compile flag {token!r} is not on recompile's allow-list "
                         "(-I, -D, -O, -std, -f…, -m…, -W…, -g; see docs/aoti.md)")
    return token


def vetted_flags(source_text: str, source_name: str, *,
                 is_dir: Callable[[Path], bool] = Path.is_dir) -> CompileFlags:
    """The flags of the recorded command that recompile passes on: each vetted, include directories
    that do not exist here dropped, the files it named (source, output, precompiled header) left out.

    Raises InputError naming the first word that is not allowed."""
    words = recorded_command(source_text, source_name)
    where = f"{source_name}: recorded compile command"
    flags: list[str] = []
    seen_source = False
    rest = iter(words[1:])
    for token in rest:
        if token == "-c":
            continue  # added back by the caller
        if token in DROPPED_WITH_VALUE:
            next(rest, None)
        elif token in ("-I", "-D"):
            value = next(rest, "")
            flag = _include_dir(value, is_dir) if token == "-I" else _define(value, where)
            flags.extend([flag] if flag else [])
        elif token.startswith("-I"):
            flag = _include_dir(token[2:], is_dir)
            flags.extend([flag] if flag else [])
        elif token.startswith("-D"):
            flags.append(_define(token[2:], where))
        elif token.endswith(".cpp") and not token.startswith(("-", "@")) and not seen_source:
            seen_source = True  # the source on the machine that compiled it; the caller names ours
        else:
            flags.append(_vet(token, where))
    return CompileFlags(words[0] if words else "", tuple(flags))
