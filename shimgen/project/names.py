"""What a C name and a symbol prefix may look like: the one home of these rules.

Free of heavy imports, so check-symbols can validate ``--prefix`` without loading the config module.
"""

from __future__ import annotations

import re

MAX_PREFIX_LENGTH = 64
"""Longer prefixes are refused: they only make symbol tables longer, and hint at a mistake."""

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_reserved(name: str) -> bool:
    """Reserved in C and C++: starts with '__', or with '_' and a capital."""
    return name.startswith("__") or (len(name) > 1 and name[0] == "_" and name[1].isupper())


def prefix_problem(prefix: str) -> str | None:
    """Why ``prefix`` cannot be a symbol prefix, or None when it can."""
    if not prefix:
        return "the prefix is empty"
    if len(prefix) > MAX_PREFIX_LENGTH:
        return f"the prefix is {len(prefix)} characters long; at most {MAX_PREFIX_LENGTH} are accepted"
    if not IDENTIFIER.match(prefix):
        return f"'{prefix}' is not a valid C identifier fragment (letters, digits, '_'; no leading digit)"
    if is_reserved(prefix):
        return f"'{prefix}' is reserved in C and C++ (names starting with '__' or '_' + capital)"
    return None
