"""The one answer to "is this name a shim?", used by check-symbols, prefix-imports, recompile and the
shim set alike: a plain (unprefixed) name is a shim when it is listed, or matches a pattern.

Kept free of heavy imports: check-symbols asks it 74k times and must start fast. Globs whose only
wildcard is ``*`` (``aoti_torch_*``, every bundled glob) are matched without ``re`` or ``fnmatch``:
the check of an ELF file imports neither, and each glob fnmatch compiles costs ~0.4M instructions.
"""

from __future__ import annotations

import os.path
from collections.abc import Callable, Iterable
from functools import cached_property

from shimgen.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

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
        import fnmatch
        import re

        parts = [fnmatch.translate(p) for p in self.patterns] + [re.escape(n) + r"\Z" for n in self.names]
        return re.compile("|".join(f"(?:{p})" for p in parts) if parts else r"(?!)")

    @cached_property
    def _test(self) -> Callable[[str], bool]:
        """What ``__call__`` asks: a listed name, or a literal beginning when every pattern is
        ``literal*`` (the usual ``aoti_torch_*``), else the fnmatch patterns as one regex."""
        starts = tuple(p[:-1] for p in self.patterns if p.endswith("*") and not any(c in p[:-1] for c in _GLOB_CHARS))
        if len(starts) < len(self.patterns):
            regex = self._regex
            return lambda plain: regex.match(plain) is not None
        names = frozenset(self.names)
        return lambda plain: plain in names or plain.startswith(starts)

    def __call__(self, plain: str) -> bool:
        """``plain`` (an unprefixed name) is a shim."""
        return self._test(plain)

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
    return {name for name in names if glob_match(name, glob)}


def glob_match(name: str, glob: str) -> bool:
    """``fnmatch.fnmatchcase(name, glob)``; a glob whose only wildcard is ``*`` is matched by
    string methods (no pattern compiled, no ``re`` imported)."""
    if "?" in glob or "[" in glob:
        import fnmatch

        return fnmatch.fnmatchcase(name, glob)
    if "*" not in glob:
        return name == glob
    first, *middle, last = glob.split("*")
    if len(name) < len(first) + len(last) or not name.startswith(first) or not name.endswith(last):
        return False
    at, end = len(first), len(name) - len(last)
    for part in middle:  # each in order, leftmost first: with '*' only, that finds a match if any
        at = name.find(part, at, end)
        if at < 0:
            return False
        at += len(part)
    return True
