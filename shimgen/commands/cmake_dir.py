"""shimgen cmake-dir: print the directory holding shimgenConfig.cmake (for -Dshimgen_DIR=...)."""

from __future__ import annotations

import argparse


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("cmake-dir", help="print the directory of shimgenConfig.cmake")
    parser.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    from shimgen.resources import cmake_dir

    print(cmake_dir())
    return 0
