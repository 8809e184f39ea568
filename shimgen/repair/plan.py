"""What ``shimgen repair`` will change, decided over plain Binary values (no I/O).

Hide: per shared library, every export that no other binary of the set imports and that is not an
entry point (``PyInit_*`` and the like, ``--keep`` globs, the config's allow/exports) becomes hidden.
Exports another binary of the set imports stay, and are listed (``kept_for``).

Prefix: every export matching the patterns gets the prefix in its provider, and every import of
that name in a binary of the set gets it too, so consumers keep binding the provider's copy and
never the system's. Imports of a matching name that no binary of the set provides are left alone
(they bind elsewhere on purpose).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from shimgen.binary.symbols import LINKER_SYMBOLS, SHARED, Binary
from shimgen.check.libraries import bundled_in, family_named, file_name, is_the_library
from shimgen.project.matcher import ShimMatcher

ENTRY_POINTS = ("PyInit_*", "PyInitU_*", "PyModExport_*", "JNI_OnLoad*", "JNI_OnUnload*", "Java_*")
"""Names a host looks up by dlsym and that must stay visible: CPython's module init functions
(and PEP 793's export hook), the JVM's. The linker's own symbols (_init, _end, ...) are kept too."""


@dataclass(frozen=True)
class BinaryPlan:
    key: str
    """The binary's display name (path, or wheel(member))."""
    hide: tuple[str, ...] = ()
    """Exports to make hidden (sorted)."""
    rename: tuple[tuple[str, str], ...] = ()
    """(old, new) for exports and imports alike (sorted)."""
    kept_for: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Exports kept because other binaries of the set import them: (name, importers)."""
    families: tuple[str, ...] = ()
    """Bundled-library families (SG010) the binary exports before the repair."""
    left: str = ""
    """Why the binary is left as it is although it could be edited (empty: it is not)."""

    @property
    def changes(self) -> int:
        return len(self.hide) + len(self.rename)


@dataclass(frozen=True)
class Plan:
    mode: str
    binaries: tuple[BinaryPlan, ...]
    prefix: str = ""
    patterns: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = field(default=())
    """(binary, why) of binaries left as they are (not an ELF shared library)."""

    def to_json(self) -> dict:
        return {
            "schema": "shimgen-repair-plan/1",
            "mode": self.mode,
            "prefix": self.prefix,
            "patterns": list(self.patterns),
            "binaries": [{
                "binary": b.key,
                "hide": list(b.hide),
                "rename": [{"from": old, "to": new} for old, new in b.rename],
                "kept_for_set": [{"symbol": n, "imported_by": list(who)} for n, who in b.kept_for],
                "bundled_families": list(b.families),
                "left_because": b.left or None,
            } for b in self.binaries],
            "skipped": [{"binary": k, "why": why} for k, why in self.skipped],
        }


def editable(binary: Binary) -> str | None:
    """Why ``binary`` cannot be edited, or None when it can (an ELF shared library)."""
    if binary.format != "ELF":
        return f"{binary.format} is out of scope (ELF only)"
    if binary.kind != SHARED:
        return f"an ELF {binary.kind}, not a shared library"
    return None


@dataclass
class SetView:
    """What planning one binary needs to know about the rest of the set, gathered one binary at a
    time (so a wheel's 555k exports are never all in memory at once)."""

    importers: dict[str, list[str]] = field(default_factory=dict)
    """Import name -> the binaries of the set importing it."""
    provided: set[str] = field(default_factory=set)
    """Prefix mode: the matching names some editable binary of the set exports, and every export
    of a binary that is the library of an ``owners`` family."""
    needed: set[str] = field(default_factory=set)
    """Every DT_NEEDED entry of the set: a library no binary needs is loaded by name (dlopen)."""

    def add(self, binary: Binary, matches: ShimMatcher | None = None, owners: Sequence[str] = ()) -> None:
        for name in binary.imports:
            self.importers.setdefault(name, []).append(binary.display)
        self.needed.update(binary.needed)
        if matches is not None and editable(binary) is None:
            if any(is_the_library(family, binary) for family in _families(owners)):
                # The library itself (auditwheel's libcrypto-<hash>.so.3): its whole API, not only the
                # member prefixes, or its consumers keep binding OCSP_*, OSSL_* ... to the system's copy.
                self.provided.update(n for n in binary.exports.iter_lazily() if n not in LINKER_SYMBOLS)
                return
            literals = matches.literals
            candidates = ({n for lit in literals for n in binary.exports.starting_with(lit)} if literals
                          else binary.exports.iter_lazily())
            self.provided.update(n for n in candidates if matches(n))

    def is_needed(self, binary: Binary) -> bool:
        return (binary.soname is not None and binary.soname in self.needed) or file_name(binary) in self.needed


def _families(names: Sequence[str]):
    return [family for name in names if (family := family_named(name)) is not None]


def entry_matcher(keep: Iterable[str] = (), keep_names: Iterable[str] = ()) -> ShimMatcher:
    return ShimMatcher((*ENTRY_POINTS, *keep), tuple(keep_names))


def plan_one_hide(binary: Binary, view: SetView, entry: ShimMatcher) -> BinaryPlan:
    """Hide every export of ``binary`` nobody else in the set imports and that is no entry point.

    A library with no entry point that no binary of the set needs is left alone: something loads it
    by name (ctypes, dlopen) and looks its API up with dlsym, which a hidden symbol would fail
    (xgboost's, lightgbm's libraries). ``--keep`` naming that API lets the rest be hidden."""
    hide, kept, entries = set(), [], 0
    for name in binary.exports.iter_lazily():
        if name in LINKER_SYMBOLS:
            continue
        if entry(name):
            entries += 1
            continue
        others = [d for d in view.importers.get(name, ()) if d != binary.display]
        if others:
            kept.append((name, tuple(sorted(set(others)))))
        else:
            hide.add(name)
    families = tuple(f.family.name for f in bundled_in(binary))
    if not entries and not view.is_needed(binary):
        return BinaryPlan(binary.display, (), (), tuple(sorted(kept)), families,
                          left="no entry point and no binary of the set needs it: loaded by name (ctypes, "
                          "dlopen), its exports are its API; name that API with --keep to hide the rest")
    return BinaryPlan(binary.display, tuple(sorted(hide)), (), tuple(sorted(set(kept))), families)


def plan_one_prefix(binary: Binary, view: SetView, prefix: str) -> BinaryPlan:
    """Rename the exports of ``binary`` the set view lists as provided, and its imports of them."""
    provided = view.provided
    names = binary.exports.having(provided) if len(provided) < 4096 else \
        {n for n in binary.exports.iter_lazily() if n in provided}
    names |= {n for n in binary.imports if n in provided}
    renames = tuple((n, prefix + n) for n in sorted(names) if not n.startswith(prefix))  # a second run renames nothing
    return BinaryPlan(binary.display, (), renames, (), tuple(f.family.name for f in bundled_in(binary)))


def plan_hide(binaries: Sequence[Binary], keep: Iterable[str] = (), keep_names: Iterable[str] = ()) -> Plan:
    """The hide plan of a whole set held in memory (what run.py computes one binary at a time)."""
    view = SetView()
    for binary in binaries:
        view.add(binary)
    entry = entry_matcher(keep, keep_names)
    plans = [plan_one_hide(b, view, entry) for b in binaries if editable(b) is None]
    skipped = [(b.display, why) for b in binaries if (why := editable(b)) is not None]
    return Plan("hide", tuple(plans), skipped=tuple(skipped))


def plan_prefix(binaries: Sequence[Binary], prefix: str, patterns: Sequence[str], owners: Sequence[str] = ()) -> Plan:
    """Rename the matching exports of every provider (every export of a binary that is the library
    of an ``owners`` family), and those imports of every binary of the set that some binary of the
    set provides."""
    view = SetView()
    matches = ShimMatcher(tuple(patterns), ())
    for binary in binaries:
        view.add(binary, matches, owners)
    plans = [plan_one_prefix(b, view, prefix) for b in binaries if editable(b) is None]
    skipped = [(b.display, why) for b in binaries if (why := editable(b)) is not None]
    return Plan("prefix", tuple(plans), prefix, tuple(patterns), tuple(skipped))
