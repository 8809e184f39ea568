"""shimgen lint: report sources where a #define rename would rewrite something that is not the symbol."""

from __future__ import annotations

import argparse
from pathlib import Path

from shimgen.commands.common import add_config_option, emit


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "lint",
        help="find renamed names used as struct members, locals, parameters, macro parameters or tags",
        description="Scans PATHs (files, or C/C++/assembly sources under directories), else the config's "
        "lint_sources. Prints file:line: name: used as <kind>; hint. Exit 1 on findings.",
    )
    add_config_option(parser)
    parser.add_argument("--manifest", type=Path, metavar="FILE",
                        help="take the renamed names from a manifest a build wrote (a symbols_from_targets "
                        "config: <build>/shimgen/<target>/manifest.json) instead of resolving the config")
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH")
    parser.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    from shimgen.commands.common import load
    from shimgen.errors import UsageError
    from shimgen.project.lint import check_names, lint_files, source_files
    from shimgen.project.objects import matched_files
    from shimgen.project.shims import resolve_shims

    config = load(args)
    if args.paths:
        files = source_files(args.paths)
    elif config.lint_sources:
        files = matched_files(config.root, config.path, "lint_sources", config.lint_sources)
    else:
        raise UsageError("nothing to lint: pass PATHs or set 'lint_sources' in the config")
    if args.manifest is not None:
        from shimgen.check.policy import Policy

        names = Policy.from_manifest(args.manifest).shims
    else:
        names = resolve_shims(config).names
    findings = check_names(names, config.display_name) + lint_files(files, names, root=config.root,
                                                                      mode=config.rename)
    for finding in findings:
        emit(str(finding))
    print(f"shimgen lint: {len(findings)} findings in {len(files)} files, {len(names)} renamed names")
    return 1 if findings else 0
