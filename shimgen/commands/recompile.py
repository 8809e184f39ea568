"""shimgen recompile: rebuild an AOTInductor .pt2's own C++ with export.h force-included."""

from __future__ import annotations

import argparse
from pathlib import Path

from shimgen.commands.common import add_config_option, load, output_file


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "recompile",
        help="rebuild a CPU .pt2's wrapper.cpp/kernel.cpp with the prefix (export.h force-included)",
        description="Compile the generated sources inside IN.pt2 with the allow-listed flags of the compile "
        "command torch recorded in them (never the recorded compiler or any other word of it), plus '-include export.h -D<macro>=<prefix>', link them with the model's constants, "
        "verify the result like prefix-imports does, and write OUT (.so or .pt2).",
    )
    parser.add_argument("input", type=Path, metavar="IN", help=".pt2 package (CPU model)")
    parser.add_argument("-o", "--output", type=Path, metavar="OUT", required=True, help="OUT.so or OUT.pt2")
    parser.add_argument("--compiler", metavar="CXX", help="C++ compiler (default: $CXX, else g++; never the one the package names)")
    add_config_option(parser)
    parser.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    from shimgen.aoti.recompile import recompile

    output_file(args.output)
    config = load(args, default_to_bundled=True)
    result = recompile(args.input, args.output, config, compiler=args.compiler)
    print(f"{result.member}: rebuilt from {len(result.sources)} source(s); imports {len(result.imports)} prefixed shim(s)")
    print(f"wrote {result.output}")
    return 0
