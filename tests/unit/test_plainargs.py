"""shimgen.commands.plainargs parses the plain forms of a command line from the same declarations argparse
gets, into the namespace argparse gives; every other form it leaves to argparse (None)."""

from __future__ import annotations

import shlex

import pytest

from shimgen.cli import _declare, build_parser, parse
from shimgen.commands import plainargs

LINES = [
    "check-symbols --prefix p_ lib.so",
    "check-symbols lib.so --prefix executorch_ --pattern aoti_torch_*",
    "check-symbols a.so ./b.so //c/./d.so --prefix p_ --pattern x* --pattern y* --strict -v",
    "check-symbols --manifest m.json --required aoti_torch_a* --format json -o out.json lib.so",
    "check-symbols -c shimgen.toml --format sarif lib.so x.whl",
    "check-symbols --prefix '' lib.so",
    "check-symbols -q --prefix p_ --prefix q_ lib.so",
    "check-symbols --prefix p_ lib.so -v -q",
    "check-symbols --prefix p_ -- lib.so",
    "check-symbols --prefix=p_ lib.so",
    "check-symbols --pre p_ lib.so",
    "check-symbols --prefix p_ --manifest m.json lib.so",
    "check-symbols a.so --prefix p_ b.so",
    "check-symbols --prefix p_",
    "check-symbols --prefix -x lib.so",
    "check-symbols --format xml --prefix p_ lib.so",
    "check-symbols --prefix p_ - ",
    "check-symbols -h",
    "-v check-symbols --prefix p_ lib.so",
    "--debug check-symbols --prefix p_ lib.so",
    "symbols lib.so",
    "symbols --defined lib.so",
    "lint",
    "generate --check",
]


@pytest.mark.parametrize("line", LINES)
def test_same_namespace_as_argparse(line):
    words = shlex.split(line)
    try:
        plain = plainargs.parse(_declare(plainargs.Parser, plainargs.SUPPRESS, words), words)
    except plainargs.Unsupported:
        plain = None
    if plain is None:
        assert line not in LINES[:7]  # the plain forms are parsed here
        return  # argparse parses it (and words any error)
    expected = build_parser(words).parse_args(words)
    assert vars(plain) == vars(expected)


def test_the_benchmark_forms_are_plain():
    for line in LINES[:7]:
        _args, parser = parse(shlex.split(line))
        assert parser is None, line


@pytest.mark.parametrize("line", ["check-symbols -h", "check-symbols --prefix p_", "--version"])
def test_other_forms_go_to_argparse(line, capsys):
    with pytest.raises(SystemExit):
        parse(shlex.split(line))
