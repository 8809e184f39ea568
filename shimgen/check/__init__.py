"""Prove a build on its binaries: the policy, the rules, the report.

The API ``shimgen build`` and the CLI call::

    policy = Policy.from_config(config, shimset)      # or Policy.from_manifest(path)
    report = check_paths([Path("libshim.so")], policy, strict=False)
    print(render_text(report, color=False)); sys.exit(report.exit_code)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from shimgen.check.policy import Policy
from shimgen.check.report import (
    Report,
    make_report,
    render_json,
    render_sarif,
    render_text,
)
from shimgen.check.rules import RULES, Finding, run_rules

__all__ = [
    "RULES",
    "Finding",
    "Policy",
    "Report",
    "check_binaries",
    "check_paths",
    "render_json",
    "render_sarif",
    "render_text",
]


def check_paths(paths: Sequence[Path], policy: Policy, *, strict: bool = False) -> Report:
    """Read every binary under ``paths`` and run every rule over them, together.

    Raises InputError (exit 2) for anything that cannot be read as a binary.
    """
    from shimgen.binary.load import load_paths

    # The static symbol tables are only searched for required shims that are not exported.
    # Hidden thread-locals (SG007) matter only when several linked binaries may be checked together.
    several = len(paths) > 1 or any(not Path(p).is_file() or Path(p).suffix in (".whl", ".zip") for p in paths)
    binaries = load_paths(paths, hidden_of=policy.required_prefixed, local_tls=several)
    return check_binaries(binaries, policy, strict=strict)


def check_binaries(binaries, policy: Policy, *, strict: bool = False) -> Report:
    return make_report(policy, list(binaries), run_rules(policy, binaries, strict=strict), strict=strict)
