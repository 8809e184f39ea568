"""One module per subcommand, each with ``configure_parser(subparsers)`` and ``execute(args) -> int``.

Modules import heavy dependencies (LIEF, Jinja2) inside ``execute`` so ``--help`` stays fast.
"""

COMMANDS = [
    "init",
    "generate",
    "cmake_dir",
    "build",
    "prefix_imports",
    "run",
    "recompile",
    "check_symbols",
    "symbols",
    "lint",
    "repair",
]
