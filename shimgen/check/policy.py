"""What a checked binary must look like: the prefix, which names are shims, which are required,
which other exports are allowed. Built from a Config + ShimSet, a manifest.json, or the command line.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (2 ms of a 30 ms budget)

from shimgen.binary.symbols import LINKER_SYMBOLS, Names
from shimgen.errors import InputError, UsageError

if TYPE_CHECKING:
    from shimgen.project.config import Config
    from shimgen.project.shims import ShimSet

MANIFEST_SCHEMA = "shimgen-manifest/1"  # mirrors shimgen.generate.render (not imported: it pulls Jinja2 in)

# A prefix shimgen.project.config.prefix_problem certainly accepts: an identifier fragment that does not
# start with '_' (so neither '__' nor '_' + capital, the reserved forms).
_PLAIN_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Policy:
    prefix: str
    patterns: tuple[str, ...] = ()
    """Globs over plain names: which names are shims."""
    shims: tuple[str, ...] = ()
    """Plain names of the shim set (from the config or manifest)."""
    required: tuple[str, ...] = ()
    """Plain names that must be exported, prefixed, by the set of binaries."""
    allow: tuple[str, ...] = ()
    """Globs of other exports permitted under --strict."""
    exports: tuple[str, ...] = ()
    """Extra non-shim names the library exports on purpose."""
    source: str = "command line"

    def __post_init__(self) -> None:
        # The common, valid case is decided here; shimgen.project.config (tomllib, hashlib: ~7 ms of the
        # check's time budget) is imported only to word the reason a prefix is refused.
        if not (_PLAIN_PREFIX.fullmatch(self.prefix) and len(self.prefix) <= 64):
            from shimgen.project.config import prefix_problem

            problem = prefix_problem(self.prefix) or "not a valid prefix"
            raise UsageError(f"prefix: {problem}")

    # Construction -------------------------------------------------------------------------------

    @classmethod
    def from_config(cls, config: Config, shimset: ShimSet) -> Policy:
        return cls(
            prefix=shimset.prefix,
            patterns=tuple(config.patterns),
            shims=shimset.names,
            required=tuple(s.name for s in shimset.required),
            allow=tuple(config.allow),
            exports=tuple(shimset.exports),
            source=str(config.path),
        )

    @classmethod
    def from_manifest(cls, path: Path) -> Policy:
        where = str(path)
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{where}: cannot read manifest: {exc}") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON: {exc}") from None
        if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA:
            raise InputError(f"{where}: not a shimgen manifest (expected schema '{MANIFEST_SCHEMA}')")
        try:
            shims = data["shims"]
            prefix = data["prefix"]
            if not isinstance(prefix, str) or not isinstance(shims, list):
                raise TypeError
            names = tuple(str(s["name"]) for s in shims)
            required = tuple(str(s["name"]) for s in shims if s.get("required", True))
            lists = {key: tuple(str(v) for v in data.get(key, [])) for key in ("patterns", "allow", "exports")}
        except (KeyError, TypeError, AttributeError):
            raise InputError(f"{where}: malformed manifest (needs prefix and shims[{{name, required}}])") from None
        return cls(prefix=prefix, shims=names, required=required, source=where, **lists)

    @classmethod
    def from_options(cls, prefix: str, patterns: tuple[str, ...] = ()) -> Policy:
        return cls(prefix=prefix, patterns=tuple(patterns) or ("aoti_torch_*",), source="command line")

    # Questions the rules ask -------------------------------------------------------------------------

    @cached_property
    def _shim_re(self) -> re.Pattern[str]:
        parts = [fnmatch.translate(p) for p in self.patterns] + [re.escape(n) + r"\Z" for n in self.shims]
        return re.compile("|".join(f"(?:{p})" for p in parts) if parts else r"(?!)")

    @cached_property
    def _allow_re(self) -> re.Pattern[str]:
        parts = [fnmatch.translate(p) for p in self.allow] + [re.escape(n) + r"\Z" for n in self.exports]
        return re.compile("|".join(f"(?:{p})" for p in parts) if parts else r"(?!)")

    @cached_property
    def _literals(self) -> tuple[str, ...]:
        """Literal beginnings every shim name has (``aoti_torch_`` for ``aoti_torch_*``); () when
        some pattern starts with a wildcard. Lets ``shims_among`` search text instead of looping."""
        literals = []
        for item in (*self.patterns, *self.shims):
            cut = min((i for i, c in enumerate(item) if c in "*?["), default=len(item))
            if cut == 0:
                return ()
            literals.append(item[:cut])
        literals.sort()
        minimal: list[str] = []
        for literal in literals:  # drop any literal that a shorter one already covers
            if not minimal or not literal.startswith(minimal[-1]):
                minimal.append(literal)
        if len(minimal) > 8:  # many explicit names: search for what they have in common instead
            import os.path

            common = os.path.commonprefix(minimal)
            return (common,) if common else ()
        return tuple(minimal)

    def shims_among(self, names: Collection[str]) -> list[str]:
        """The plain shim names among ``names`` (what ``is_shim`` says, for 74k names at C speed)."""
        if not self._literals:
            return [n for n in names if self.is_shim(n)]
        found = {n for literal in self._literals for n in names_starting(names, literal)}
        return [n for n in found if self.is_shim(n)]

    def prefixed_among(self, names: Collection[str], start: str | None = None) -> list[str]:
        """The names that begin with ``start`` (default: the prefix), found by one text search."""
        return names_starting(names, self.prefix if start is None else start)

    def prefixed_shims_among(self, names: Collection[str]) -> list[str]:
        return [n for n in self.prefixed_among(names) if self.is_shim(n[len(self.prefix):])]

    def is_shim(self, plain: str) -> bool:
        """A plain (unprefixed) name is a shim: listed, or matching a pattern."""
        return self._shim_re.match(plain) is not None

    def is_prefixed_shim(self, name: str) -> bool:
        return name.startswith(self.prefix) and self.is_shim(name[len(self.prefix):])

    def is_double_prefixed(self, name: str) -> bool:
        return name.startswith(self.prefix + self.prefix)

    def is_allowed(self, name: str) -> bool:
        return name in LINKER_SYMBOLS or self._allow_re.match(name) is not None

    @property
    def required_prefixed(self) -> tuple[str, ...]:
        return tuple(self.prefix + n for n in self.required)

    def describe(self) -> dict:
        return {
            "source": self.source,
            "prefix": self.prefix,
            "patterns": list(self.patterns),
            "shims": len(self.shims),
            "required": len(self.required),
            "allow": list(self.allow),
        }



def names_starting(names: Collection[str], start: str) -> list[str]:
    """``[n for n in names if n.startswith(start)]`` (as a set), by searching one joined text:
    on 74k names a C-speed search beats a Python loop several times over."""
    if not names:
        return []
    if isinstance(names, Names):
        return names.starting_with(start)
    text, members = _joined(names if isinstance(names, frozenset) else tuple(names))
    needle = "\n" + start
    found: set[str] = set()
    at = text.find(needle)
    while at >= 0:
        stop = text.index("\n", at + 1)
        found.add(text[at + 1:stop])
        at = text.find(needle, stop)
    if not found:
        return []
    # A name holding a newline (a hostile file) cannot fake a match: membership is re-checked.
    return sorted(n for n in found if n in members and n.startswith(start))


@lru_cache(maxsize=16)
def _joined(names: tuple[str, ...] | frozenset[str]) -> tuple[str, frozenset[str]]:
    # Several rules search one binary's exports; join them (and hash them) once.
    return "\n" + "\n".join(names) + "\n", names if isinstance(names, frozenset) else frozenset(names)
