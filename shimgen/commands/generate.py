"""shimgen generate: render export.h, the CMake/Bazel files, export lists and the manifest."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from shimgen.commands.common import add_config_option, load

if TYPE_CHECKING:
    from shimgen.project.config import Config

log = logging.getLogger(__name__)


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("generate", help="generate export.h, build fragments and export lists")
    add_config_option(parser)
    parser.add_argument("-o", "--output-dir", type=Path, metavar="DIR", help="override [outputs] dir")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if any output is stale")
    parser.add_argument("--target", metavar="NAME",
                        help="with --objects-list: the symbols_from_targets target whose objects are listed")
    parser.add_argument("--objects-list", type=Path, metavar="FILE",
                        help="read the target's objects named in FILE (one path a line) into the rename set")
    parser.add_argument("--cmake-only", action="store_true",
                        help="write only the CMake fragment and its index (CMake's configure step; with "
                        "--objects-list, a FILE not written yet gives a fragment without names)")
    parser.add_argument("--skip-cmake", action="store_true",
                        help="write every output but the CMake fragment and its index (the build step of "
                        "shimgen_prefix_library())")
    parser.add_argument("--redefine-syms", type=Path, metavar="FILE",
                        help="also write the rename pairs to FILE, as objcopy --redefine-syms reads them "
                        "(shimgen_prefix_library() renames the unprefixed objects with it)")
    parser.set_defaults(execute=execute)


def execute(args: argparse.Namespace) -> int:
    from shimgen.generate.render import generate
    from shimgen.project.config import with_overrides

    config = with_overrides(load(args), output_dir=args.output_dir)
    if args.cmake_only and args.skip_cmake:
        from shimgen.errors import UsageError

        raise UsageError("--cmake-only and --skip-cmake exclude each other")
    objects, pending = target_objects(config, args.target, args.objects_list, cmake_only=args.cmake_only)
    result = generate(config, check=args.check, objects=objects, pending=pending, cmake_only=args.cmake_only,
                      skip_cmake=args.skip_cmake, redefine_syms=args.redefine_syms)
    for line in result.warnings:
        log.warning("warning: %s", line)
    # Progress, not a result: the files are the result. -q silences these lines; errors still show.
    if args.check:
        log.info("%d outputs up to date in %s", len(result.unchanged), config.outputs.dir)
        return 0
    for path in result.written:
        log.info("wrote %s", path)
    if result.unchanged:
        log.info("%d unchanged in %s", len(result.unchanged), config.outputs.dir)
    return 0


def target_objects(config: Config, target: str | None, listing: Path | None, *,
                   cmake_only: bool) -> tuple[list[tuple[Path, str]], bool]:
    """The (file, label) pairs --objects-list names, and whether they are still to be built."""
    from shimgen.errors import UsageError
    from shimgen.project.objects import object_list

    if (target is None) != (listing is None):
        raise UsageError("--target and --objects-list go together")
    if target is None or listing is None:
        return [], False
    if target not in config.symbols_from_targets:
        listed = ", ".join(config.symbols_from_targets) or "none"
        raise UsageError(f"--target {target}: {config.display_name} does not name it in symbols_from_targets "
                         f"(it names: {listed}); add it there")
    if cmake_only and not _all_built(listing):
        return [], True  # a first configure, or one after a clean: the names come with the build
    return object_list(listing), False


def _all_built(listing: Path) -> bool:
    if not listing.is_file():
        return False
    lines = [line.strip() for line in listing.read_text(encoding="utf-8").splitlines() if line.strip()]
    return bool(lines) and all((listing.parent / line).is_file() for line in lines)
