"""Benchmark: the whole `shimgen check-symbols` process against nm and readelf on libtorch_cpu.so.

One process runs every reader as a subprocess (whole process: interpreter start-up included),
several times each, interleaved so machine noise hits all alike, and prints the median wall time,
the peak RSS of that child (wait4's rusage) and the ratio to `nm -D --defined-only`.
`python -c pass` is printed too: the interpreter's own floor, which no Python tool can go below.

    python benchmarks/check_symbols.py [--runs 9] [--lib PATH]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def default_lib() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        sys.exit("torch is not installed: pip install torch==2.13.0 (or pass --lib PATH)")
    return Path(spec.origin).parent / "lib" / "libtorch_cpu.so"


def run_once(cmd: list[str], env: dict[str, str]) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in KiB, exit status) of one child."""
    start = time.perf_counter()
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss, process.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--lib", type=Path, default=None)
    args = parser.parse_args()
    lib = args.lib or default_lib()
    if not lib.is_file():
        sys.exit(f"{lib}: not found")
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    readers = {
        "nm -D --defined-only": ["nm", "-D", "--defined-only", str(lib)],
        "readelf --dyn-syms -W": ["readelf", "--dyn-syms", "-W", str(lib)],
        "shimgen check-symbols": [sys.executable, "-m", "shimgen", "check-symbols", str(lib),
                                  "--prefix", "executorch_", "--pattern", "aoti_torch_*"],
        "python -c pass (floor)": [sys.executable, "-c", "pass"],
    }
    for cmd in readers.values():
        if shutil.which(cmd[0]) is None:
            sys.exit(f"{cmd[0]} is not installed")
    walls: dict[str, list[float]] = {name: [] for name in readers}
    peaks: dict[str, int] = dict.fromkeys(readers, 0)
    statuses: dict[str, set[int]] = {name: set() for name in readers}
    for cmd in readers.values():  # warm the page cache and the .pyc files
        run_once(cmd, env)
    for _ in range(args.runs):
        for name, cmd in readers.items():
            wall, rss, status = run_once(cmd, env)
            walls[name].append(wall)
            peaks[name] = max(peaks[name], rss)
            statuses[name].add(status)
    base = statistics.median(walls["nm -D --defined-only"])
    print(f"{lib} ({lib.stat().st_size:,} bytes), median of {args.runs} runs, whole process")
    print(f"{'reader':<26} {'wall ms':>8} {'peak RSS MB':>12} {'x nm':>6}  exit")
    for name in readers:
        median = statistics.median(walls[name])
        print(f"{name:<26} {median * 1000:8.1f} {peaks[name] / 1024:12.1f} {median / base:6.2f}  "
              f"{','.join(map(str, sorted(statuses[name])))}")
    shimgen = statistics.median(walls["shimgen check-symbols"])
    floor = statistics.median(walls["python -c pass (floor)"])
    print(f"target: shimgen <= 1.5 x nm ({1.5 * base * 1000:.0f} ms) and <= 150 MB; "
          f"shimgen minus the interpreter floor: {(shimgen - floor) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
