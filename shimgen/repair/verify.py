"""Re-read what repair produced and compare it with what it read (pure, over Binary values).

Any problem is a reason to write nothing: an import of the set that no longer resolves inside the
set, an export or import that changed other than as planned (entry points included), a changed
SONAME or DT_NEEDED, or a bundled-library finding the plan addressed still there.
"""

from __future__ import annotations

from collections.abc import Sequence

from shimgen.binary.symbols import Binary
from shimgen.check.libraries import bundled_in
from shimgen.repair.plan import Plan


def _some(names, limit: int = 3) -> str:
    names = sorted(names)
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def verify(plan: Plan, before: Sequence[Binary], after: Sequence[Binary]) -> list[str]:
    """Problems found, one line each (empty: the output is what the plan said)."""
    problems: list[str] = []
    by_key = {b.display: b for b in after}
    planned = {p.key: p for p in plan.binaries}
    if sorted(by_key) != sorted(b.display for b in before):
        return [f"the output holds other binaries than the input ({_some(set(by_key) ^ {b.display for b in before})})"]
    for old in before:
        new = by_key[old.display]
        p = planned.get(old.display)
        rename = dict(p.rename) if p else {}
        hide = set(p.hide) if p else set()
        want_exports = {rename.get(n, n) for n in old.exports if n not in hide}
        want_imports = {rename.get(n, n) for n in old.imports}
        got_exports, got_imports = set(new.exports), set(new.imports)
        where = old.display
        if got_exports != want_exports:
            problems.append(f"{where}: exports differ from the plan (unexpected: {_some(got_exports - want_exports)}; "
                            f"missing: {_some(want_exports - got_exports)})")
        if got_imports != want_imports:
            problems.append(f"{where}: imports differ from the plan ({_some(got_imports ^ want_imports)})")
        if (new.soname, new.needed, new.symbolic) != (old.soname, old.needed, old.symbolic):
            problems.append(f"{where}: its dynamic section changed (SONAME, DT_NEEDED or DT_FLAGS)")
        if p is not None:
            left = {f.family.name for f in bundled_in(new)}
            addressed = [name for name in p.families if name in left and _family_planned(old, p, name)]
            if addressed:
                problems.append(f"{where}: still exports the bundled {_some(addressed)} the plan hid or renamed")
    # Every import the set satisfied before is still satisfied inside the set (under its new name).
    provided_before = {n for b in before for n in b.exports}
    provided_after = {n for b in after for n in b.exports}
    for old in before:
        rename = dict(planned[old.display].rename) if old.display in planned else {}
        lost = {rename.get(n, n) for n in old.imports if n in provided_before} - provided_after
        if lost:
            problems.append(f"{old.display}: imports {_some(lost)}, which no binary of the set exports any more")
    return problems


def _family_planned(binary: Binary, plan, family_name: str) -> bool:
    """Whether the plan removed every exported anchor of that family from the binary's exports."""
    from shimgen.check.libraries import family_named

    family = family_named(family_name)
    if family is None:
        return False
    changed = set(plan.hide) | {old for old, _ in plan.rename}
    present = [a for a in family.anchors if a in binary.exports]
    return bool(present) and all(a in changed for a in present)
