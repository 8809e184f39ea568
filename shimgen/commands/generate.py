"""shimgen generate: render export.h, the CMake/Bazel files, export lists and the manifest."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from shimgen.commands.common import add_config_option, load


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("generate", help="generate export.h, build fragments and export lists")
    add_config_option(parser)
    parser.add_argument("-o", "--output-dir", type=Path, metavar="DIR", help="override [outputs] dir")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if any output is stale")
    parser.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    from shimgen.generate.render import generate
    from shimgen.project.config import with_overrides

    config = with_overrides(load(args), output_dir=args.output_dir)
    result = generate(config, check=args.check)
    for line in result.warnings:
        print(f"shimgen: warning: {line}", file=sys.stderr)
    if args.check:
        print(f"shimgen: {len(result.unchanged)} outputs up to date in {config.outputs.dir}")
        return 0
    for path in result.written:
        print(f"wrote {path}")
    if result.unchanged:
        print(f"{len(result.unchanged)} unchanged in {config.outputs.dir}", file=sys.stdout)
    return 0
