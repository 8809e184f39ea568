"""shimgen prefix-imports: rename a compiled model's plain shim imports to the prefixed names."""

from __future__ import annotations

import argparse
from pathlib import Path

from shimgen.commands.common import add_config_option, emit, load, output_file


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "prefix-imports",
        help="rename the shim imports of an AOTInductor .so or .pt2 to the prefixed names",
        description="Rewrite IN (.so or .pt2) into OUT so that every undefined dynamic symbol matching "
        "the config's shim patterns carries the prefix, then verify OUT: no plain shim imports, and "
        "every prefixed import is in the config's shim set. Nothing is written when a check fails.",
    )
    parser.add_argument("input", type=Path, metavar="IN", help="model .so, or .pt2 package")
    parser.add_argument("-o", "--output", type=Path, metavar="OUT", required=True, help="where to write the result")
    add_config_option(parser)
    parser.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    from shimgen.aoti.prefix_imports import prefix_imports_with_config

    output_file(args.output)
    config = load(args, default_to_bundled=True)
    result = prefix_imports_with_config(args.input, args.output, config)
    for member in result.members:
        label = member.member or result.output.name
        emit(f"{label}: renamed {len(member.renamed)} import(s); imports {len(member.imports)} prefixed shim(s); "
              f"hid {len(member.localized)} private export(s) (C++ runtime, unique symbols)")
    emit(f"wrote {result.output}")
    return 0
