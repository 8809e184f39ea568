"""Rename sets read from compiled code: the symbols that objects, archives and libraries define.

A vendored C library has no export macro and no hand list; what it *defines* is the truth. This
module reads ``symbols_from`` (objects, static archives, shared libraries: whatever
``shimgen.binary`` reads) and decides, per symbol, whether it joins the rename set:

- defined and global (``GLOBAL``, ``WEAK``, ``GNU_UNIQUE``; Mach-O ``N_EXT``) joins, functions and
  data alike, whatever its visibility: a hidden global in an object still collides when two copies
  are linked into one binary. Undefined references (``memcpy``) never join.
- weak and ``GNU_UNIQUE`` definitions join too, and are reported: leaving them unprefixed would
  leave exactly the collision the prefix exists to prevent, but a weak definition is often meant to
  be overridden by the application, and the rename ends that (the override would now have to
  define the prefixed name).
- names a preprocessor rename cannot reach are skipped and reported: reserved names (``__x``,
  ``_X``: C++ mangled names, compiler helpers), names that are not C identifiers
  (``__x86.get_pc_thunk.bx``), names the linker defines (``_init``, ``_edata``), and names that
  already carry the prefix. Skipped names the objects export (C++ API such as ``bssl::*``) are
  listed, so the export lists keep them: hiding them would break consumers that link them.
- each renamed name records whether the objects *export* it (default or protected visibility):
  only those must be exported by the prefixed library. A hidden global (``-fvisibility=hidden``,
  ``__attribute__((visibility("hidden")))``) is renamed, so static links cannot collide, but never
  demanded as an export.
- weak *undefined* references no object defines are hooks the library offers the application
  (BoringSSL's ``OPENSSL_memory_alloc``): when they share their first word with a name the library
  defines (``OPENSSL_``), they are renamed too, else an application's hook meant for another copy
  would bind into this one; other weak references (``pthread_once`` from libstdc++'s headers) are
  listed and left alone.

``collect`` is pure (Binary values in, decisions out); ``read_symbols_from`` is the I/O edge.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from shimgen.binary.load import load_paths
from shimgen.binary.symbols import LINKER_SYMBOLS, OBJECT, Binary
from shimgen.errors import ConfigError, InputError
from shimgen.files import is_within

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
DEFINING_BINDINGS = frozenset({"global", "weak", "unique"})


@dataclass(frozen=True)
class DefinedSymbol:
    name: str
    """As C spells it (the readers strip Mach-O's leading underscore)."""
    file: str
    """The file it was read from, relative to the config's directory (POSIX separators)."""
    member: str | None
    """Inside ``file``: the archive member (or fat slice) that defines it."""
    binding: str
    """global, weak or unique (GNU_UNIQUE)."""
    type: str
    """func, object, tls, notype (Mach-O and PE readers do not tell), other."""
    exported: bool = True
    """Visible outside the object (default/protected visibility); False for hidden globals, and
    for the weak references named in ``binding`` ``hook``."""

    @property
    def where(self) -> str:
        return f"{self.file}({self.member})" if self.member else self.file


@dataclass(frozen=True)
class Skipped:
    symbol: DefinedSymbol
    reason: str


@dataclass(frozen=True)
class ObjectSymbols:
    renamed: tuple[DefinedSymbol, ...]
    """One entry per name joining the rename set (its first definition in file order), by name."""
    skipped: tuple[Skipped, ...] = ()
    """Defined globals that stay as they are, with the reason (by name)."""
    excluded: tuple[str, ...] = ()
    """Names taken out by ``exclude`` (sorted)."""
    weak_references: tuple[str, ...] = ()
    """Weak undefined references no object defines and not renamed as hooks (sorted)."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.renamed)

    @property
    def weak(self) -> tuple[DefinedSymbol, ...]:
        return tuple(s for s in self.renamed if s.binding == "weak")

    @property
    def unique(self) -> tuple[DefinedSymbol, ...]:
        return tuple(s for s in self.renamed if s.binding == "unique")

    @property
    def hooks(self) -> tuple[DefinedSymbol, ...]:
        return tuple(s for s in self.renamed if s.binding == HOOK)

    @property
    def kept_exports(self) -> tuple[str, ...]:
        """Skipped names the objects export (C++ API): they stay unprefixed and stay exported."""
        return tuple(s.symbol.name for s in self.skipped
                     if s.symbol.exported and s.reason in KEPT_REASONS)

    def warnings(self) -> list[str]:
        """One line per kind of symbol a user should know about (empty when there is none)."""
        lines = []
        if self.weak:
            lines.append(f"symbols_from: {len(self.weak)} weak definitions renamed (an application that "
                         f"overrides one must now define the prefixed name): {_listing(self.weak)}")
        if self.unique:
            lines.append(f"symbols_from: {len(self.unique)} GNU_UNIQUE definitions renamed: {_listing(self.unique)}")
        if self.hooks:
            lines.append(f"symbols_from: {len(self.hooks)} weak hooks the library declares for the application renamed "
                         f"(an application that provides one must define the prefixed name): {_listing(self.hooks)}")
        if self.weak_references:
            shown = ", ".join(self.weak_references[:8])
            lines.append(f"symbols_from: {len(self.weak_references)} weak undefined references left as they are "
                         f"(not in the library's own name space): {shown}")
        kept = self.kept_exports
        if kept:
            shown = ", ".join(kept[:8]) + (f", and {len(kept) - 8} more (see the manifest)" if len(kept) > 8 else "")
            lines.append(f"symbols_from: {len(kept)} exported names stay unprefixed and exported (a preprocessor or "
                         f"symbol rename cannot reach C++ names; list them under 'exclude' or hide them to drop "
                         f"them): {shown}")
        if self.skipped:
            shown = ", ".join(f"{s.symbol.name} ({s.reason})" for s in self.skipped[:8])
            more = f", and {len(self.skipped) - 8} more (see the manifest)" if len(self.skipped) > 8 else ""
            lines.append(f"symbols_from: {len(self.skipped)} defined globals not renamed: {shown}{more}")
        return lines


def _listing(symbols: Sequence[DefinedSymbol], limit: int = 8) -> str:
    shown = ", ".join(s.name for s in symbols[:limit])
    return shown + (f", and {len(symbols) - limit} more (see the manifest)" if len(symbols) > limit else "")


HOOK = "hook"
"""``DefinedSymbol.binding`` of a weak undefined reference renamed as the library's own hook."""
KEPT_REASONS = frozenset({"reserved or mangled name", "not a C identifier"})
"""Skip reasons of names that stay exported as they are when the objects export them."""


def defined_globals(binary: Binary, file: str) -> list[DefinedSymbol]:
    """The defined, global symbols of one binary read with ``detail=True``; shared libraries'
    dynamic symbols are all exports."""
    return [
        DefinedSymbol(s.name, file, binary.member, s.binding, s.type,
                      exported=s.is_export or binary.kind != OBJECT)
        for s in binary.symbols
        if s.defined and s.binding in DEFINING_BINDINGS and s.name
    ]


def weak_references(binary: Binary, file: str) -> list[DefinedSymbol]:
    """The weak undefined references of one object read with ``detail=True`` (as ``hook``
    candidates; ``collect`` decides)."""
    if binary.kind != OBJECT:
        return []
    return [DefinedSymbol(s.name, file, binary.member, HOOK, s.type, exported=False)
            for s in binary.symbols if not s.defined and s.binding == "weak" and s.name]


def _first_word(name: str) -> str:
    """``OPENSSL_memory_alloc`` → ``OPENSSL_``; a name without an inner underscore has none."""
    head, sep, _ = name.strip("_").partition("_")
    return head + sep if sep and head else ""


def skip_reason(name: str, prefix: str) -> str | None:
    """Why a defined global stays out of the rename set, or None when it joins."""
    if not _IDENT.match(name):
        return "not a C identifier"
    if name.startswith("__") or (name[0] == "_" and name[1:2].isupper()):
        return "reserved or mangled name"
    if name in LINKER_SYMBOLS:
        return "defined by the linker"
    if prefix and name.startswith(prefix):
        return "already prefixed"
    return None


def collect(symbols: Iterable[DefinedSymbol], *, prefix: str, exclude: Sequence[str] = ()) -> ObjectSymbols:
    """Decide, for every defined global read, whether it joins the rename set."""
    chosen: dict[str, DefinedSymbol] = {}
    skipped: dict[str, Skipped] = {}
    excluded: set[str] = set()
    references: dict[str, DefinedSymbol] = {}
    hidden: set[str] = set()
    for symbol in symbols:
        name = symbol.name
        if symbol.binding == HOOK:
            references.setdefault(name, symbol)
            continue
        if not symbol.exported:
            hidden.add(name)  # the linker gives a name the most constraining visibility of its definitions
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in exclude):
            excluded.add(name)
            continue
        reason = skip_reason(name, prefix)
        if reason is not None:
            skipped.setdefault(name, Skipped(symbol, reason))
            continue
        first = chosen.get(name)
        # A strong definition describes the name better than a weak one seen earlier.
        if first is None or (first.binding == "weak" and symbol.binding != "weak"):
            chosen[name] = symbol
    for name in hidden:
        if name in chosen:
            chosen[name] = replace(chosen[name], exported=False)
        if name in skipped:
            skipped[name] = replace(skipped[name], symbol=replace(skipped[name].symbol, exported=False))
    words = {_first_word(name) for name in chosen} - {""}
    left: list[str] = []
    for name, reference in references.items():
        if name in chosen or name in skipped or name in excluded:
            continue
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in exclude):
            excluded.add(name)
        elif skip_reason(name, prefix) is None and _first_word(name) in words:
            chosen[name] = reference
        else:
            left.append(name)
    return ObjectSymbols(
        renamed=tuple(chosen[name] for name in sorted(chosen)),
        skipped=tuple(skipped[name] for name in sorted(skipped)),
        excluded=tuple(sorted(excluded)),
        weak_references=tuple(sorted(left)),
    )


def matched_files(root: Path, config_path: Path, key: str, patterns: Sequence[str]) -> list[Path]:
    """The files ``patterns`` (globs relative to ``root``) match, sorted; each must lie inside root,
    and each pattern must match something."""
    files: set[Path] = set()
    for pattern in patterns:
        matches = [p for p in root.glob(pattern) if p.is_file()]
        if not matches:
            raise ConfigError(f"{config_path}: {key}: '{pattern}' matches no file under {root}")
        for match in matches:
            if not is_within(match, root):
                raise ConfigError(f"{config_path}: {key}: '{match}' leaves the project directory {root}")
            files.add(match)
    return sorted(files)


def read_symbols_from(root: Path, config_path: Path, patterns: Sequence[str], *, prefix: str,
                      exclude: Sequence[str] = (), extra: Sequence[tuple[Path, str]] = ()) -> ObjectSymbols:
    """Read every file ``patterns`` match, and the ``extra`` (file, label) pairs, and collect their
    defined globals."""
    files = [(path, path.relative_to(root).as_posix()) for path in matched_files(root, config_path, "symbols_from",
                                                                                 patterns)]
    found: list[DefinedSymbol] = []
    for path, label in [*files, *extra]:
        for binary in load_paths([path], detail=True):
            found.extend(defined_globals(binary, label))
            found.extend(weak_references(binary, label))
    return collect(found, prefix=prefix, exclude=exclude)


def object_list(listing: Path) -> list[tuple[Path, str]]:
    """The objects a build lists in ``listing`` (one path a line; CMake writes it from
    ``$<TARGET_OBJECTS:...>``), each with the label the manifest records: its path relative to the
    listing's directory where it lies inside it (no build-directory path in generated files), else
    as listed. Every listed file must exist."""
    try:
        lines = listing.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{listing}: cannot read the object list: {exc}") from None
    base = listing.parent
    entries: list[tuple[Path, str]] = []
    for line in lines:
        if not line.strip():
            continue
        path = Path(line.strip())
        path = path if path.is_absolute() else base / path
        if not path.is_file():
            raise InputError(f"{listing}: lists '{line.strip()}', which does not exist (build the objects first)")
        try:
            label = path.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            label = path.as_posix()
        entries.append((path, label))
    if not entries:
        raise InputError(f"{listing}: the object list is empty (the target has no sources?)")
    return entries
