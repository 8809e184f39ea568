"""shimgen repair: seal built ELF libraries, directories and wheels against interposition."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from shimgen.commands.common import add_config_option, emit


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "repair",
        help="hide (or prefix) the exports of built libraries and wheels so nothing outside binds into them",
        description="Repair a set of ELF shared libraries, directories and wheels (analysed together) into "
        "DIR; inputs are never modified. hide (default): every export no other binary of the set imports, and "
        "that is no entry point (PyInit_* and the like, --keep, the config's allow/exports), becomes hidden, "
        "so each binary binds its own copy of what it bundles. prefix (--prefix P --pattern GLOB, --family, or "
        "-c with --mode prefix): matching exports are renamed in their provider and in every consumer of the "
        "set. Every output is re-read and checked against the plan before anything is written; a wheel keeps "
        "its file name and gets a new RECORD. Exit 0 written, 2 bad input or a failed verification.",
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="ELF shared library, directory or wheel")
    parser.add_argument("-o", "--output", type=Path, metavar="DIR", help="where the repaired copies go")
    parser.add_argument("--mode", choices=("hide", "prefix"), help="default: prefix with --prefix/--family, else hide")
    parser.add_argument("--keep", action="append", default=[], metavar="GLOB",
                        help="hide mode: also keep exports matching GLOB visible (repeatable)")
    parser.add_argument("--prefix", metavar="P", help="prefix mode: the prefix given to renamed symbols")
    parser.add_argument("--pattern", action="append", default=[], metavar="GLOB",
                        help="prefix mode: rename exports matching GLOB (repeatable)")
    parser.add_argument("--family", action="append", default=[], metavar="NAME",
                        help="prefix mode: rename a bundled-library family's names (zlib, libjpeg, ...; "
                        "see shimgen/check/libraries.json): its member prefixes, and every export of a "
                        "binary of the set that is that library (by SONAME or file name)")
    add_config_option(parser)
    parser.add_argument("--plan", action="store_true", help="print what would change, write nothing")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="how to print the plan")
    parser.set_defaults(execute=execute)


def _family_patterns(names: list[str]) -> tuple[list[str], list[str]]:
    """(member globs, family names) of the --family arguments."""
    from shimgen.check.libraries import families
    from shimgen.errors import UsageError

    patterns: list[str] = []
    owners: list[str] = []
    for wanted in names:
        key = wanted.lower()
        found = [f for f in families()
                 if key == f.name.lower() or key in f.name.lower().replace("(", " ").replace(")", " ")
                 .replace(",", " ").replace("/", " ").split()]
        if len(found) != 1:
            known = ", ".join(f.name for f in families())
            raise UsageError(f"--family {wanted!r}: {'ambiguous' if found else 'unknown'} (known: {known})")
        patterns.extend(member + "*" for member in found[0].members)
        owners.append(found[0].name)
    return patterns, owners


def options_from_args(args: argparse.Namespace):
    from shimgen.errors import UsageError
    from shimgen.project.names import prefix_problem
    from shimgen.repair import Options

    mode = args.mode or ("prefix" if args.prefix or args.family else "hide")
    config = None
    if args.config is not None:
        from shimgen.commands.common import load

        config = load(args)
    if mode == "hide":
        if args.prefix or args.pattern or args.family:
            raise UsageError("--prefix, --pattern and --family belong to prefix mode (drop --mode hide)")
        keep_names: tuple[str, ...] = ()
        keep = tuple(args.keep)
        if config is not None:
            from shimgen.project.shims import resolve_shims

            keep += tuple(config.allow)
            keep_names = tuple(resolve_shims(config).exports)
        return Options("hide", keep=keep, keep_names=keep_names)
    if args.keep:
        raise UsageError("--keep belongs to hide mode")
    prefix = args.prefix or (config.prefix if config is not None else None)
    family_globs, owners = _family_patterns(args.family)
    patterns = [*args.pattern, *family_globs]
    if config is not None and not patterns:
        from shimgen.project.shims import resolve_shims, shim_matcher

        patterns = list(shim_matcher(config, resolve_shims(config)).patterns)
    if not prefix or not patterns:
        raise UsageError("prefix mode needs --prefix P and --pattern GLOB or --family NAME (or -c shimgen.toml)")
    problem = prefix_problem(prefix)
    if problem:
        raise UsageError(f"--prefix: {problem}")
    return Options("prefix", prefix=prefix, patterns=tuple(patterns), owners=tuple(owners))


def render_plan(plan) -> str:
    lines = []
    for b in plan.binaries:
        families = f"; bundled: {', '.join(b.families)}" if b.families else ""
        if b.left:
            lines.append(f"{b.key}: left as it is ({b.left}){families}")
        elif plan.mode == "hide":
            lines.append(f"{b.key}: hide {len(b.hide)} export(s), keep {len(b.kept_for)} the set imports{families}")
            for name, who in b.kept_for[:20]:
                lines.append(f"  keep {name}  (imported by {', '.join(who)})")
            if len(b.kept_for) > 20:
                lines.append(f"  ... and {len(b.kept_for) - 20} more kept")
        else:
            lines.append(f"{b.key}: rename {len(b.rename)} symbol(s) to {plan.prefix}*{families}")
    for key, why in plan.skipped:
        lines.append(f"{key}: left as it is ({why})")
    return "\n".join(lines)


def execute(args: argparse.Namespace) -> int:
    from shimgen.errors import UsageError
    from shimgen.repair import repair

    if not args.plan and args.output is None:
        raise UsageError("repair needs -o DIR (or --plan to only show what would change)")
    options = options_from_args(args)
    result = repair(args.paths, args.output, options, plan_only=args.plan)
    if args.format == "json":
        data = result.plan.to_json()
        data["written"] = [str(p) for p in result.outputs]
        print(json.dumps(data, indent=2))
        return 0
    emit(render_plan(result.plan))
    for path in result.outputs:
        emit(f"wrote {path}")
    return 0
