"""Benchmark: the whole `shimgen check-symbols` process against nm and readelf on libtorch_cpu.so,
then the real-wheel sweep (every ELF file in the installed torch, numpy and scipy, checked as one
set, as tests/integration/test_check_sweep.py does) against `nm -D --defined-only` over the same
files in one process.

One process runs every reader as a subprocess (whole process: interpreter start-up included),
several times each, interleaved so machine noise hits all alike, and prints the median wall time,
the peak RSS of that child (wait4's rusage) and the ratio to `nm -D --defined-only`.
`python -c pass` is printed too: the interpreter's own floor, which no Python tool can go below.

    python benchmarks/check_symbols.py [--runs 9] [--lib PATH] [--sweep-runs 3] [--against TREE]
    python benchmarks/check_symbols.py --instructions [--against TREE]

``--instructions``: instead of wall times, the instructions each process executes (valgrind
``--tool=callgrind``, user space, whole process), which machine load does not move: on the shared
2-core machines wall ratios of one run move by 0.2-0.4 between runs.

``--against TREE``: also time the shimgen of another checkout (e.g. ``git worktree add /tmp/base
main``), in the same runs, to compare two versions under the same machine load.
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
    # Run from the tree on PYTHONPATH: `python -m` puts the working directory first on sys.path.
    tree = env["PYTHONPATH"].split(os.pathsep)[0]
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tree)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss, process.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--lib", type=Path, default=None)
    parser.add_argument("--sweep-runs", type=int, default=3, help="runs of the wheel sweep (0: skip it)")
    parser.add_argument("--against", type=Path, default=None, help="another checkout whose shimgen is timed too")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions with valgrind --tool=callgrind instead of timing (load-independent)")
    parser.add_argument("--floor", action="store_true",
                        help="only the floor decomposition of `check-symbols --prefix p_ LIB` (issue 20: <= 0.7x nm)")
    args = parser.parse_args()
    lib = args.lib or default_lib()
    if not lib.is_file():
        sys.exit(f"{lib}: not found")
    env = tree_env(ROOT)
    other = tree_env(args.against) if args.against else None
    if args.floor:
        floor_decomposition(lib, args.runs, env)
        return 0
    if args.instructions:
        instructions(lib, env, other)
        return 0
    readers = {
        "nm -D --defined-only": ["nm", "-D", "--defined-only", str(lib)],
        "readelf --dyn-syms -W": ["readelf", "--dyn-syms", "-W", str(lib)],
        "shimgen check-symbols": [sys.executable, "-m", "shimgen", "check-symbols", str(lib),
                                  "--prefix", "executorch_", "--pattern", "aoti_torch_*"],
        "python -c pass (floor)": [sys.executable, "-c", "pass"],
    }
    if other is not None:
        readers["shimgen (--against)"] = readers["shimgen check-symbols"]
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
            wall, rss, status = run_once(cmd, other if other is not None and "against" in name else env)
            walls[name].append(wall)
            peaks[name] = max(peaks[name], rss)
            statuses[name].add(status)
    base = statistics.median(walls["nm -D --defined-only"])
    print(f"{lib} ({lib.stat().st_size:,} bytes), median of {args.runs} runs, whole process")
    print(f"{'reader':<26} {'wall ms':>8} {'peak RSS MB':>12} {'x nm':>6} {'pairs':>6}  exit")
    for name in readers:
        median = statistics.median(walls[name])
        # The median of this reader's ratio to nm within each round (the pair run back to back).
        pairs = statistics.median(w / n for w, n in zip(walls[name], walls["nm -D --defined-only"]))
        print(f"{name:<26} {median * 1000:8.1f} {peaks[name] / 1024:12.1f} {median / base:6.2f} {pairs:6.2f}  "
              f"{','.join(map(str, sorted(statuses[name])))}")
    shimgen = statistics.median(walls["shimgen check-symbols"])
    floor = statistics.median(walls["python -c pass (floor)"])
    print(f"load average {os.getloadavg()[0]:.1f}; issue 20 item 6: shimgen <= 0.7 x nm ({0.7 * base * 1000:.0f} ms) "
          f"and <= 150 MB; shimgen minus the interpreter floor: {(shimgen - floor) * 1000:.0f} ms")
    if args.sweep_runs > 0:
        sweep(args.sweep_runs, env, other)
    return 0


# pip's console-script launcher for ``shimgen = "shimgen.cli:entry"`` (distlib's template), as a user
# runs `shimgen`: it imports re itself before shimgen.
LAUNCHER = """# -*- coding: utf-8 -*-
import re
import sys
from shimgen.cli import entry
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(entry())
"""

# Every module `check-symbols --prefix P LIB` imports, imported and nothing run.
CHECK_IMPORTS = ("import shimgen.cli, shimgen.commands.check_symbols, shimgen.commands.common, argparse, "
                 "shimgen.check, shimgen.binary.load, shimgen.check.libraries, shimgen.check.runtimes")

# One child: the command's phases timed in-process (perf_counter), printed as name=ms.
PHASES = r"""
import time
t = [("start", time.perf_counter())]
import sys
from shimgen.cli import build_parser
from shimgen.commands import check_symbols
from shimgen.check import check_paths, render_text
from shimgen.check import libraries, runtimes
import shimgen.binary.load
t.append(("imports", time.perf_counter()))
argv = ["check-symbols", "--prefix", "p_", sys.argv[1]]
args = build_parser(argv).parse_args(argv)
policy = check_symbols.policy_from_args(args)
libraries.families(), runtimes.families()
t.append(("parse args, policy, family data", time.perf_counter()))
from shimgen.binary.load import load_paths
binaries = load_paths(args.paths, hidden_of=policy.required_prefixed)
t.append(("read .dynsym/.dynstr/.gnu.hash", time.perf_counter()))
from shimgen.check.rules import expect_searches
expect_searches(policy, binaries)
for b in binaries:
    b.exports.starting_with(policy.prefix)
t.append(("one search of .dynstr for every prefix", time.perf_counter()))
from shimgen.check import check_binaries
report = check_binaries(binaries, policy)
t.append(("rules", time.perf_counter()))
text = render_text(report, color=False)
t.append(("render", time.perf_counter()))
print(" ".join(f"{name.replace(' ', '_')}={1000 * (b - a):.2f}" for (_, a), (name, b) in zip(t, t[1:])))
"""


def floor_decomposition(lib: Path, runs: int, env: dict[str, str]) -> None:
    """Where the time of `check-symbols --prefix p_ LIB` goes, against nm, in the same rounds:
    whole processes (the interpreter alone; it plus every module the check imports; the command
    through ``python -m`` and through pip's launcher), then the command's phases timed inside one
    process (medians). The sum is what 0.7x nm would have to fit in."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-floor-") as scratch:
        launcher = Path(scratch) / "shimgen"
        launcher.write_text(LAUNCHER)
        readers = {
            "nm -D --defined-only": ["nm", "-D", "--defined-only", str(lib)],
            "python -c pass": [sys.executable, "-c", "pass"],
            "python -c 'import <check path>'": [sys.executable, "-c", CHECK_IMPORTS],
            "python -m shimgen check-symbols --prefix p_": [sys.executable, "-m", "shimgen", "check-symbols",
                                                             "--prefix", "p_", str(lib)],
            "shimgen (pip's launcher) ...": [sys.executable, str(launcher), "check-symbols", "--prefix", "p_",
                                             str(lib)],
        }
        walls: dict[str, list[float]] = {name: [] for name in readers}
        for cmd in readers.values():
            run_once(cmd, env)
        phases: dict[str, list[float]] = {}
        for _ in range(runs):
            for name, cmd in readers.items():
                walls[name].append(run_once(cmd, env)[0])
            out = subprocess.run([sys.executable, "-c", PHASES, str(lib)], env=env, cwd=ROOT, capture_output=True,
                                 text=True, check=True).stdout.split()
            for item in out:
                name, value = item.split("=")
                phases.setdefault(name.replace("_", " "), []).append(float(value))
    nm = statistics.median(walls["nm -D --defined-only"])
    print(f"{lib} ({lib.stat().st_size:,} bytes): floor decomposition, median of {runs} interleaved rounds, "
          f"load average {os.getloadavg()[0]:.1f}")
    for name, values in walls.items():
        median = statistics.median(values)
        print(f"  {name:<48} {median * 1000:7.1f} ms  {median / nm:5.2f}x nm")
    print(f"  0.7x nm = {0.7 * nm * 1000:.1f} ms; inside one process (median ms):")
    for name, values in phases.items():
        print(f"    {name:<46} {statistics.median(values):7.2f}")


def instructions(lib: Path, env: dict[str, str], other: dict[str, str] | None) -> None:
    """Instructions executed by nm and by shimgen's two forms of the command (after one run that
    writes the bytecode caches), and their ratio to nm's."""
    import re
    import tempfile

    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (apt-get install valgrind)")
    shimgen = [sys.executable, "-m", "shimgen", "check-symbols"]
    readers = {
        "nm -D --defined-only": (["nm", "-D", "--defined-only", str(lib)], env),
        "shimgen --prefix p_": ([*shimgen, "--prefix", "p_", str(lib)], env),
        "shimgen (benchmark form)": ([*shimgen, str(lib), "--prefix", "executorch_", "--pattern", "aoti_torch_*"],
                                     env),
        "python -c pass": ([sys.executable, "-c", "pass"], env),
    }
    if other is not None:
        readers["shimgen --prefix p_ (--against)"] = (readers["shimgen --prefix p_"][0], other)
    counts: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as scratch:
        for name, (cmd, cmd_env) in readers.items():
            run_once(cmd, cmd_env)
            done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={scratch}/out", *cmd],
                                  env=cmd_env, cwd=cmd_env["PYTHONPATH"].split(os.pathsep)[0],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            found = re.search(r"Collected : (\d+)", done.stderr)
            if found is None:
                sys.exit(f"callgrind counted nothing for {name}:\n{done.stderr[-2000:]}")
            counts[name] = int(found.group(1))
    base = counts["nm -D --defined-only"]
    print(f"{lib} ({lib.stat().st_size:,} bytes): instructions executed (callgrind, user space, whole process)")
    for name, count in counts.items():
        print(f"  {name:<34} {count / 1e6:8.1f} M  {count / base:5.3f}x nm")
    print(f"  issue 20 item 6: shimgen <= 0.7x nm = {0.7 * base / 1e6:.1f} M")


def tree_env(tree: Path) -> dict[str, str]:
    if not (tree / "shimgen" / "__init__.py").is_file():
        sys.exit(f"{tree}: no shimgen package there")
    env = {**os.environ, "PYTHONPATH": str(tree.resolve()) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    # As installed: with bytecode caches (the warm-up run writes them). Without, every run
    # compiles shimgen's modules again (~25 ms), which no user pays.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def wheel_dirs() -> list[Path]:
    """The installed torch, numpy and scipy packages (the sweep test's set: tests/wheel_sweep.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from wheel_sweep import MODULES, sweep_dirs

    try:
        return sweep_dirs()
    except LookupError as missing:
        sys.exit(f"{missing} is not installed: pip install {missing} (the sweep needs {', '.join(MODULES)})")


def elf_files(dirs: list[Path]) -> list[Path]:
    """The files check-symbols reads under ``dirs``: regular files (no symlinks) with an ELF or
    archive magic, as its directory walk finds them."""
    found = []
    for root in dirs:
        for directory, _, files in os.walk(root):
            for name in sorted(files):
                path = Path(directory) / name
                if path.is_symlink() or not path.is_file():
                    continue
                with open(path, "rb") as handle:
                    if handle.read(8)[:4] == b"\x7fELF" or path.suffix == ".a":
                        found.append(path)
    return found


def sweep(runs: int, env: dict[str, str], other: dict[str, str] | None) -> None:
    dirs = wheel_dirs()
    files = elf_files(dirs)
    size = sum(f.stat().st_size for f in files)
    readers = {
        "nm -D --defined-only": ["nm", "-D", "--defined-only", *map(str, files)],
        "shimgen check-symbols": [sys.executable, "-m", "shimgen", "check-symbols", *map(str, dirs),
                                  "--prefix", "executorch_", "--pattern", "aoti_torch_*"],
    }
    if other is not None:
        readers["shimgen (--against)"] = readers["shimgen check-symbols"]
    walls: dict[str, list[float]] = {name: [] for name in readers}
    statuses: dict[str, set[int]] = {name: set() for name in readers}
    for cmd in readers.values():  # warm the page cache
        run_once(cmd, env)
    for _ in range(runs):
        for name, cmd in readers.items():
            wall, _, status = run_once(cmd, other if other is not None and "against" in name else env)
            walls[name].append(wall)
            statuses[name].add(status)
    base = statistics.median(walls["nm -D --defined-only"])
    print(f"\nwheel sweep: {len(files)} ELF files ({size / 1e6:,.0f} MB) in {', '.join(d.name for d in dirs)}; "
          f"median of {runs} runs, whole process")
    print(f"{'reader':<26} {'wall ms':>8} {'x nm':>6}  exit")
    for name in readers:
        median = statistics.median(walls[name])
        print(f"{name:<26} {median * 1000:8.1f} {median / base:6.2f}  {','.join(map(str, sorted(statuses[name])))}")
    print("(shimgen exits 1: libtorch's real SG001s; nm exits 1 where a file holds no dynamic symbols)")


if __name__ == "__main__":
    sys.exit(main())
