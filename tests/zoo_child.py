"""Child process of tests/integration/test_aoti_zoo.py: libtorch_cpu.so RTLD_GLOBAL first, then the
``shimgen run`` CLI (in-process, as ``python -m shimgen run`` would) for every model in SPEC.json;
prints a JSON report: per model the CLI's exit code, the runtime's shim-call delta and which library
each shim slot of the loaded model binds to. A model entry with a "sequence" (input sets and output
folders: a dynamic-shape model's runs) is then also opened once and run at each of them in turn, as
a server calls one loaded model at changing shapes; its report has "sequence_error" (None: all ran).

    python tests/zoo_child.py SPEC.json
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path


def main(spec_path: str) -> dict:
    spec = json.loads(Path(spec_path).read_text())
    ctypes.CDLL(spec["libtorch"], mode=ctypes.RTLD_GLOBAL)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from aoti_models import bound_library

    from shimgen.aoti.prefix_imports import read_dynamic_symbols
    from shimgen.aoti.runner import Model, Runtime
    from shimgen.cli import main as cli

    runtime = ctypes.CDLL(spec["runtime"], mode=ctypes.RTLD_GLOBAL)
    runtime.shimgen_runtime_shim_call_count.restype = ctypes.c_uint64
    report = {}
    for entry in spec["models"]:
        before = runtime.shimgen_runtime_shim_call_count()
        argv = ["run", entry["pt2"], "--runtime", spec["runtime"], "-o", entry["out"]]
        for path in entry["inputs"]:
            argv += ["--input", path]
        code = cli(argv)
        served = runtime.shimgen_runtime_shim_call_count() - before
        imports = {s.name for s in read_dynamic_symbols(Path(entry["so"]))
                   if not s.defined and ("aoti_torch_" in s.name or "Sleef_" in s.name)}
        try:
            with Model(Runtime(Path(spec["runtime"]), spec["prefix"]), Path(entry["pt2"])) as model:
                bound = bound_library(str(model.so_path), imports)
        except Exception as error:  # a package the runtime refuses at open fails its row, not the others'
            report[entry["name"]] = {"code": code or 2, "served": served, "imports": sorted(imports),
                                     "bound_to": [], "unbound": sorted(imports), "error": str(error)[:500]}
            continue
        report[entry["name"]] = {"code": code, "served": served, "imports": sorted(imports),
                                 "bound_to": sorted(set(bound.values())), "unbound": sorted(imports - set(bound))}
        if entry.get("sequence"):
            report[entry["name"]]["sequence_error"] = run_sequence(spec, Path(entry["pt2"]), entry["sequence"])
    return report


def run_sequence(spec: dict, pt2: Path, steps: list[dict]) -> str | None:
    """The package opened once and run at each step's inputs in turn (outputs saved to the step's
    folder); the first failure's message, else None."""
    from shimgen.aoti.runner import Model, Runtime, load_inputs, save_outputs

    step = {"out": "open"}
    try:  # reported in the row, not raised: the other models' rows still come
        with Model(Runtime(Path(spec["runtime"]), spec["prefix"]), pt2) as model:
            for step in steps:
                save_outputs(model.run(load_inputs(Path(p) for p in step["inputs"])), Path(step["out"]))
    except Exception as error:
        return f"{step['out']}: {error}"[:1000]
    return None


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
