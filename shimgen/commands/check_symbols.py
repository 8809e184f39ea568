"""shimgen check-symbols: prove on compiled binaries that the shims are prefixed, kept and alone."""

from __future__ import annotations

import os
import sys

from shimgen.errors import UsageError, printable

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from pathlib import Path

# argparse, pathlib and the shared options are imported inside the functions: ``start_from_argv``
# runs before them (see shimgen.cli.main), so a wheel's decompression overlaps their import.


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    from shimgen.binary.load import path_name
    from shimgen.commands.common import add_config_option, path_arg

    parser = subparsers.add_parser(
        "check-symbols",
        help="check binaries: shims prefixed, required shims kept, no plain shim imported",
        description="Check shared libraries, executables, objects, archives, directories and wheels "
        "against the shim policy. Exit 0 clean, 1 error findings, 2 bad input.",
    )
    # A str, named as str(Path(word)) names it (the reports show it), without importing pathlib.
    parser.add_argument("paths", nargs="+", type=path_name, metavar="PATH")
    source = parser.add_mutually_exclusive_group()
    add_config_option(source)
    source.add_argument("--manifest", type=path_arg, metavar="FILE", help="manifest.json written by 'shimgen generate'")
    source.add_argument("--prefix", metavar="P", help="check against this prefix only (no config)")
    parser.add_argument("--pattern", action="append", default=[], metavar="GLOB",
                        help="with --prefix: a shim name glob (repeatable; default aoti_torch_*)")
    parser.add_argument("--strict", action="store_true",
                        help="also report foreign exports (SG006) of the shim libraries (not of their dependents)")
    parser.add_argument("--required", action="append", default=[], metavar="GLOB",
                        help="require only the shims matching GLOB (repeatable) in this build, instead of the "
                        "config's 'required' (one config for a CPU-only and a CUDA build)")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    parser.add_argument("-o", "--output", type=path_arg, metavar="FILE", help="write the report here (atomically)")
    parser.set_defaults(execute=execute, may_log=may_log)


def may_log(args: argparse.Namespace) -> bool:
    """Whether this run may log (shimgen.cli sets up logging only then). The readers and the rules
    never log (a unit test keeps shimgen.binary and shimgen.check free of logging); a config found
    or named may resolve shims through code that does (a compiler run, at -v)."""
    return args.prefix is None and args.manifest is None


def policy_from_args(args: argparse.Namespace):
    """The Policy named by -c / --manifest / --prefix, or a config found from here; else UsageError."""
    from shimgen.check.policy import Policy
    from shimgen.errors import ConfigError

    if args.pattern and not args.prefix:
        raise UsageError("--pattern needs --prefix (a config or manifest carries its own patterns)")
    if args.prefix is not None:
        return Policy.from_options(args.prefix, tuple(args.pattern))
    if args.manifest is not None:
        return Policy.from_manifest(args.manifest)
    from pathlib import Path

    from shimgen.project.config import find_config, load_config
    from shimgen.project.shims import resolve_shims

    try:
        path = find_config(Path.cwd(), args.config)
    except ConfigError as exc:
        if args.config is not None:
            raise
        raise UsageError(
            "no policy to check against: pass -c shimgen.toml, --manifest generated/manifest.json, "
            "or --prefix PREFIX [--pattern GLOB] (no shimgen.toml found from here upwards)"
        ) from exc
    config = load_config(path)
    return Policy.from_config(config, resolve_shims(config))


def use_color(stream) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def _refuse_output_over_an_input(args: argparse.Namespace) -> None:
    """-o may not name a binary being checked or the policy's file (as prefix-imports refuses): the
    report would replace it. That includes a binary found by walking a checked directory."""
    from pathlib import Path

    from shimgen.files import is_within, same_file

    for source in [*args.paths, args.manifest, args.config]:
        if source is not None and same_file(args.output, Path(source)):
            raise UsageError(f"{args.output}: the report must not overwrite an input ({source})")
    for directory in (Path(p) for p in args.paths if Path(p).is_dir()):
        if is_within(args.output, directory) and _is_binary(args.output.resolve()):
            raise UsageError(f"{args.output}: the report must not overwrite an input (a binary in the checked "
                             f"directory {directory})")


def _is_binary(path: Path) -> bool:
    """True for a regular file whose first bytes announce a format the directory walk checks
    (``path`` is resolved: ``d/new/../lib.so`` is written as ``d/lib.so``)."""
    from shimgen.binary.magic import HEAD_BYTES, sniff

    if not path.is_file():
        return False
    try:
        with path.open("rb") as handle:
            return sniff(handle.read(HEAD_BYTES)) is not None
    except OSError:
        return False


def start_from_argv(words: list[str]) -> bool:
    """``_start_wheels`` on every word after ``check-symbols`` that is not an option: called by the
    CLI before it imports argparse and builds its parser. An option's value that happens to be a
    zip is decompressed for nothing, never read as a PATH (what the parser decides is what is
    checked). Returns whether any was started."""
    after = words[words.index("check-symbols") + 1:] if "check-symbols" in words else []
    return _start_wheels([_as_path_names_it(w) for w in after if w and not w.startswith("-")])


def _as_path_names_it(word: str) -> str:
    """``str(Path(word))`` without importing pathlib (the loader keys a started wheel by it):
    empty and "." components dropped, the root kept. A spelling this misses only costs the
    early start (the loader then decompresses the wheel itself)."""
    parts = [p for p in word.split("/") if p not in ("", ".")]
    root = "/" if word.startswith("/") else ""
    return root + "/".join(parts) if parts or root else "."


def _start_wheels(paths: list[Path] | list[str]) -> bool:
    """Start decompressing the binary members of the zips (wheels) among ``paths`` on worker
    threads now, so zlib runs on the other core while the checker's modules are imported (on a
    wheel of one 11 MB library, the two take about as long). Returns whether any was started."""
    import stat

    zips = []
    for path in paths:
        try:  # a regular file only (a FIFO would block), read without side effects
            if not stat.S_ISREG(os.stat(path).st_mode):
                continue
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            try:
                if os.read(fd, 4) == b"PK\x03\x04":
                    zips.append(str(path))
            finally:
                os.close(fd)
        except (OSError, ValueError):
            continue  # the reader reports it, in its own words
    if not zips:
        return False
    from shimgen.binary.magic import HEAD_BYTES, is_member_binary
    from shimgen.binary.zipread import DEFAULT_CAPS, start_early

    start_early(zips, DEFAULT_CAPS, is_member_binary, HEAD_BYTES)
    return True


def execute(args: argparse.Namespace) -> int:
    from shimgen.commands.common import output_file

    output_file(args.output)
    started = _start_wheels(args.paths)
    try:
        return _check(args)
    finally:
        if started:
            from shimgen.binary.zipread import stop_early

            stop_early()


def _check(args: argparse.Namespace) -> int:
    from shimgen.check import check_paths, render_json, render_sarif, render_text

    if args.output is not None:
        _refuse_output_over_an_input(args)
    policy = policy_from_args(args).requiring(args.required)
    if args.output is not None and args.prefix is None:
        from pathlib import Path

        from shimgen.files import same_file

        if same_file(args.output, Path(policy.source)):  # also the config found from here, not named by -c
            raise UsageError(f"{args.output}: the report must not overwrite an input ({policy.source})")
    report = check_paths(args.paths, policy, strict=args.strict)
    if args.format == "json":
        text = render_json(report)
    elif args.format == "sarif":
        text = render_sarif(report)
    else:
        # Notes (SG007 duplicates the dynamic linker unifies) show with the global -v/--verbose.
        text = render_text(report, color=args.output is None and use_color(sys.stdout),
                           verbose=bool(getattr(args, "verbose", False)))
    if args.output is not None:
        from shimgen.files import write_if_changed

        write_if_changed(args.output, text.encode())
        print(printable(f"shimgen: {len(report.findings)} finding(s), {len(report.notes)} note(s); report written to "
                        f"{args.output}"), file=sys.stderr)
    else:
        sys.stdout.write(text)
    return report.exit_code
