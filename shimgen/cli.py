"""Command line: parse, call one library function, map errors to exit codes.

Exit codes: 0 success, 1 findings or stale outputs, 2 bad input or usage. This is the only module
that turns exceptions into exit codes; a traceback is shown only with --debug.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Sequence

from shimgen import __version__
from shimgen.commands import COMMANDS
from shimgen.errors import ShimgenError, os_error_line, printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse

# argparse and logging are imported by the functions below, after ``main`` has started a wheel's
# decompression (check-symbols): their ~20 ms of imports then overlap it.


def _parser_class() -> type[argparse.ArgumentParser]:
    import argparse

    class _Formatter(argparse.HelpFormatter):
        """argparse's formatter, told the terminal's width: left to itself it imports shutil (and
        with it zlib, bz2 and lzma) for every parser, every run, to ask."""

        def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                     width: int | None = None) -> None:
            super().__init__(prog, indent_increment, max_help_position, width or _columns() - 2)

    class _Parser(argparse.ArgumentParser):
        def __init__(self, *args, **kwargs) -> None:
            kwargs.setdefault("formatter_class", _Formatter)
            super().__init__(*args, **kwargs)

        def error(self, message: str):  # exits 2 on usage errors; keep its one line
            self.print_usage(sys.stderr)
            self.exit(2, f"{self.prog}: error: {message}\n")

    return _Parser


def _columns() -> int:
    """The terminal's width as shutil.get_terminal_size() gives it: $COLUMNS, else stdout's, else 80."""
    import os

    try:
        return int(os.environ["COLUMNS"]) if int(os.environ.get("COLUMNS", "0")) > 0 else \
            os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (KeyError, ValueError, AttributeError, OSError):
        return 80


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``argv`` naming a command, only that command's subparser (importing
    and configuring all of them costs ~20 ms, a sixth of `check-symbols` on libtorch_cpu.so)."""
    import argparse

    return _declare(_parser_class(), argparse.SUPPRESS, argv)


def _declare(parser_class, suppress: object, argv: Sequence[str] | None):
    """Every option, declared once: to argparse (``build_parser``), or to
    ``shimgen.commands.plainargs``, which reads the same declarations and parses the plain forms
    without importing argparse."""
    import importlib

    parser = parser_class(
        prog="shimgen",
        description="Prefix a C-ABI shim library from one config, and prove it on the compiled binary.",
    )
    parser.add_argument("--version", action="version", version=f"shimgen {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    _add_verbosity(parser, default=False)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=parser_class)
    named = _named_command(argv)
    for name in COMMANDS:
        if named is not None and name != named:
            continue
        module = importlib.import_module(f"shimgen.commands.{name}")
        module.configure_parser(subparsers)
    for subparser in subparsers.choices.values():
        # Also after the command (`shimgen build -v`); SUPPRESS keeps a flag given before it.
        _add_verbosity(subparser, default=suppress)
    return parser


def parse(argv: Sequence[str] | None = None):
    """(namespace, None) for argv in a plain form (``shimgen.commands.plainargs``: the command first,
    exact options, one run of paths), without importing argparse (with the gettext, locale and re it
    imports: ~30M instructions, an eighth of checking libtorch_cpu.so); else argparse's parser
    and what it parsed (every other form, --help and every usage error)."""
    words = list(sys.argv[1:] if argv is None else argv)
    if _named_command(words) is not None:
        from shimgen.commands import plainargs

        try:
            args = plainargs.parse(_declare(plainargs.Parser, plainargs.SUPPRESS, words), words)
        except plainargs.Unsupported:
            args = None
        if args is not None:
            return args, None
    parser = build_parser(argv)
    return parser.parse_args(argv), parser


def _named_command(argv: Sequence[str] | None) -> str | None:
    """The command module ``argv`` names (its first argument that is not an option: no global
    option takes a value), or None when it names none or an unknown one (argparse then lists all)."""
    words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
    module = words[0].replace("-", "_") if words else None
    return module if module in COMMANDS else None


def _add_verbosity(parser: argparse.ArgumentParser, *, default: object) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-v", "--verbose", action="store_true", default=default,
                       help="show each command shimgen runs (CMake, Ninja, compilers) and its output; "
                       "check-symbols also shows notes")
    group.add_argument("-q", "--quiet", action="store_true", default=default,
                       help="print only errors and results, no progress")


def _start_logging(args: argparse.Namespace) -> Callable[[], None]:
    """Route the ``shimgen`` loggers to stderr for one call of main: DEBUG with -v, WARNING with -q
    (progress is INFO; warnings and errors always show). Returns what undoes it (a plain function,
    not a context manager: contextlib costs check-symbols an import, ~1.5M instructions)."""
    import logging

    class _PrintableFormatter(logging.Formatter):
        """Log lines carry names from input (paths, prefixes, symbols): escape what a terminal would act
        on. A record may span lines on purpose (a tool's captured output at DEBUG): each line is escaped."""

        def format(self, record: logging.LogRecord) -> str:
            return "\n".join(printable(line) for line in super().format(record).split("\n"))

    logger = logging.getLogger("shimgen")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_PrintableFormatter("shimgen: %(message)s"))
    saved = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if args.verbose else logging.WARNING if args.quiet else logging.INFO)
    logger.propagate = False

    def stop() -> None:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]

    return stop


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    early = False
    collecting = gc.isenabled()
    if "check-symbols" in words:
        # A short run that makes no reference cycles worth collecting, yet holds big sets of name
        # offsets (74k in libtorch_cpu.so) that every full collection would walk again: ~6% of
        # the command's instructions there. Reference counting still frees everything.
        gc.disable()
        # Before argparse and the parser exist: a wheel's members start decompressing on worker
        # threads now (shimgen.commands.check_symbols), while this thread imports the rest.
        from shimgen.commands.check_symbols import start_from_argv

        early = start_from_argv(words)
    try:
        return _main(argv)
    finally:
        if collecting:
            gc.enable()
        if early:
            from shimgen.binary.zipread import stop_early

            stop_early()


def _main(argv: Sequence[str] | None) -> int:
    args, parser = parse(argv)
    if not getattr(args, "execute", None):
        (parser or build_parser([])).print_help(sys.stderr)
        return 2
    try:
        # A command whose run cannot log (check-symbols with --prefix or --manifest) skips the
        # logger set-up: importing logging costs ~8 ms, a tenth of checking libtorch_cpu.so.
        may_log = getattr(args, "may_log", None)
        stop_logging = _start_logging(args) if may_log is None or may_log(args) else None
        try:
            return int(args.execute(args))
        finally:
            if stop_logging is not None:
                stop_logging()
    except ShimgenError as exc:
        if args.debug:
            raise
        for problem in exc.problems:
            print(f"shimgen: error: {printable(problem)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("shimgen: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # the one place that turns surprises into a line
        if args.debug:
            raise
        print(f"shimgen: {printable(_one_line(exc))}", file=sys.stderr)
        return 2


def _one_line(exc: Exception) -> str:
    """The line for an error no library code turned into a ShimgenError."""
    if isinstance(exc, OSError):  # a full or read-only disk, a file size limit, a directory where a file goes
        return f"error: {os_error_line(exc)}"
    if isinstance(exc, RecursionError):  # deeply nested TOML or JSON: the parsers recurse per level
        return "error: input nested too deeply to read (TOML or JSON nesting)"
    if isinstance(exc, ValueError) and "null byte" in str(exc):
        return "error: a path contains a NUL character"
    return f"internal error: {type(exc).__name__}: {exc} (rerun with --debug)"


def entry() -> None:
    sys.exit(main())
