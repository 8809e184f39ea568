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
from shimgen.check.libraries import bundled_in
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


def _importers(binaries: Sequence[Binary]) -> dict[str, list[str]]:
    who: dict[str, list[str]] = {}
    for binary in binaries:
        for name in binary.imports:
            who.setdefault(name, []).append(binary.display)
    return who


def plan_hide(binaries: Sequence[Binary], keep: Iterable[str] = (), keep_names: Iterable[str] = ()) -> Plan:
    """Hide every export nobody else in the set needs and that is no entry point."""
    entry = ShimMatcher((*ENTRY_POINTS, *keep), tuple(keep_names))
    importers = _importers(binaries)
    plans, skipped = [], []
    for binary in binaries:
        why = editable(binary)
        if why is not None:
            skipped.append((binary.display, why))
            continue
        hide, kept = [], []
        for name in binary.exports:
            if name in LINKER_SYMBOLS or entry(name):
                continue
            others = [d for d in importers.get(name, ()) if d != binary.display]
            if others:
                kept.append((name, tuple(sorted(others))))
            else:
                hide.append(name)
        plans.append(BinaryPlan(binary.display, tuple(sorted(hide)), (), tuple(sorted(kept)),
                                tuple(f.family.name for f in bundled_in(binary))))
    return Plan("hide", tuple(plans), skipped=tuple(skipped))


def plan_prefix(binaries: Sequence[Binary], prefix: str, patterns: Sequence[str]) -> Plan:
    """Rename the matching exports of every provider, and those imports of every binary of the
    set that some binary of the set provides."""
    matches = ShimMatcher(tuple(patterns), ())
    provided = {n for b in binaries if editable(b) is None for n in b.exports if matches(n)}
    plans, skipped = [], []
    for binary in binaries:
        why = editable(binary)
        if why is not None:
            skipped.append((binary.display, why))
            continue
        names = sorted({n for n in binary.exports if n in provided}
                       | {n for n in binary.imports if n in provided})
        names = [n for n in names if not n.startswith(prefix)]  # a second run renames nothing
        plans.append(BinaryPlan(binary.display, (), tuple((n, prefix + n) for n in names), (),
                                tuple(f.family.name for f in bundled_in(binary))))
    return Plan("prefix", tuple(plans), prefix, tuple(patterns), tuple(skipped))
