"""Regression guard for check-symbols' findings: store every report of one tree's shimgen on many
inputs, then compare another tree's reports with them byte for byte.

Speed work on the readers and the rules must not change a single finding, note, count or hint.
For each input (a wheel, a library, a directory) one child process of the tree's shimgen reads
it once and writes the reports of both modes (plain and ``--strict``, the latter on inputs up to
``--strict-max-mb``) in every format (JSON,
SARIF, text with notes); ``record`` stores them, ``compare`` checks a tree's against them and
names the first differing line of each that differs.

    python scripts/check_snapshot.py record DIR [--tree TREE] INPUT...
    python scripts/check_snapshot.py compare DIR [--tree TREE] INPUT...

``--tree`` defaults to this checkout. A hand-run guard, not a test: the interesting inputs are
real wheels of hundreds of MB (issue 20's benchmark set and sweep).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Runs inside the child, with the tree's shimgen on PYTHONPATH: load once, render six reports.
CHILD = r"""
import sys
from pathlib import Path
from shimgen.check import check_paths, render_json, render_sarif, render_text
from shimgen.check.policy import Policy
from shimgen.errors import ShimgenError

path, out, modes = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3].split(",")
policy = Policy.from_options("p_")
for strict in [mode == "strict" for mode in modes]:
    mode = "strict" if strict else "plain"
    try:
        report = check_paths([path], policy, strict=strict)
    except ShimgenError as exc:
        (out / f"{mode}.error").write_text("\n".join(exc.problems) + "\n")
        continue
    (out / f"{mode}.json").write_text(render_json(report))
    (out / f"{mode}.sarif").write_text(render_sarif(report))
    (out / f"{mode}.txt").write_text(render_text(report, color=False, verbose=True) + f"exit {report.exit_code}\n")
"""


def key(path: Path) -> str:
    """A directory name for one input: its file name plus a short hash of its absolute path."""
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]
    return f"{path.name}-{digest}"


def modes(path: Path, strict_max_mb: float) -> str:
    """--strict lists every export (436k for libtensorflow_cc.so.2): only on inputs up to a size."""
    size = path.stat().st_size if path.is_file() else 0
    return "plain,strict" if size <= strict_max_mb * 1e6 else "plain"


def reports(tree: Path, path: Path, out: Path, strict_max_mb: float) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    env = {**os.environ, "PYTHONPATH": str(tree)}  # and cwd=tree: `python -c` puts the cwd first on sys.path
    run = subprocess.run([sys.executable, "-c", CHILD, str(path), str(out), modes(path, strict_max_mb)], env=env, cwd=tree, capture_output=True, text=True,
                         check=False)
    if run.returncode != 0:
        (out / "crash.txt").write_text(run.stderr[-4000:])


def first_difference(a: Path, b: Path) -> str:
    left, right = a.read_text().splitlines(), b.read_text().splitlines()
    for number, (x, y) in enumerate(zip(left, right), 1):
        if x != y:
            return f"line {number}: {x[:120]!r} != {y[:120]!r}"
    return f"{len(left)} lines vs {len(right)} lines"


def compare(stored: Path, fresh: Path) -> list[str]:
    problems = []
    names = sorted({p.name for p in stored.iterdir()} | {p.name for p in fresh.iterdir()})
    for name in names:
        a, b = stored / name, fresh / name
        if not a.exists() or not b.exists():
            problems.append(f"{name}: only in {'the new reports' if b.exists() else 'the stored reports'}")
        elif a.read_bytes() != b.read_bytes():
            problems.append(f"{name}: {first_difference(a, b)}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("store", type=Path)
    parser.add_argument("inputs", nargs="+", type=Path)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose shimgen runs (default: this one)")
    parser.add_argument("--strict-max-mb", type=float, default=100,
                        help="also --strict on files up to this size (default 100 MB; a directory: never)")
    args = parser.parse_args()
    missing = [p for p in args.inputs if not p.exists()]
    if missing:
        print(f"no such input: {missing[0]}", file=sys.stderr)
        return 2
    failed = 0
    for path in args.inputs:
        stored = args.store / key(path)
        if args.action == "record":
            reports(args.tree, path, stored, args.strict_max_mb)
            print(f"{path.name}: {', '.join(sorted(p.name for p in stored.iterdir()))}")
            continue
        if not stored.is_dir():
            print(f"{path.name}: nothing stored (run record first)")
            failed += 1
            continue
        fresh = args.store / ".fresh" / key(path)
        reports(args.tree, path, fresh, args.strict_max_mb)
        problems = compare(stored, fresh)
        failed += bool(problems)
        print(f"{path.name}: {'identical' if not problems else 'DIFFERS'} ({len(list(stored.iterdir()))} reports)")
        for problem in problems:
            print(f"    {problem}")
    if args.action == "compare":
        print(f"{len(args.inputs) - failed} of {len(args.inputs)} inputs byte-identical")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
