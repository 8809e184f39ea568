"""What a checked binary must look like: the prefix, which names are shims, which are required,
which other exports are allowed. Built from a Config + ShimSet, a manifest.json, or the command line.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cached_property, lru_cache

from shimgen.binary.symbols import LINKER_SYMBOLS, Names
from shimgen.errors import InputError, UsageError
from shimgen.project.manifest import MANIFEST_SCHEMA
from shimgen.project.matcher import DEFAULT_PATTERNS, ShimMatcher, glob_matches
from shimgen.project.names import prefix_problem
from shimgen.record import record, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (2 ms of a 30 ms budget)

if TYPE_CHECKING:
    from pathlib import Path

    from shimgen.project.config import Config
    from shimgen.project.shims import ShimSet



ENTRY_POINTS = ("PyInit_*",)
"""Globs of the platform's entry points, allowed under --strict like the linker's own names
(``_init``, ``_fini``): the interpreter looks a Python extension module up by ``PyInit_<name>``, so a
wheel exports it by design."""


@record
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
    hooks: tuple[str, ...] = ()
    """Plain names of weak hooks the library declares for the application (renamed weak undefined
    references): imported, weakly, and exported by nobody unless an application provides one."""

    def __post_init__(self) -> None:
        problem = prefix_problem(self.prefix)
        if problem:
            raise UsageError(f"prefix: {problem}")

    # Construction -------------------------------------------------------------------------------

    @classmethod
    def from_config(cls, config: Config, shimset: ShimSet) -> Policy:
        from shimgen.project.shims import shim_matcher

        matcher = shim_matcher(config, shimset)
        return cls(
            prefix=shimset.prefix,
            patterns=matcher.patterns,
            shims=matcher.names,
            required=tuple(s.name for s in shimset.required),
            allow=tuple(config.allow),
            exports=tuple(shimset.exports),
            source=str(config.path),
            hooks=tuple(s.name for s in shimset.shims if s.binding == "hook"),
        )

    @classmethod
    def from_manifest(cls, path: Path) -> Policy:
        import json  # here: checking against --prefix or a config imports no json
        from pathlib import Path

        where = str(path)
        if Path(path).exists() and not Path(path).is_file():  # a FIFO's read would block forever
            raise InputError(f"{where}: cannot read manifest: not a regular file")
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{where}: cannot read manifest: {exc}") from None
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: not valid JSON: {exc}") from None
        except RecursionError:  # the decoder recurses once per level of nesting
            raise InputError(f"{where}: not a shimgen manifest (JSON nested too deeply to read)") from None
        if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA:
            raise InputError(f"{where}: not a shimgen manifest (expected schema '{MANIFEST_SCHEMA}')")
        try:
            shims = data["shims"]
            prefix = data["prefix"]
            if not isinstance(prefix, str) or not isinstance(shims, list):
                raise TypeError
            names = tuple(str(s["name"]) for s in shims)
            required = tuple(str(s["name"]) for s in shims if s.get("required", True))
            hooks = tuple(str(s["name"]) for s in shims if s.get("binding") == "hook")
            lists = {key: tuple(str(v) for v in data.get(key, [])) for key in ("patterns", "allow", "exports")}
        except (KeyError, TypeError, AttributeError):
            raise InputError(f"{where}: malformed manifest (needs prefix and shims[{{name, required}}])") from None
        return cls(prefix=prefix, shims=names, required=required, source=where, hooks=hooks, **lists)

    @classmethod
    def from_options(cls, prefix: str, patterns: tuple[str, ...] = ()) -> Policy:
        return cls(prefix=prefix, patterns=tuple(patterns) or DEFAULT_PATTERNS, source="command line")

    def requiring(self, globs: Collection[str]) -> Policy:
        """This policy with the required set replaced by the shims ``globs`` select: what one build
        of a shared config must hold (the CPU-only build of a library whose CUDA shims a CUDA
        build adds). Each glob must select a shim of the set, or it is a usage error."""
        if not globs:
            return self
        required: set[str] = set()
        for glob in globs:
            matched = glob_matches(self.shims, glob)
            if not matched:
                raise UsageError(f"--required '{glob}' matches no shim of {self.source}")
            required |= matched
        return replace(self, required=tuple(sorted(required)))

    # Questions the rules ask -------------------------------------------------------------------------

    @cached_property
    def matcher(self) -> ShimMatcher:
        """Which plain names are shims: the one matcher prefix-imports and recompile use too."""
        return ShimMatcher(self.patterns, self.shims)

    @cached_property
    def _allowed(self) -> ShimMatcher:
        # Allowed exports follow the same matching rules: globs, plus listed names; `exports` may
        # hold globs too, and C++ patterns, matched on demangled names (_cxx_exports).
        from shimgen.project.exports import classify

        items = [classify(e) for e in self.exports]
        return ShimMatcher((*ENTRY_POINTS, *self.allow, *(i.text for i in items if i.kind == "glob")),
                           tuple(i.text for i in items if i.kind == "name"))

    @cached_property
    def _cxx_exports(self) -> tuple[str, ...]:
        from shimgen.project.exports import is_cxx

        return tuple(e for e in self.exports if is_cxx(e))

    def _cxx_allowed(self, name: str) -> bool:
        if not self._cxx_exports or not name.startswith("_Z"):
            return False
        from shimgen.check.demangle import demangle
        from shimgen.project.exports import matches

        shown = demangle(name)
        return any(matches(item, name, shown) for item in self._cxx_exports)

    def shims_among(self, names: Collection[str]) -> list[str]:
        """The plain shim names among ``names`` (what ``is_shim`` says, for 74k names at C speed)."""
        literals = self.matcher.literals
        if not literals:
            return [n for n in names if self.is_shim(n)]
        found = {n for matched in names_starting_any(names, literals).values() for n in matched}
        return [n for n in found if self.is_shim(n)]

    def prefixed_among(self, names: Collection[str], start: str | None = None) -> list[str]:
        """The names that begin with ``start`` (default: the prefix), found by one text search."""
        return names_starting(names, self.prefix if start is None else start)

    def prefixed_shims_among(self, names: Collection[str]) -> list[str]:
        return [n for n in self.prefixed_among(names) if self.is_shim(n[len(self.prefix):])]

    def is_shim(self, plain: str) -> bool:
        """A plain (unprefixed) name is a shim: listed, or matching a pattern."""
        return self.matcher(plain)

    def is_prefixed_shim(self, name: str) -> bool:
        return self.matcher.is_prefixed(name, self.prefix)

    def is_double_prefixed(self, name: str) -> bool:
        return name.startswith(self.prefix + self.prefix)

    def is_allowed(self, name: str) -> bool:
        return name in LINKER_SYMBOLS or self._allowed(name) or self._cxx_allowed(name)

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



def names_starting_any(names: Collection[str], starts: Collection[str]) -> dict[str, list[str]]:
    """{start: names_starting(names, start)} for each of ``starts``: a binary's table answers all
    of them in one pass (``Names.starting_with_any``), not one search each."""
    if isinstance(names, Names):
        return names.starting_with_any(starts)
    return {start: names_starting(names, start) for start in starts}


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
