"""Benchmark: the one-pass `shimgen build` of a vendoring example against a plain build of the
same targets, measured in the same run.

Runs, in fresh build directories: the plain build (CMake configure + build of the example with
SHIMGEN_PREFIXED=OFF: the same targets, unprefixed, no shimgen: the baseline), the README's
`shimgen build` cold, again with nothing changed, and once more after touching one library source
(same bytes, newer mtime, so it recompiles and the generated files stay as they are). Prints each
run's wall time, the compiler invocations it made (a compiler launcher counts them) and the ratio
to the plain build.

    python benchmarks/one_pass.py --sdist zstandard-0.25.0 [--o1] [--keep DIR] [-j N]
    python benchmarks/one_pass.py --boringssl <grpcio-1.76.0>/third_party/boringssl-with-bazel/src [-j 2]

zstd's sdist comes from `pip download --no-binary :all: --no-deps zstandard==0.25.0` and `tar xzf`;
BoringSSL's from examples/vendor-boringssl/fetch.sh. --o1 builds with -O1 instead of Release's -O3.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Example:
    name: str
    directory: Path
    defines: tuple[str, ...]
    """-D NAME=VALUE entries (without -D) both builds get."""
    touched: Path
    """The library source the third shimgen run touches."""
    launchers: tuple[str, ...]
    """The languages whose compiler launcher counts invocations."""


def run_build(command: list[str], env: dict[str, str], log: Path, cwd: Path = ROOT) -> tuple[float, int]:
    """(wall seconds, compiler invocations) of one command."""
    before = len(log.read_text().splitlines()) if log.exists() else 0
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{command[0]} failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    after = len(log.read_text().splitlines()) if log.exists() else 0
    return wall, after - before


def zstd_example(sdist: Path, work: Path, o1: bool) -> Example:
    if not (sdist / "zstd" / "zstd.c").is_file():
        sys.exit(f"{sdist} holds no zstd/zstd.c; extract the zstandard sdist there")
    sources = work / "zstd"
    shutil.rmtree(sources, ignore_errors=True)
    shutil.copytree(sdist / "zstd", sources)  # a copy: the touch must not change the sdist
    defines = (f"ZSTD_SOURCE_DIR={sources}", f"ZSTANDARD_CEXT_DIR={sdist / 'c-ext'}",
               *(("CMAKE_C_FLAGS_RELEASE=-O1",) if o1 else ()))
    return Example("examples/vendor-zstd", ROOT / "examples" / "vendor-zstd", defines, sources / "zstd.c", ("C",))


def boringssl_example(src: Path, work: Path) -> Example:
    if not (src / "include" / "openssl" / "base.h").is_file():
        sys.exit(f"{src} holds no include/openssl/base.h; run examples/vendor-boringssl/fetch.sh")
    # Touch a copy's file: the sources are linked, not copied (245 files), but mem.cc is a copy.
    sources = work / "boringssl-src"
    if not sources.exists():
        shutil.copytree(src, sources, symlinks=True, ignore=shutil.ignore_patterns("third_party"))
        (sources / "third_party").symlink_to(src / "third_party")
    return Example("examples/vendor-boringssl", ROOT / "examples" / "vendor-boringssl",
                   (f"BORINGSSL_SOURCE_DIR={sources}",), sources / "crypto" / "mem.cc", ("C", "CXX"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--sdist", type=Path, help="the extracted zstandard sdist (examples/vendor-zstd)")
    which.add_argument("--boringssl", type=Path, help="BoringSSL's src/ (examples/vendor-boringssl)")
    parser.add_argument("--o1", action="store_true", help="zstd: build with -O1 instead of -O3")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="parallel compile jobs, both builds (default 2)")
    parser.add_argument("--keep", type=Path, help="build here (kept) instead of a temporary directory")
    args = parser.parse_args(argv)
    work = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="shimgen-one-pass-"))
    work.mkdir(parents=True, exist_ok=True)
    for old in ("plain", "build"):
        shutil.rmtree(work / old, ignore_errors=True)
    example = (zstd_example(args.sdist.resolve(), work, args.o1) if args.sdist
               else boringssl_example(args.boringssl.resolve(), work))
    log = work / "compiles.log"
    log.unlink(missing_ok=True)
    launcher = work / "count-cc"
    launcher.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "$@"\n')
    launcher.chmod(0o755)
    defines = [*example.defines, *(f"CMAKE_{lang}_COMPILER_LAUNCHER={launcher}" for lang in example.launchers)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    cmake = shutil.which("cmake") or "cmake"

    plain = work / "plain"
    configure = [cmake, "-S", str(example.directory), "-B", str(plain), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                 "-DSHIMGEN_PREFIXED=OFF", *(f"-D{d}" for d in defines)]
    start = time.perf_counter()
    _, compiles = run_build(configure, env, log)
    _, more = run_build([cmake, "--build", str(plain), "-j", str(args.jobs)], env, log)
    baseline = (time.perf_counter() - start, compiles + more)

    command = [sys.executable, "-m", "shimgen", "build", "-c", str(example.directory / "shimgen.toml"),
               "-B", str(work / "build"), "-j", str(args.jobs), "--cuda", "off", *(a for d in defines for a in ("-D", d))]
    runs = [("plain build, unprefixed (baseline)", baseline),
            ("shimgen build, cold", run_build(command, env, log)),
            ("shimgen build, nothing changed", run_build(command, env, log))]
    example.touched.touch()
    runs.append((f"shimgen build, {example.touched.name} touched", run_build(command, env, log)))
    print(f"{example.name}, -j {args.jobs} ({'-O1' if args.o1 else 'Release'}); baseline: the plain build "
          "of the same targets (CMake configure + build, SHIMGEN_PREFIXED=OFF), same run")
    print(f"{'run':<40} {'wall s':>8} {'compiles':>9} {'ratio':>8}")
    for name, (seconds, count) in runs:
        print(f"{name:<40} {seconds:>8.2f} {count:>9} {seconds / baseline[0]:>8.3f}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
