"""Prove a build on its binaries: the policy, the rules, the report.

The API ``shimgen build`` and the CLI call::

    policy = Policy.from_config(config, shimset)      # or Policy.from_manifest(path)
    report = check_paths([Path("libshim.so")], policy, strict=False)
    print(render_text(report, color=False)); sys.exit(report.exit_code)
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from shimgen.check.policy import Policy
from shimgen.check.report import (
    Report,
    make_report,
    render_json,
    render_sarif,
    render_text,
)
from shimgen.check.rules import RULES, Finding, expect_searches, run_rules

__all__ = [
    "RULES",
    "Finding",
    "Policy",
    "Report",
    "check_binaries",
    "check_loaded",
    "check_paths",
    "load_for_check",
    "render_json",
    "render_sarif",
    "render_text",
]


def check_paths(paths: Sequence[str | os.PathLike[str]], policy: Policy, *, strict: bool = False) -> Report:
    """Read every binary under ``paths`` and run every rule over them, together.

    Raises InputError (exit 2) for anything that cannot be read as a binary.
    """
    return check_loaded(load_for_check(paths, policy), policy, strict=strict, several=_several(paths))


def load_for_check(paths: Sequence[str | os.PathLike[str]], policy: Policy) -> list:
    """The binaries under ``paths`` read as the rules need them: ``check_loaded`` checks them, and a
    caller that wants more of them (``shimgen build`` counts the prefixed exports) reads them once."""
    from shimgen.binary.load import load_paths

    # The static symbol tables are only searched for required shims that are not exported.
    # Hidden thread-locals (SG007) matter only when several linked binaries may be checked together.
    return load_paths(paths, hidden_of=policy.required_prefixed, local_tls=_several(paths))


def check_loaded(binaries: list, policy: Policy, *, strict: bool = False, several: bool) -> Report:
    """Every rule over binaries ``load_for_check`` read (``several``: more than one path, or a
    directory or wheel, as ``load_for_check`` was given)."""
    expect_searches(policy, binaries)  # before the first search (the shim libraries, just below)
    return check_binaries(_with_hidden_imports(binaries, policy, several), policy, strict=strict)


def _several(paths: Sequence[str | os.PathLike[str]]) -> bool:
    return len(paths) > 1 or any(not os.path.isfile(p) or _suffix(os.fspath(p)) in (".whl", ".zip") for p in paths)


def _suffix(path: str) -> str:
    """``Path(path).suffix`` without pathlib (its import, with urllib's, costs ~5 ms per run)."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def _with_hidden_imports(binaries: list, policy: Policy, several: bool) -> list:
    """``binaries``, the shim libraries among them read again with their static symbol tables
    asked about the imports nobody exports (rule SG011). Only the shim libraries: the question is
    whether the checked library hides what its dependents call, and a .symtab of 530k entries
    (libtorch_cpu) is not read for names the libc provides."""
    from shimgen.binary.load import load_paths
    from shimgen.check.rules import hidden_import_candidates

    # Providers first: the candidates build every name of every binary as a string (a wheel of
    # 114 libraries: 0.7 s), which only a set holding a shim library needs.
    providers = sorted({b.path for b in binaries if b.linked and b.has_static_table
                        and policy.prefixed_shims_among(b.exports)})
    if not providers:
        return binaries
    candidates = hidden_import_candidates(binaries)
    if not candidates:
        return binaries
    again = load_paths(providers, hidden_of={*policy.required_prefixed, *candidates}, local_tls=several)
    by_key = {(b.path, b.member): b for b in again}
    return [by_key.get((b.path, b.member), b) for b in binaries]


def check_binaries(binaries, policy: Policy, *, strict: bool = False) -> Report:
    return make_report(policy, list(binaries), run_rules(policy, binaries, strict=strict), strict=strict)
