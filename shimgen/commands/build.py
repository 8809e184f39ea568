"""shimgen build: generate, configure with CMake + Ninja, build, and check the built library."""

from __future__ import annotations

import argparse
from pathlib import Path

from shimgen.commands.common import add_config_option, emit, load


def configure_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "build", help="build the shim runtime (or the config's CMake project) and check its symbols"
    )
    add_config_option(parser)
    parser.add_argument("-B", "--build-dir", type=Path, default=Path("build") / "shimgen", metavar="DIR",
                        help="build directory (default: build/shimgen)")
    parser.add_argument("--cuda", choices=("auto", "on", "off"), default="auto",
                        help="build with CUDA: auto (the bundled runtime: when nvcc and cuBLAS are found; "
                        "your project: when nvcc is, passed as CMAKE_CUDA_COMPILER; off for a "
                        "symbols_from_targets project), on, off (default: auto)")
    parser.add_argument("--build-type", choices=("Release", "Debug", "RelWithDebInfo", "MinSizeRel"),
                        default="Release", help="CMAKE_BUILD_TYPE (default: Release)")
    parser.add_argument("-j", "--jobs", type=int, metavar="N", help="parallel build jobs")
    parser.add_argument("--sanitize", type=_sanitizers, default=(), metavar="LIST",
                        help="build the native code under sanitizers: address,undefined or thread (and leak)")
    parser.add_argument("-D", dest="cache", action="append", type=_cache_entry, default=[], metavar="NAME=VALUE",
                        help="a CMake cache entry for the project (repeatable), e.g. -D ZSTD_SOURCE_DIR=/src/zstd")
    parser.add_argument("--no-wait", dest="wait", action="store_false",
                        help="fail at once when another shimgen build holds the build directory (default: wait)")
    parser.set_defaults(execute=execute)


def _sanitizers(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _cache_entry(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name:
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=VALUE")
    return name.partition(":")[0], value  # -D NAME:TYPE=VALUE as cmake spells it; the type is not needed


def execute(args: argparse.Namespace) -> int:
    from shimgen.builder.builder import BuildOptions, build
    from shimgen.builder.runtime_cache import record_build

    config = load(args, default_to_bundled=True)
    quiet = bool(getattr(args, "quiet", False))
    options = BuildOptions(build_dir=args.build_dir, cuda=args.cuda, build_type=args.build_type, jobs=args.jobs,
                           sanitize=args.sanitize, wait=args.wait, cache=tuple(args.cache), stream=not quiet)
    result = build(config, options)  # progress through the shimgen logger: -q silences it, -v adds commands
    record_build(config, options, result)  # so 'shimgen run' finds it from any directory
    # The result, on stdout (progress went to the logger, on stderr).
    if result.check.text:
        print(result.check.text)
    emit(f"shimgen build: {result.build_dir} (CUDA {'on' if result.cuda else 'off'})")
    for artifact in result.artifacts:
        emit(f"  {artifact.path}: {artifact.prefixed_exports}/{result.shim_count} prefixed shims exported")
    if result.generated_changed:
        print(f"  generated: {len(result.generated_changed)} files written")
    print(f"  check-symbols: {'passed' if result.check.exit_code == 0 else 'FAILED'}")
    return result.check.exit_code
