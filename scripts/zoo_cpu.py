"""Real architectures on the runtime, CPU, beside libtorch: the whole set of tests/arch_zoo.py (or,
with --ring, the wider ring of tests/arch_ring.py).

For each model: compile with stock torch (cached: $SHIMGEN_ZOO_CACHE, else the user cache dir),
`shimgen prefix-imports`, then `shimgen run` in one child process that loaded libtorch_cpu.so
RTLD_GLOBAL first (tests/zoo_child.py), and compare every output with eager. Prints a pass table:
the op fallbacks each model imports (measured on its .so) and the largest difference from eager.

    python scripts/zoo_cpu.py [--runtime LIB] [NAME...]      # default: build the runtime, all models
    python scripts/zoo_cpu.py --ring [--runtime LIB] [NAME...]  # the ring (a model that fails to
                                                              # export is a row, not an abort)
    python scripts/zoo_cpu.py --frozen [--runtime LIB] [NAME...]  # tests/frozen_zoo.py (freezing=True)
    python scripts/zoo_cpu.py --torchao [--runtime LIB] [NAME...]  # tests/torchao_zoo.py (quantize_)
    python scripts/zoo_cpu.py --torchvision [--runtime LIB] [NAME...]  # tests/torchvision_zoo.py, where
                                                              # torchvision imports (its library absent:
                                                              # every row SKIPPED)
    python scripts/zoo_cpu.py --torchaudio [--runtime LIB] [NAME...]  # tests/torchaudio_zoo.py, the same
                                                              # way (scripts/torchaudio_models_only/)
    python scripts/zoo_cpu.py --libs [--runtime LIB] [NAME...]  # tests/libs_zoo.py: torch_geometric,
                                                              # kornia, x-transformers, open_clip, MONAI,
                                                              # e3nn, SpeechBrain, PEFT, Ultralytics (the
                                                              # same way: scripts/zoo_site/)
    python scripts/zoo_cpu.py --dynamic [--runtime LIB] [NAME...]  # the dynamic ring
                                                              # (tests/dynamic_ring.py): a row per
                                                              # shape, NAME@<run> past the example's
    python scripts/zoo_cpu.py --write-coverage                # also record the fallbacks measured
                                                              # into shimgen/aoti/fallbacks.json
A model that passes is also run in eager on a second draw of its inputs: if its outputs move no more
than its tolerance it is INSENSITIVE (any runtime result for any input would pass), EMPTY if it returns
no tensor; both fail (scripts/ring_sensitivity.py; --no-sensitivity skips it).
Exit status 1 when any model fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "scripts")]

import aoti_zoo
from arch_ring import RING
from arch_zoo import ARCH
from distance import differences, max_difference
from dynamic_ring import DYNAMIC
from frozen_zoo import FROZEN
from libs_zoo import LIBS
from ring_sensitivity import free, judge_all
from torchao_zoo import TORCHAO
from torchaudio_zoo import TORCHAUDIO
from torchvision_zoo import TORCHVISION

from shimgen.aoti import coverage
from tests.aoti_helpers import run_beside_libtorch, run_label, sequence_label


def build_runtime(work: Path) -> Path:
    from shimgen.builder.builder import BuildOptions, build
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    result = build(load_config(default_config()), BuildOptions(work / "runtime", cuda="off", jobs=2))
    return result.artifacts[0].path


def vacuous(expected: list[np.ndarray], floor: float = 1e-6) -> bool:
    """Every floating output of eager is within ``floor`` of zero (a model whose initialisation collapses
    its activations): a comparison at the ring's tolerances would pass whatever the runtime computed."""
    floats = [e for e in expected if e.dtype.kind in "fc" and e.size]
    return bool(floats) and all(float(np.abs(np.nan_to_num(e)).max()) < floor for e in floats)


def bound(expected: np.ndarray, atol: float, rtol: float) -> np.ndarray:
    """The tolerance at each element: atol + rtol * |expected|."""
    return atol + rtol * np.abs(np.nan_to_num(expected.astype(np.float64)))


def within(got: np.ndarray, expected: np.ndarray, atol: float, rtol: float) -> bool:
    """Every difference at most bound(expected, atol, rtol)."""
    return bool((differences(got, expected) <= bound(expected, atol, rtol)).all())


def judge(name: str, run: int, report: dict, child: subprocess.CompletedProcess, work: Path, directory: Path,
          model: aoti_zoo.ZooModel) -> tuple[str, str]:
    """One run's verdict and largest difference from eager: its `shimgen run` and, for a dynamic model,
    the same shape from the one opened model that ran them all (both must match)."""
    label = run_label(name, run)
    lost = aoti_zoo.lost_dims(model, aoti_zoo.meta(directory).get("ranges", {}))
    if lost:  # the package cannot take the shapes declared, whatever this run gives
        return f"SPECIALIZED (export kept no range for {', '.join(lost)})", ""
    if label not in report:
        return "CRASHED: " + child.stderr.strip()[-200:], ""
    if report[label]["code"] != 0 or report[label]["unbound"]:
        verdict = f"FAILED (exit {report[label]['code']})"
        if report[label].get("error"):  # refused at open (an op the runtime does not serve)
            verdict += ": " + report[label]["error"][-240:]
        return verdict, ""
    folders = [work / label]
    if report[name].get("sequence_error"):
        return "FAILED (one model, every shape): " + report[name]["sequence_error"][-240:], ""
    if "sequence_error" in report[name]:
        folders.append(work / sequence_label(name, run))
    worst, ok = 0.0, True
    expected = [np.load(p) for p in aoti_zoo.expected_of(directory, run)]
    for folder in folders:
        for i, want in enumerate(expected):
            got = np.load(folder / f"output_{i}.npy")
            ok &= got.shape == want.shape and got.dtype == want.dtype
            if ok and got.size:
                worst = max(worst, max_difference(got, want))
                ok &= within(got, want, model.atol, model.rtol)
    verdict = "pass" if ok else "MISMATCH"
    if ok and vacuous(expected):
        verdict = "VACUOUS"  # every float output ~0: any tolerance passes, nothing is tested
    return verdict, f"{worst:.2e}"


# The tables other than the default (tests/arch_zoo.py's ARCH), by their flag: the models and where
# they are defined.
TABLES = {"ring": (RING, "tests/arch_ring.py"), "frozen": (FROZEN, "tests/frozen_zoo.py"),
          "torchao": (TORCHAO, "tests/torchao_zoo.py"), "torchvision": (TORCHVISION, "tests/torchvision_zoo.py"),
          "torchaudio": (TORCHAUDIO, "tests/torchaudio_zoo.py"), "dynamic": (DYNAMIC, "tests/dynamic_ring.py"),
          "libs": (LIBS, "tests/libs_zoo.py")}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"models (default: all of {', '.join(ARCH)})")
    parser.add_argument("--ring", action="store_true", help="the models of tests/arch_ring.py")
    parser.add_argument("--frozen", action="store_true", help="the freezing=True models of tests/frozen_zoo.py")
    parser.add_argument("--torchao", action="store_true",
                        help="the models of tests/torchao_zoo.py (torchao's quantize_ configs)")
    parser.add_argument("--torchvision", action="store_true",
                        help="torchvision's models and operators (tests/torchvision_zoo.py)")
    parser.add_argument("--torchaudio", action="store_true", help="torchaudio's models (tests/torchaudio_zoo.py)")
    parser.add_argument("--libs", action="store_true",
                        help="nine other libraries' models (tests/libs_zoo.py)")
    parser.add_argument("--dynamic", action="store_true",
                        help="the dynamic-shape models of tests/dynamic_ring.py, each at every shape it declares")
    parser.add_argument("--runtime", type=Path, help="a built libshimgen_runtime.so (default: build one)")
    parser.add_argument("--write-coverage", action="store_true", help="record the measured fallbacks")
    parser.add_argument("--no-sensitivity", action="store_true",
                        help="skip the second eager run that fails a passing model whose outputs do not depend"
                             " on its inputs (INSENSITIVE, EMPTY: scripts/ring_sensitivity.py)")
    args = parser.parse_args(argv)
    chosen = [flag for flag in TABLES if getattr(args, flag)]
    if len(chosen) > 1:
        parser.error(f"{', '.join('--' + flag for flag in chosen)} name different tables: give one")
    table, where = TABLES[chosen[0]] if chosen else (ARCH, "tests/arch_zoo.py")
    names = args.names or list(table)
    unknown = [name for name in names if name not in table]
    if unknown:
        elsewhere = [f"--{flag}" for flag, (other, _) in TABLES.items() if set(unknown) <= set(other)]
        parser.error(f"no model named {', '.join(unknown)} in {where}"
                     + (f" (they are in {' or '.join(elsewhere)}'s table)" if elsewhere else ""))
    dirs = aoti_zoo.ensure_compiled(names, timeout=7200, keep_going=True)
    with tempfile.TemporaryDirectory(prefix="zoo-cpu-") as scratch:
        work = Path(scratch)
        runtime = args.runtime or build_runtime(work)
        refused: dict[str, str] = {}
        models = {}
        runs: dict[str, int] = {}  # shapes per model: 1, or a dynamic model's example and further runs
        sequences: dict[str, list[int]] = {}
        run_inputs: dict[str, list[list[Path]]] = {}
        unexported = {name: aoti_zoo.error_of(dirs[name]).read_text().strip().splitlines()[0][:300]
                      for name in names if not (dirs[name] / "meta.json").is_file()}
        # an entry of a library this environment lacks (timm, diffusers): skipped, not failed
        absent = {name: aoti_zoo.library_absent(aoti_zoo.error_of(dirs[name])) for name in unexported}
        absent = {name: module for name, module in absent.items() if module}
        for name in names:
            if name in unexported:
                continue
            pt2 = work / f"{name}.pt2"
            done = subprocess.run([sys.executable, "-m", "shimgen", "prefix-imports", str(dirs[name] / "model.pt2"),
                                   "-o", str(pt2), "-c", str(REPO / "shimgen" / "runtime" / "shimgen.toml")],
                                  capture_output=True, text=True, cwd=REPO, check=False)
            if done.returncode != 0:
                refused[name] = (done.stderr.strip().splitlines() or ["?"])[-1]
                continue
            runs[name] = aoti_zoo.runs_of(dirs[name])
            for run in range(runs[name]):  # one `shimgen run` per shape of one package
                models[run_label(name, run)] = (pt2, aoti_zoo.inputs_of(dirs[name], run))
            if runs[name] > 1:  # and one opened model at every shape in turn, the example's last
                sequences[name] = [*range(1, runs[name]), 0]
                run_inputs[name] = [aoti_zoo.inputs_of(dirs[name], run) for run in range(runs[name])]
        child = run_beside_libtorch(models, runtime, work, timeout=3600, sequences=sequences, run_inputs=run_inputs)
        report = json.loads(child.stdout.strip().splitlines()[-1]) if child.returncode == 0 else {}
        judged = [name for name in names if name not in unexported and name not in refused]
        jobs = max(1, int(os.environ.get("SHIMGEN_ZOO_JOBS", "2")))
        sensitivity = {} if args.no_sensitivity else dict(judge_all(judged, jobs))
        rows, failed = [], 0
        served = coverage.served_by_runtime()
        skipped = 0
        for name in names:
            if name in absent:
                skipped += 1
                rows.append((name, f"SKIPPED (no module {absent[name]!r} here)", "", ""))
                continue
            if name in unexported:
                failed += 1
                rows.append((name, f"EXPORT FAILED (torch): {unexported[name]}", "", ""))
                continue
            imported = aoti_zoo.meta(dirs[name])["imports"]
            fallbacks = coverage.fallbacks_of(imported)
            if name in refused:
                missing = [f.removeprefix("aoti_torch_") for f in fallbacks if f not in served]
                verdict, err = ("REFUSED (not served: " + ", ".join(missing) + ")") if missing else "REFUSED", ""
                print(f"{name}: {refused[name]}", file=sys.stderr)
                failed += 1
                rows.append((name, verdict, err, ", ".join(f.removeprefix("aoti_torch_") for f in fallbacks)))
                continue
            for run in range(runs[name]):
                label = run_label(name, run)
                verdict, err = judge(name, run, report, child, work, dirs[name], table[name])
                if verdict == "pass" and sensitivity.get(label) in ("EMPTY", "INSENSITIVE") and not free(label):
                    verdict = sensitivity[label]  # it passed, but eager gives the same outputs for any input
                failed += verdict != "pass"
                shapes = ", ".join("x".join(map(str, s)) for s in aoti_zoo.shapes_at(table[name], run))
                rows.append((label, verdict, err, shapes if args.dynamic else
                             ", ".join(f.removeprefix("aoti_torch_") for f in fallbacks)))
        width = max(len(r[0]) for r in rows)
        last = "input shapes" if args.dynamic else "op fallbacks imported (aoti_torch_...)"
        print(f"{'model':<{width}}  {'result':<8}  {'max |diff|':<10}  {last}")
        for name, verdict, err, fallbacks in rows:
            if len(verdict) > 8 and not (err or fallbacks):  # an export failure, a skip: one line
                print(f"{name:<{width}}  {verdict}")
            elif len(verdict) > 8:  # a refusal's reason: on a line of its own
                print(f"{name:<{width}}  {verdict}\n{'':<{width}}  {'':<8}  {err:<10}  {fallbacks}")
            else:
                print(f"{name:<{width}}  {verdict:<8}  {err:<10}  {fallbacks}")
        print(f"{len(rows) - failed - skipped}/{len(rows) - skipped} pass (torch {aoti_zoo.torch_version()}, CPU,"
              f" beside libtorch)" + (f"; {skipped} skipped, their library absent" if skipped else ""))
        if args.write_coverage:
            coverage.record("cpu", aoti_zoo.torch_version(),
                            {n: aoti_zoo.meta(dirs[n])["imports"] for n in names if n not in unexported})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
