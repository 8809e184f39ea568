"""CMake source text for values that must arrive exactly as given.

A bracket argument (``[==[...]==]``) is CMake's one literal form: no ``${}`` expansion, no escape
sequences, and ``;`` stays a character of the value rather than splitting it into list items
(until the value is later used unquoted). Hand quoting with ``"..."`` gets all three wrong for a
path like ``/tmp/a $x; b``.
"""

from __future__ import annotations


def bracket_argument(value: str) -> str:
    """``value`` as a CMake bracket argument whose closing bracket cannot occur inside it.

    Raises ValueError for a carriage return, which CMake's reader folds into the line ending."""
    if "\r" in value:
        raise ValueError(f"a CMake argument cannot hold a carriage return: {value!r}")
    length = 0
    while True:
        close = "]" + "=" * length + "]"
        # The first closing bracket CMake finds must be ours: also not one that the value's own
        # tail (a trailing "]=") forms together with the start of ours.
        if (value + close).find(close) == len(value):
            break
        length += 1
    # CMake drops a newline directly after the opening bracket; an extra one keeps the value's own.
    lead = "\n" if value.startswith(("\n", "\r\n")) else ""
    return "[" + "=" * length + "[" + lead + value + close
