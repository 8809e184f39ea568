"""Config keys as data: each key is a dataclass field carrying its TOML type, default, doc and checks.

``key()`` attaches that metadata to a field; ``keys_of(SomeTable)`` reads it back as ``Key`` records.
Generic code over those records validates a TOML table (shimgen.project.config), and writes the
README tables and the JSON schema (shimgen.project.config_docs), so docs, schema and code cannot drift.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union

_META = "shimgen.key"


@dataclass(frozen=True)
class Context:
    """What a value check may look at besides the value itself."""

    name: str
    """The key's dotted name, e.g. 'outputs.dir'."""
    prefix: str
    """The configured prefix when it is a string, else ''."""
    root: Path
    """The config file's directory."""


Check = Callable[[Any, Context], Iterable[str]]
"""A value check: yields one message per problem with an already type-checked value."""


@dataclass(frozen=True)
class Kind:
    """How one TOML type is recognised, converted to the Config's Python value and described."""

    accepts: Callable[[Any], bool]
    convert: Callable[[Any], Any]
    mismatch: str
    """The message when the value has the wrong type; ``{name}`` and ``{type}`` are filled in."""
    schema: Mapping[str, Any]

    def show(self, value: Any) -> str:
        """A default as the README shows it."""
        if isinstance(value, tuple):
            return "`[" + ", ".join(f'"{item}"' for item in value) + "]`"
        if isinstance(value, bool):
            return f"`{str(value).lower()}`"
        return f"`{value}`"


def _is_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


STRING = Kind(lambda v: isinstance(v, str), str, "must be a string, not {type}", {"type": "string"})
STRINGS = Kind(_is_strings, tuple, "must be a list of strings", {"type": "array", "items": {"type": "string"}})
BOOL = Kind(lambda v: isinstance(v, bool), bool, "must be true or false", {"type": "boolean"})
FILE_OR_FALSE = Kind(
    lambda v: v is False or isinstance(v, str),
    lambda v: None if v is False else v,  # false switches the output off
    "'{name}' must be a plain file name or false",
    {"anyOf": [{"type": "string"}, {"const": False}]},
)


def _choice(options: tuple[str, ...]) -> Kind:
    listed = ", ".join(f"'{option}'" for option in options)
    return Kind(
        lambda v: isinstance(v, str) and v in options, str, f"must be one of {listed}", {"enum": list(options)}
    )


@dataclass(frozen=True)
class Key:
    """One accepted key of a config table."""

    name: str
    kind: Kind
    default: Any
    """The value when the key is absent (already converted); ignored when ``required``."""
    doc: str
    """One line for the README table and the schema's description."""
    shown_default: str
    """The README's default column."""
    checks: tuple[Check, ...] = ()
    required: bool = False
    example: str = ""
    """For a required key: a TOML right-hand side shown when it is missing."""
    mismatch: str | None = None
    """A wrong-type message of its own instead of the kind's."""
    schema: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """Extra JSON-schema constraints (pattern, maxLength) that mirror the checks."""

    def type_error(self, dotted: str, value: Any) -> str:
        return (self.mismatch or self.kind.mismatch).format(name=dotted, type=type(value).__name__)


def key(
    doc: str,
    *,
    default: Any = dataclasses.MISSING,
    shown: str | None = None,
    checks: Iterable[Check] = (),
    example: str = "",
    mismatch: str | None = None,
    schema: Mapping[str, Any] | None = None,
    name: str | None = None,
) -> Any:
    """A dataclass field that is a config key. No ``default`` makes the key required; ``name`` is
    the TOML spelling where it is not a Python identifier (``def``)."""
    meta = {
        "name": name,
        "doc": doc,
        "shown": shown,
        "checks": tuple(checks),
        "example": example,
        "mismatch": mismatch,
        "schema": dict(schema or {}),
    }
    return dataclasses.field(default=default, metadata={_META: meta})


def keys_of(table: type) -> dict[str, Key]:
    """The ``Key`` of every field of ``table`` declared with ``key()``, in declaration order."""
    hints = typing.get_type_hints(table)
    found: dict[str, Key] = {}
    for field in dataclasses.fields(table):
        meta = field.metadata.get(_META)
        if meta is None:
            continue
        kind = _kind_of(hints[field.name])
        required = field.default is dataclasses.MISSING
        default = None if required else field.default
        shown = meta["shown"] or ("required" if required else kind.show(default))
        name = meta["name"] or field.name
        found[name] = Key(
            name=name,
            kind=kind,
            default=default,
            doc=meta["doc"],
            shown_default=shown,
            checks=meta["checks"],
            required=required,
            example=meta["example"],
            mismatch=meta["mismatch"],
            schema=meta["schema"],
        )
    return found


def _kind_of(hint: Any) -> Kind:
    """The TOML kind of a field's annotation (``| None`` means 'absent', not a TOML value)."""
    options = set(typing.get_args(hint)) if typing.get_origin(hint) in (Union, types.UnionType) else {hint}
    options.discard(type(None))
    if options == {str}:
        return STRING
    if options == {tuple[str, ...]}:
        return STRINGS
    if options == {bool}:
        return BOOL
    if options == {str, Literal[False]}:
        return FILE_OR_FALSE
    (only,) = options if len(options) == 1 else (None,)
    if typing.get_origin(only) is Literal and all(isinstance(o, str) for o in typing.get_args(only)):
        return _choice(typing.get_args(only))
    raise TypeError(f"no config kind for the annotation {hint!r}; add one in shimgen/project/keys.py")


def read_table(
    table: Mapping[str, Any],
    keys: Mapping[str, Key],
    *,
    table_name: str = "",
    subtables: Iterable[str] = (),
    bad: Callable[[str, str], None],
) -> dict[str, Any]:
    """Type-check and convert every known key of ``table``; the defaults fill in the rest.

    Unknown keys and wrong types are reported through ``bad(key, message)``; a value of the wrong
    type is replaced by its default, so later checks see a well-typed table.
    """
    import difflib

    values = {name: spec.default for name, spec in keys.items()}
    skip = set(subtables)
    for name, value in table.items():
        if name in skip:
            continue
        dotted = f"{table_name}.{name}" if table_name else name
        spec = keys.get(name)
        if spec is None:
            close = difflib.get_close_matches(name, [*keys, *skip], n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            bad(name, f"unknown key '{dotted}'{hint}")
        elif not spec.kind.accepts(value):
            bad(name, spec.type_error(dotted, value))
        else:
            values[name] = spec.kind.convert(value)
    return values


def run_checks(
    values: Mapping[str, Any],
    keys: Mapping[str, Key],
    *,
    table_name: str = "",
    prefix: str,
    root: Path,
    bad: Callable[[str, str], None],
) -> None:
    """Run each key's value checks on its (type-checked) value; an absent optional key is skipped."""
    for name, spec in keys.items():
        value = values[name]
        if value is None:
            continue
        context = Context(name=f"{table_name}.{name}" if table_name else name, prefix=prefix, root=root)
        for check in spec.checks:
            for message in check(value, context):
                bad(name, message)
