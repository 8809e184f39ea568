"""Benchmark: `shimgen repair WHEEL -o DIR` (hide mode, the whole process) against the I/O no repair
can avoid: extracting every member of that wheel with Python's zipfile and re-zipping them all
(ZIP_DEFLATED, streamed, in the wheel's order), also a whole process. Runs interleaved, so machine
noise hits both alike; prints the median wall time, the peak RSS of each child (wait4's rusage),
and the ratio repair / baseline. The target of issue 21: ratio <= 1.5 on tensorflow-cpu, and a peak
RSS far below the wheel's size (members are streamed, never held whole).

    python benchmarks/repair.py [--wheel PATH] [--runs 3]

Without --wheel, tensorflow-cpu 2.21.0 (cp311, manylinux x86_64, 274 MB) is fetched with
`pip download` into ~/.cache/shimgen-bench. It also prints what repair changed (per binary,
exports hidden and bundled-library families found, from `--plan --format json`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = "tensorflow-cpu==2.21.0"

BASELINE = r"""
import shutil, sys, tempfile, zipfile
from pathlib import Path
wheel, out = Path(sys.argv[1]), Path(sys.argv[2])
with tempfile.TemporaryDirectory(dir=out) as tmp:
    tmp = Path(tmp)
    with zipfile.ZipFile(wheel) as source:
        names = [i.filename for i in source.infolist() if not i.is_dir()]
        for name in names:
            target = tmp / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with source.open(name) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
    with zipfile.ZipFile(out / wheel.name, "w", zipfile.ZIP_DEFLATED) as zipped:
        for name in names:
            with open(tmp / name, "rb") as src, zipped.open(name, "w", force_zip64=True) as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
"""


def fetch_default() -> Path:
    cache = Path.home() / ".cache" / "shimgen-bench"
    cache.mkdir(parents=True, exist_ok=True)
    found = sorted(cache.glob("tensorflow_cpu-2.21.0-cp311-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                        "-d", str(cache), DEFAULT], check=True)
        found = sorted(cache.glob("tensorflow_cpu-2.21.0-cp311-*.whl"))
    return found[-1]


def run_once(cmd: list[str], cwd: Path) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in KiB, exit status) of one child."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{cmd[:4]} failed ({code}): {process.stderr.read().decode()[-2000:]}")
    return wall, usage.ru_maxrss, code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wheel", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    wheel = (args.wheel or fetch_default()).resolve()
    size = wheel.stat().st_size
    print(f"wheel: {wheel.name} ({size / 1e6:.0f} MB)")
    commands = {
        "zipfile extract + re-zip": [sys.executable, "-c", BASELINE, str(wheel)],
        "shimgen repair": [sys.executable, "-m", "shimgen", "repair", str(wheel), "-o"],
    }
    walls: dict[str, list[float]] = {name: [] for name in commands}
    peaks: dict[str, int] = dict.fromkeys(commands, 0)
    with tempfile.TemporaryDirectory(prefix="shimgen-bench-") as scratch:
        for run in range(args.runs):
            for name, cmd in commands.items():
                out = Path(scratch) / f"{run}-{len(walls[name])}-{name.split()[0]}"
                out.mkdir()
                wall, rss, _ = run_once([*cmd, str(out)], ROOT)
                walls[name].append(wall)
                peaks[name] = max(peaks[name], rss)
                for produced in out.glob("*.whl"):
                    produced.unlink()  # keep the disk use to one output at a time
    base = statistics.median(walls["zipfile extract + re-zip"])
    print(f"{'command':<26} {'wall s':>8} {'peak RSS MB':>12} {'x baseline':>11}")
    for name in commands:
        median = statistics.median(walls[name])
        print(f"{name:<26} {median:8.2f} {peaks[name] / 1024:12.1f} {median / base:11.2f}")
    print(f"runs: {args.runs}, interleaved; medians. wheel size {size / 1e6:.0f} MB")
    # Last: the plan's 555k names would otherwise inflate this process, and Linux counts a child's
    # RSS before exec into its ru_maxrss.
    plan = subprocess.run([sys.executable, "-m", "shimgen", "repair", str(wheel), "--plan", "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT, check=True)
    data = json.loads(plan.stdout)
    hidden = sum(len(b["hide"]) for b in data["binaries"])
    kept = sum(len(b["kept_for_set"]) for b in data["binaries"])
    left = sum(1 for b in data["binaries"] if b["left_because"])
    print(f"plan: {len(data['binaries'])} ELF libraries, {hidden} exports hidden, {kept} kept for the set, "
          f"{left} libraries left alone (loaded by name)")
    for b in data["binaries"]:
        if b["bundled_families"]:
            print(f"  {b['binary'].split('(', 1)[-1].rstrip(')')}: {', '.join(b['bundled_families'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
