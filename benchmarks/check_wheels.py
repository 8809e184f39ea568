"""Benchmark: `shimgen check-symbols WHEEL` against what a user would otherwise run, `unzip` then
`nm -D --defined-only` over every ELF file the wheel holds, on real wheels; then libtorch_cpu.so
alone against `nm -D --defined-only`.

Every reader runs as a whole process (interpreter start-up included), the readers interleaved in
each round so machine load hits all alike; the script prints the median wall time per reader, the
peak RSS of each child (wait4's rusage; for the baseline the larger of unzip's and nm's), and the
ratios measured in this run. Targets (issue 20): each wheel <= 1.0x unzip + nm wall, peak RSS <=
2x nm's peak; libtorch_cpu.so <= 0.7x nm's wall.

    python benchmarks/check_wheels.py [--cache DIR] [--download] [--all] [--runs 3] [WHEEL ...]
    python benchmarks/check_wheels.py --tiny      # a synthetic wheel built here, one run (tests)
    python benchmarks/check_wheels.py --against /tmp/main-tree   # main's shimgen in the same rounds

Wheels come from ``--cache`` (default ``$SHIMGEN_WHEEL_CACHE`` or ``~/.cache/shimgen-wheels``);
``--download`` fetches the default set there with ``pip download`` (cp311, manylinux x86_64).
The torch wheel is the one that set names, or (when absent) the installed torch packed as a wheel.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_symbols import elf_files  # the files check-symbols reads under a directory

DEFAULT_WHEELS = (
    "torch", "scipy", "tensorflow-cpu", "jaxlib", "pyarrow", "numpy", "pillow", "av", "opencv-python-headless",
    "pymupdf",
)
"""The headline ten (issue 20: torch, scipy and tensorflow-cpu among them): wheels of several libraries or
large ones, where the work is reading binaries rather than starting an interpreter."""
OTHER_WHEELS = (
    "lxml", "cryptography", "tokenizers", "h5py", "psycopg-binary", "grpcio", "shapely", "zstandard", "pyzmq", "lz4",
    "regex", "soundfile", "orjson",
)
"""Measured too (``--all``) and listed beside the headline: small wheels of one to a few libraries, where
unzip + nm costs 0.1-0.4 s and shimgen's fixed cost (interpreter, imports: ~40 ms of CPU on a quiet
machine) is most of its time."""
PLATFORMS = ("manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux_2_27_x86_64", "manylinux_2_28_x86_64")


CPU: dict[str, float] = {}
"""CPU seconds (user + system) of the last child run by ``run_once``: on a loaded machine wall time is
mostly waiting for a core, so both are printed."""


def run_once(cmd: list[str], cwd: Path | None = None, tree: Path = ROOT) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in KiB, exit status) of one child; its CPU seconds in ``CPU["last"]``.
    ``tree``: the checkout whose shimgen a ``python -m shimgen`` child imports (also its cwd: the
    cwd comes first on sys.path)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: with bytecode caches
    start = time.perf_counter()
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd or tree, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    CPU["last"] = usage.ru_utime + usage.ru_stime
    return time.perf_counter() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status)


def baseline(wheel: Path) -> tuple[float, int, int]:
    """unzip into a fresh directory, then one nm over every ELF file found (wall, peak KiB, files)."""
    with tempfile.TemporaryDirectory(prefix="bench-unzip-") as scratch:
        wall_unzip, rss_unzip, status = run_once(["unzip", "-q", "-o", str(wheel), "-d", scratch])
        cpu = CPU["last"]
        if status != 0:
            sys.exit(f"unzip failed on {wheel}")
        files = [str(f) for f in elf_files([Path(scratch)])]  # what a user's find | xargs does; not counted
        wall_nm, rss_nm, _ = run_once(["nm", "-D", "--defined-only", *files]) if files else (0.0, 0, 0)
        CPU["last"] = cpu + (CPU["last"] if files else 0.0)
        return wall_unzip + wall_nm, max(rss_unzip, rss_nm), len(files)


def shimgen_cmd(path: Path) -> list[str]:
    return [sys.executable, "-m", "shimgen", "check-symbols", str(path), "--prefix", "p_"]


def find_wheels(cache: Path, names: list[str]) -> list[Path]:
    found = []
    for name in names:
        if Path(name).is_file():
            found.append(Path(name))
            continue
        stem = name.replace("-", "_").lower()
        matches = sorted(p for p in cache.glob("*.whl") if p.name.lower().startswith(stem + "-"))
        if matches:
            found.append(matches[-1])
        elif name == "torch":
            found.append(pack_installed_torch(cache))
        else:
            print(f"{name}: no wheel in {cache} (pass --download)", file=sys.stderr)
    return found


def pack_installed_torch(cache: Path) -> Path:
    """The installed torch (and torch.libs) stored as a wheel, once: the benchmark's torch when
    no torch wheel has been downloaded (the PyPI one is 0.5-0.9 GB)."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("torch: neither a wheel in the cache nor an installed torch")
    root = Path(spec.submodule_search_locations[0])
    wheel = cache / "torch-installed-py3-none-linux_x86_64.whl"
    if wheel.is_file():
        return wheel
    partial = wheel.with_suffix(".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for top in (root, root.parent / "torch.libs"):
            for directory, _, files in os.walk(top):
                for name in sorted(files):
                    path = Path(directory) / name
                    if not path.is_symlink():
                        archive.write(path, path.relative_to(root.parent).as_posix())
    partial.replace(wheel)
    return wheel


def download(cache: Path, names: tuple[str, ...]) -> None:
    platform_args = [arg for p in PLATFORMS for arg in ("--platform", p)]
    for name in names:
        if name == "torch":
            continue  # the installed torch is packed instead (see pack_installed_torch)
        subprocess.run([sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--no-deps",
                        "--disable-pip-version-check", "--python-version", "3.11", "--implementation", "cp",
                        *platform_args, "-d", str(cache), name], check=False)


def tiny_wheel(directory: Path) -> Path:
    """Two small libraries built here with gcc, zipped: proves the script works (tests)."""
    source = directory / "t.c"
    source.write_text("int aoti_torch_a(void) { return 1; }\nint other(void) { return 2; }\n")
    wheel = directory / "tiny-1.0-py3-none-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ("liba.so", "libb.so"):
            subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(directory / name), str(source)], check=True)
            archive.write(directory / name, f"tiny/{name}")
        archive.writestr("tiny/__init__.py", "")
    return wheel


def compare(rounds: int, readers: dict[str, Callable[[], tuple[float, int]]]) -> dict[str, tuple[float, int, float]]:
    """name -> (median wall, peak RSS KiB, median CPU seconds), the readers interleaved per round."""
    walls: dict[str, list[float]] = {name: [] for name in readers}
    cpus: dict[str, list[float]] = {name: [] for name in readers}
    peaks = dict.fromkeys(readers, 0)
    for _ in range(rounds):
        for name, reader in readers.items():
            wall, rss = reader()
            walls[name].append(wall)
            cpus[name].append(CPU["last"])
            peaks[name] = max(peaks[name], rss)
    return {name: (statistics.median(walls[name]), peaks[name], statistics.median(cpus[name])) for name in readers}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("wheels", nargs="*", help=f"wheel files or names in the cache (default: {', '.join(DEFAULT_WHEELS)})")
    parser.add_argument("--cache", type=Path,
                        default=Path(os.environ.get("SHIMGEN_WHEEL_CACHE", Path.home() / ".cache" / "shimgen-wheels")))
    parser.add_argument("--download", action="store_true", help="pip download the default set into --cache first")
    parser.add_argument("--all", action="store_true", help="the headline ten and the other wheels (OTHER_WHEELS)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lib", type=Path, default=None, help="libtorch_cpu.so (default: the installed torch's)")
    parser.add_argument("--lib-runs", type=int, default=7)
    parser.add_argument("--tiny", action="store_true", help="one run on a synthetic wheel (proves the script works)")
    parser.add_argument("--against", type=Path, default=None,
                        help="another checkout (e.g. main's) whose shimgen runs in the same rounds; its ratio is printed "
                        "beside this one's")
    args = parser.parse_args()
    for tool in ("unzip", "nm"):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed: the baseline needs it", file=sys.stderr)
            return 2
    scratch = None
    if args.tiny:
        scratch = tempfile.TemporaryDirectory(prefix="bench-tiny-")
        wheels, args.runs, args.lib_runs = [tiny_wheel(Path(scratch.name))], 1, 0
    else:
        args.cache.mkdir(parents=True, exist_ok=True)
        names = (*DEFAULT_WHEELS, *OTHER_WHEELS) if args.all else DEFAULT_WHEELS
        if args.download:
            download(args.cache, names)
        wheels = find_wheels(args.cache, args.wheels or list(names))
    print(f"median of {args.runs} interleaved runs, whole processes; baseline: unzip + nm -D --defined-only "
          "over every ELF file")
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'wheel':<40} {'MB':>5} {'ELF':>4} {'base ms':>8} {'shimgen':>8} {'x wall':>6} {'x CPU':>6} "
          f"{'base MB':>7} {'shimgen':>7} {'x RSS':>6} exit")
    worst_wall = worst_rss = worst_cpu = 0.0
    for wheel in wheels:
        files = [0]
        status: set[int] = set()

        def base(wheel=wheel, files=files) -> tuple[float, int]:
            wall, rss, files[0] = baseline(wheel)
            return wall, rss

        def shimgen(wheel=wheel, status=status) -> tuple[float, int]:
            wall, rss, code = run_once(shimgen_cmd(wheel))
            status.add(code)
            return wall, rss

        readers = {"base": base, "shimgen": shimgen}
        if args.against is not None:
            readers["against"] = lambda wheel=wheel: run_once(shimgen_cmd(wheel), tree=args.against)[:2]
            run_once(shimgen_cmd(wheel), tree=args.against)
        run_once(shimgen_cmd(wheel))  # warm the page cache and the .pyc files
        result = compare(args.runs, readers)
        (b_wall, b_rss, b_cpu), (s_wall, s_rss, s_cpu) = result["base"], result["shimgen"]
        worst_wall, worst_rss = max(worst_wall, s_wall / b_wall), max(worst_rss, s_rss / max(b_rss, 1))
        worst_cpu = max(worst_cpu, s_cpu / max(b_cpu, 1e-3))
        print(f"{wheel.name[:40]:<40} {wheel.stat().st_size / 1e6:5.0f} {files[0]:4d} {b_wall * 1000:8.0f} "
              f"{s_wall * 1000:8.0f} {s_wall / b_wall:6.2f} {s_cpu / max(b_cpu, 1e-3):6.2f} {b_rss / 1024:7.0f} "
              f"{s_rss / 1024:7.0f} {s_rss / max(b_rss, 1):6.2f} {','.join(map(str, sorted(status)))}"
              + (f"   --against: {result['against'][0] / b_wall:.2f}x wall {result['against'][2] / max(b_cpu, 1e-3):.2f}x CPU"
                 if "against" in result else ""))
    print(f"worst: {worst_wall:.2f}x wall (target <= 1.0), {worst_cpu:.2f}x CPU, {worst_rss:.2f}x peak RSS "
          "(target <= 2.0)")
    if args.lib_runs:
        library(args.lib, args.lib_runs, args.against)
    if scratch is not None:
        scratch.cleanup()
    return 0


def library(lib: Path | None, runs: int, against: Path | None = None) -> None:
    if lib is None:
        import importlib.util

        spec = importlib.util.find_spec("torch")
        if spec is None or not spec.origin:
            print("libtorch_cpu.so: torch is not installed (pass --lib)")
            return
        lib = Path(spec.origin).parent / "lib" / "libtorch_cpu.so"
    nm = ["nm", "-D", "--defined-only", str(lib)]
    readers = {"nm": lambda: run_once(nm)[:2], "shimgen": lambda: run_once(shimgen_cmd(lib))[:2]}
    if against is not None:
        readers["against"] = lambda: run_once(shimgen_cmd(lib), tree=against)[:2]
    result = compare(runs, readers)
    (n_wall, n_rss, n_cpu), (s_wall, s_rss, s_cpu) = result["nm"], result["shimgen"]
    print(f"{lib} ({lib.stat().st_size / 1e6:.0f} MB), median of {runs}: nm -D --defined-only {n_wall * 1000:.0f} ms "
          f"{n_rss / 1024:.0f} MB; shimgen {s_wall * 1000:.0f} ms {s_rss / 1024:.0f} MB; "
          f"{s_wall / n_wall:.2f}x wall (target <= 0.7), {s_cpu / max(n_cpu, 1e-3):.2f}x CPU"
          + (f"; --against: {result['against'][0] / n_wall:.2f}x wall, {result['against'][2] / max(n_cpu, 1e-3):.2f}x CPU"
             if "against" in result else ""))


if __name__ == "__main__":
    sys.exit(main())
