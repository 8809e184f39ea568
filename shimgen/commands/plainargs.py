"""The plain forms of a command line, parsed from the parser's own declarations without argparse.

``shimgen.cli`` declares every option once (``_declare``): to argparse, or to ``Parser`` here, which
records the same calls (``add_argument``, ``add_subparsers``, ``add_parser``,
``add_mutually_exclusive_group``, ``set_defaults``) and parses only a line argparse would read in
exactly one way: the command first, then options spelled exactly (``--prefix P``, ``-o FILE``;
no abbreviation, no ``--opt=value``, no bundled short flags, no value starting with '-') and one run
of positional words. For anything else (``--help``, ``--version``, an option before the command,
``--``, a bad choice or value, a missing path, two options of one exclusive group) ``parse`` returns
None and argparse parses the line, with its messages. ``tests/unit/test_plainargs.py`` checks that
both give the same namespace (a ``SimpleNamespace`` here).

Why: ``import argparse`` imports gettext, locale and re (with enum), ~30M instructions: an eighth
of checking libtorch_cpu.so, whose check needs none of them otherwise.
"""

from __future__ import annotations

from types import SimpleNamespace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

SUPPRESS = object()
"""What the declarations pass where argparse gets ``argparse.SUPPRESS``: no default at all."""

_KEYWORDS = frozenset({"action", "type", "choices", "default", "metavar", "help", "dest", "nargs", "required", "version"})


class Unsupported(Exception):
    """A declaration this parser does not read: argparse parses the line."""


class _Action:
    def __init__(self, flags: tuple[str, ...], kwargs: dict[str, Any], group: object) -> None:
        if set(kwargs) - _KEYWORDS or kwargs.get("action", "store") not in ("store", "store_true", "append", "version"):
            raise Unsupported(flags)
        self.flags, self.group = flags, group
        self.kind = kwargs.get("action", "store")
        self.positional = not flags[0].startswith("-")
        if (self.positional and kwargs.get("nargs") != "+") or (not self.positional and "nargs" in kwargs):
            raise Unsupported(flags)
        long = next((f for f in flags if f.startswith("--")), flags[0])
        self.dest = kwargs.get("dest") or (long if self.positional else long.lstrip("-").replace("-", "_"))
        self.type, self.choices, self.required = kwargs.get("type"), kwargs.get("choices"), kwargs.get("required", False)
        default = kwargs.get("default", False if self.kind == "store_true" else None)
        if self.kind == "version" or default == "==SUPPRESS==":
            default = SUPPRESS
        if isinstance(default, str) and self.type is not None:
            raise Unsupported(flags)  # argparse converts such a default: leave it to argparse
        self.default = default

    def value(self, word: str) -> object:
        try:
            value = self.type(word) if self.type is not None else word
        except Exception as exc:  # argparse words the error
            raise Unsupported(self.flags) from exc
        if self.choices is not None and value not in self.choices:
            raise Unsupported(self.flags)
        return value


class Parser:
    """Records one parser's declarations (the subset of argparse.ArgumentParser's API shimgen uses)."""

    def __init__(self, **kwargs: Any) -> None:
        self.actions: list[_Action] = []
        self.defaults: dict[str, object] = {}
        self.choices: dict[str, Parser] = {}
        self.command_dest: str | None = None

    def add_argument(self, *flags: str, _group: object = None, **kwargs: Any) -> None:
        self.actions.append(_Action(flags, kwargs, _group))

    def add_mutually_exclusive_group(self, **kwargs: Any) -> _Group:
        if kwargs.get("required"):
            raise Unsupported("a required group")
        return _Group(self)

    def set_defaults(self, **kwargs: object) -> None:
        if any(a.dest in kwargs for a in self.actions):
            raise Unsupported(tuple(kwargs))
        self.defaults.update(kwargs)

    def add_subparsers(self, *, dest: str, parser_class: type[Parser], **kwargs: Any) -> Parser:
        self.command_dest = dest
        return self

    def add_parser(self, name: str, **kwargs: Any) -> Parser:
        if kwargs.get("aliases"):
            raise Unsupported(name)
        self.choices[name] = Parser(**kwargs)
        return self.choices[name]

    def __getattr__(self, name: str) -> Any:  # anything else argparse offers
        raise Unsupported(name)


class _Group:
    def __init__(self, parser: Parser) -> None:
        self.parser = parser

    def add_argument(self, *flags: str, **kwargs: Any) -> None:
        self.parser.add_argument(*flags, _group=self, **kwargs)


def parse(parser: Parser, words: Sequence[str]) -> SimpleNamespace | None:
    """The namespace argparse would give for ``words``, or None where this parser leaves the line
    to argparse (raises Unsupported for a declaration it does not read)."""
    if not words or words[0] not in parser.choices or parser.command_dest is None:
        return None  # an option before the command, or no command
    values = _defaults(parser)
    values[parser.command_dest] = words[0]
    sub = _parse(parser.choices[words[0]], words[1:])
    if sub is None:
        return None
    values.update(sub)
    return SimpleNamespace(**values)


def _defaults(parser: Parser) -> dict[str, object]:
    values = {a.dest: a.default for a in parser.actions if a.default is not SUPPRESS}
    for name, value in parser.defaults.items():
        values.setdefault(name, value)
    return values


def _parse(parser: Parser, words: Sequence[str]) -> dict[str, object] | None:
    options = {flag: action for action in parser.actions if not action.positional for flag in action.flags}
    positional = [a for a in parser.actions if a.positional]
    if len(positional) > 1:
        raise Unsupported("positionals")
    values: dict[str, object] = {}
    seen: dict[object, _Action] = {}
    paths: list[str] = []
    ended = False  # the run of positional words is over once an option follows it
    at = 0
    while at < len(words):
        word = words[at]
        if not word.startswith("-"):
            if ended or not positional:
                return None
            paths.append(word)
            at += 1
            continue
        action = options.get(word)
        if action is None or action.kind == "version":
            return None  # --help, an abbreviation, --opt=value, -vq, '--', '-', a negative number
        ended = bool(paths)
        if action.group is not None and seen.setdefault(action.group, action) is not action:
            return None  # two options of one exclusive group: argparse's error
        if action.kind == "store_true":
            values[action.dest] = True
            at += 1
            continue
        if at + 1 >= len(words) or words[at + 1].startswith("-"):
            return None
        value = action.value(words[at + 1])
        if action.kind == "append":
            values[action.dest] = [*(values.get(action.dest) or action.default or []), value]  # type: ignore[misc]
        else:
            values[action.dest] = value
        at += 2
    if any(a.required and a.dest not in values for a in parser.actions):
        return None
    if positional:
        if not paths:
            return None
        values[positional[0].dest] = [positional[0].value(p) for p in paths]
    return {**_defaults(parser), **values}
