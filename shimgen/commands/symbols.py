"""shimgen symbols: list exports and imports like nm, marked as the check rules see them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shimgen.commands.common import add_config_option


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "symbols",
        help="list exports and imports, marking shim, prefixed and foreign names",
        description="Marks: S prefixed shim, ! unprefixed shim, P prefixed (not a shim), - foreign, "
        "H defined but hidden/local (with --all). Columns: mark, E(xport)/I(mport)/H, type, name.",
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    source = parser.add_mutually_exclusive_group()
    add_config_option(source)
    source.add_argument("--manifest", type=Path, metavar="FILE")
    source.add_argument("--prefix", metavar="P")
    parser.add_argument("--pattern", action="append", default=[], metavar="GLOB")
    parser.add_argument("--all", action="store_true", help="also list hidden and local symbols")
    parser.set_defaults(execute=execute)


def mark(policy, name: str) -> str:
    if policy is None:
        return " "
    if policy.is_prefixed_shim(name):
        return "S"
    if policy.is_shim(name):
        return "!"
    if name.startswith(policy.prefix):
        return "P"
    return "-"


def execute(args: argparse.Namespace) -> int:
    from shimgen.binary.load import load_paths
    from shimgen.check.demangle import demangle
    from shimgen.commands.check_symbols import policy_from_args
    from shimgen.errors import UsageError, printable

    try:
        policy = policy_from_args(args)
    except UsageError:
        if args.config is not None or args.manifest is not None or args.pattern:
            raise
        policy = None  # listing works without a policy; the marks need one
    out = sys.stdout
    for binary in load_paths(args.paths, detail=True):
        out.write(f"{printable(binary.display)}: {binary.format} {binary.kind}, {len(binary.exports)} exports, "
                  f"{len(binary.imports)} imports\n")
        seen = set()
        for symbol in sorted(binary.symbols, key=lambda s: (not s.is_export, not s.is_import, s.name)):
            role = "E" if symbol.is_export else "I" if symbol.is_import else "H" if symbol.defined else None
            if role is None or (role == "H" and not args.all) or (role, symbol.name) in seen:
                continue
            seen.add((role, symbol.name))
            shown = demangle(symbol.name)
            suffix = f"  {shown}" if shown != symbol.name else ""
            out.write(printable(f"{mark(policy, symbol.name)} {role} {symbol.type:<6} {symbol.name}{suffix}") + "\n")
    return 0
