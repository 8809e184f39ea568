"""The one answer to "is this name a shim?", used by check-symbols, prefix-imports, recompile and the
shim set alike: a plain (unprefixed) name is a shim when it is listed, or matches a pattern.

Kept free of heavy imports: check-symbols asks it 74k times and must start fast.
"""

from __future__ import annotations

import fnmatch
import os.path
import re
from collections.abc import Iterable
from functools import cached_property

from shimgen.record import record

DEFAULT_PATTERNS: tuple[str, ...] = ("aoti_torch_*",)
"""The ExecuTorch convention: AOTInductor's shim names."""

_GLOB_CHARS = "*?["


@record
class ShimMatcher:
    patterns: tuple[str, ...] = ()
    """Globs over plain names (fnmatch, case-sensitive)."""
    names: tuple[str, ...] = ()
    """Plain names that are shims whatever the patterns say (listed, or declared in headers)."""

    @classmethod
    def of(cls, shims: ShimMatcher | Iterable[str]) -> ShimMatcher:
        """``shims`` itself, or a matcher of the patterns given."""
        return shims if isinstance(shims, ShimMatcher) else cls(patterns=tuple(shims))

    @cached_property
    def _regex(self) -> re.Pattern[str]:
        parts = [fnmatch.translate(p) for p in self.patterns] + [re.escape(n) + r"\Z" for n in self.names]
        return re.compile("|".join(f"(?:{p})" for p in parts) if parts else r"(?!)")

    def __call__(self, plain: str) -> bool:
        """``plain`` (an unprefixed name) is a shim."""
        return self._regex.match(plain) is not None

    def is_prefixed(self, name: str, prefix: str) -> bool:
        """``name`` is a shim carrying ``prefix``."""
        return name.startswith(prefix) and self(name[len(prefix):])

    @cached_property
    def literals(self) -> tuple[str, ...]:
        """Literal beginnings every shim name has (``aoti_torch_`` for ``aoti_torch_*``); () when some
        pattern starts with a wildcard. Lets callers search text for candidates instead of looping."""
        literals = []
        for item in (*self.patterns, *self.names):
            cut = min((i for i, c in enumerate(item) if c in _GLOB_CHARS), default=len(item))
            if cut == 0:
                return ()
            literals.append(item[:cut])
        literals.sort()
        minimal: list[str] = []
        for literal in literals:  # drop any literal that a shorter one already covers
            if not minimal or not literal.startswith(minimal[-1]):
                minimal.append(literal)
        if len(minimal) > 8:  # many explicit names: search for what they have in common instead
            common = os.path.commonprefix(minimal)  # noqa: RUF071 (string prefix, not a path)
            return (common,) if common else ()
        return tuple(minimal)

    def describe(self) -> str:
        """For messages: the patterns, and how many listed names."""
        parts = list(self.patterns)
        if self.names:
            parts.append(f"{len(self.names)} listed name(s)")
        return ", ".join(parts) or "nothing"


def glob_matches(names: Iterable[str], glob: str) -> set[str]:
    """The names a config glob (``required``, ``allow``) selects; the same fnmatch as shim patterns."""
    return {name for name in names if fnmatch.fnmatchcase(name, glob)}
