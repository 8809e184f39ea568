"""Options and helpers shared by several subcommands."""

from __future__ import annotations

from shimgen.errors import printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from pathlib import Path


def path_arg(word: str) -> Path:
    """argparse ``type`` for a file option: a Path, with pathlib imported only when the option is
    given (check-symbols --prefix never pays for it: ~5 ms with the urllib it imports)."""
    from pathlib import Path

    return Path(word)


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-c",
        "--config",
        type=path_arg,
        metavar="FILE",
        help="shimgen.toml or pyproject.toml (default: nearest shimgen.toml from here upwards, "
        "else a pyproject.toml with [tool.shimgen])",
    )


def load(args: argparse.Namespace, *, default_to_bundled: bool = False):
    """The Config named by -c, found from the current directory, or (if allowed) the bundled one."""
    from pathlib import Path

    from shimgen.errors import ConfigError
    from shimgen.project.config import find_config, load_config
    from shimgen.resources import default_config

    try:
        path = find_config(Path.cwd(), args.config)
    except ConfigError:
        if args.config is not None or not default_to_bundled:
            raise
        path = default_config()
    return load_config(path)


def output_file(path: Path | None) -> Path | None:
    """Refuse, before any work, an output file path that is an existing directory (the write at the
    end would fail after all the work was done)."""
    if path is not None and path.is_dir():
        from shimgen.errors import UsageError

        raise UsageError(f"-o {path}: is a directory; name the output file")
    return path


def emit(text: str) -> None:
    """A result line (or lines) on stdout, each with its control characters escaped: file names, member
    names and symbols come from input, and an ESC or a line break in one must not reach the terminal."""
    print("\n".join(printable(line) for line in text.split("\n")))
