"""Re-read what repair produced and compare it with what it read (pure, over Binary values).

Any problem is a reason to write nothing: an import of the set that no longer resolves inside the
set, an export or import that changed other than as planned (entry points included), a changed
SONAME or DT_NEEDED, or a bundled-library finding the plan addressed still there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass

from shimgen.binary.symbols import Binary
from shimgen.check.libraries import bundled_in
from shimgen.repair.plan import BinaryPlan, Plan


def _some(names, limit: int = 3) -> str:
    names = sorted(names)
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


@dataclass(frozen=True)
class Expected:
    """What one binary must look like after its edit, taken from the input before the edit, so
    the input's names can be released before the output is read (memory: one table at a time)."""

    where: str
    exports: frozenset[str]
    imports: frozenset[str]
    dynamic: tuple
    addressed: tuple[str, ...]
    """Bundled-library families whose every exported anchor the plan hid or renamed."""


def expect(plan: BinaryPlan | None, old: Binary) -> Expected:
    rename = dict(plan.rename) if plan else {}
    hide = set(plan.hide) if plan else set()
    addressed = tuple(n for n in plan.families if _family_planned(old, plan, n)) if plan else ()
    return Expected(old.display, frozenset(rename.get(n, n) for n in old.exports.iter_lazily() if n not in hide),
                    frozenset(rename.get(n, n) for n in old.imports), (old.soname, old.needed, old.symbolic),
                    addressed)


def check(expected: Expected, new: Binary) -> list[str]:
    """Problems of one re-read output against what ``expect`` said."""
    problems: list[str] = []
    where = expected.where
    got_exports = set(new.exports.iter_lazily())
    if got_exports != expected.exports:
        problems.append(f"{where}: exports differ from the plan (unexpected: {_some(got_exports - expected.exports)}; "
                        f"missing: {_some(expected.exports - got_exports)})")
    got_imports = set(new.imports.iter_lazily())
    if got_imports != expected.imports:
        problems.append(f"{where}: imports differ from the plan ({_some(got_imports ^ expected.imports)})")
    if (new.soname, new.needed, new.symbolic) != expected.dynamic:
        problems.append(f"{where}: its dynamic section changed (SONAME, DT_NEEDED or DT_FLAGS)")
    if expected.addressed:
        left = {f.family.name for f in bundled_in(new)}
        still = [name for name in expected.addressed if name in left]
        if still:
            problems.append(f"{where}: still exports the bundled {_some(still)} the plan hid or renamed")
    return problems


def verify_binary(plan: BinaryPlan | None, old: Binary, new: Binary) -> list[str]:
    """Problems of one re-read output ``new`` against its input ``old`` and its plan (None: the
    binary was to be left as it is)."""
    return check(expect(plan, old), new)


def verify_set(importers: Mapping[str, Sequence[str]], provided_before: Set[str], provided_after: Set[str],
               renamed: Callable[[str], str]) -> list[str]:
    """Every import some binary of the set satisfied before is still exported by one after, under
    its new name (``renamed``)."""
    problems = []
    for name, who in sorted(importers.items()):
        if name in provided_before and renamed(name) not in provided_after:
            problems.append(f"{who[0]}: imports {renamed(name)}, which no binary of the set exports any more")
    return problems


def verify(plan: Plan, before: Sequence[Binary], after: Sequence[Binary]) -> list[str]:
    """``verify_binary`` for each binary and ``verify_set`` over a whole set held in memory."""
    by_key = {b.display: b for b in after}
    if sorted(by_key) != sorted(b.display for b in before):
        return [f"the output holds other binaries than the input ({_some(set(by_key) ^ {b.display for b in before})})"]
    planned = {p.key: p for p in plan.binaries}
    problems = [p for old in before for p in verify_binary(planned.get(old.display), old, by_key[old.display])]
    importers: dict[str, list[str]] = {}
    for binary in before:
        for name in binary.imports:
            importers.setdefault(name, []).append(binary.display)
    renames = {old: new for p in plan.binaries for old, new in p.rename}
    return problems + verify_set(importers, {n for b in before for n in b.exports},
                                 {n for b in after for n in b.exports}, lambda n: renames.get(n, n))


def _family_planned(binary: Binary, plan, family_name: str) -> bool:
    """Whether the plan removed every exported anchor of that family from the binary's exports."""
    from shimgen.check.libraries import family_named

    family = family_named(family_name)
    if family is None:
        return False
    changed = set(plan.hide) | {old for old, _ in plan.rename}
    exported = binary.exports.having(family.anchors)
    present = [a for a in family.anchors if a in exported]
    return bool(present) and all(a in changed for a in present)
