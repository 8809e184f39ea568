"""shimgen init: write a commented starter shimgen.toml."""

from __future__ import annotations

import argparse
from pathlib import Path

STARTER = """\
# shimgen config: one source for the shim prefix. Reference: README.md, "Config reference".

# Prepended to every shim name: aoti_torch_empty_strided -> {prefix}aoti_torch_empty_strided
prefix = "{prefix}"

# Compile definition carrying the prefix, and the macro marking exported declarations.
# macro = "AOTI_SHIM_SYMBOL_PREFIX"
# export_macro = "AOTI_SHIM_EXPORT"

# Which names are shims when seen in a binary.
# patterns = ["aoti_torch_*"]

# The shim set: explicit names, and/or headers scanned for declarations marked with export_macro.
symbols = ["aoti_torch_empty_strided"]
# headers = ["include/**/*.h"]

# Must be present in built artifacts (default: every shim). Other exports allowed by --strict.
# required = ["aoti_torch_*"]
# allow = ["my_runtime_*"]

[outputs]
# dir = "generated"
# header = "export.h"   # set any output to false to switch it off
"""


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("init", help="write a starter shimgen.toml here")
    parser.add_argument("--prefix", default="executorch_", help="symbol prefix (default: executorch_)")
    parser.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    from shimgen.errors import UsageError
    from shimgen.files import write_if_changed
    from shimgen.project.names import prefix_problem

    problem = prefix_problem(args.prefix)
    if problem:
        raise UsageError(f"--prefix: {problem}")
    target = Path.cwd() / "shimgen.toml"
    if target.exists() or target.is_symlink():  # a dangling link too: the write would replace it
        raise UsageError(f"{target} already exists; not overwriting it")
    write_if_changed(target, STARTER.format(prefix=args.prefix).encode())
    print(f"wrote {target}")
    return 0
