"""Benchmark: the one-pass `shimgen build` of examples/vendor-zstd, cold against warm.

Runs the README's command (zstd from the zstandard sdist, unprefixed build, read, generate,
prefixed build, check) in a fresh build directory, then again with nothing changed, then once more
after touching zstd.c (a copy of the sdist's zstd/: same bytes, newer mtime, so both copies
recompile and the generated files stay as they are). Prints each run's wall time, the compiler
invocations it made (a CMAKE_C_COMPILER_LAUNCHER counts them) and the ratio to the cold run, the
baseline.

    python benchmarks/one_pass.py --sdist zstandard-0.25.0 [--o1] [--keep DIR]

The sdist directory comes from `pip download --no-binary :all: --no-deps zstandard==0.25.0` and
`tar xzf`; --o1 builds with -O1 (as the test does) instead of Release's -O3.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_build(command: list[str], env: dict[str, str], log: Path) -> tuple[float, int]:
    """(wall seconds, compiler invocations) of one `shimgen build`."""
    before = len(log.read_text().splitlines()) if log.exists() else 0
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"shimgen build failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    after = len(log.read_text().splitlines()) if log.exists() else 0
    return wall, after - before


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sdist", type=Path, required=True, help="the extracted zstandard sdist")
    parser.add_argument("--o1", action="store_true", help="build with -O1 instead of -O3")
    parser.add_argument("--keep", type=Path, help="build here (kept) instead of a temporary directory")
    args = parser.parse_args(argv)
    sdist = args.sdist.resolve()
    if not (sdist / "zstd" / "zstd.c").is_file():
        sys.exit(f"{sdist} holds no zstd/zstd.c; extract the zstandard sdist there")
    work = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="shimgen-one-pass-"))
    shutil.rmtree(work / "build", ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    log = work / "compiles.log"
    log.unlink(missing_ok=True)
    launcher = work / "count-cc"
    launcher.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "$@"\n')
    launcher.chmod(0o755)
    sources = work / "zstd"
    shutil.rmtree(sources, ignore_errors=True)
    shutil.copytree(sdist / "zstd", sources)
    command = [sys.executable, "-m", "shimgen", "build", "-c", "examples/vendor-zstd/shimgen.toml",
               "-B", str(work / "build"), "-D", f"ZSTD_SOURCE_DIR={sources}",
               "-D", f"ZSTANDARD_CEXT_DIR={sdist / 'c-ext'}", "-D", f"CMAKE_C_COMPILER_LAUNCHER={launcher}"]
    if args.o1:
        command += ["-D", "CMAKE_C_FLAGS_RELEASE=-O1"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))

    runs = [("cold (fresh build directory)", run_build(command, env, log)),
            ("warm, nothing changed", run_build(command, env, log))]
    (sources / "zstd.c").touch()
    runs.append(("zstd.c touched (same bytes)", run_build(command, env, log)))
    baseline = runs[0][1][0]
    print(f"shimgen build of examples/vendor-zstd ({'-O1' if args.o1 else 'Release -O3'}); baseline: the cold run")
    print(f"{'run':<32} {'wall s':>8} {'compiles':>9} {'ratio':>8}")
    for name, (wall, compiles) in runs:
        print(f"{name:<32} {wall:>8.2f} {compiles:>9} {wall / baseline:>8.3f}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
