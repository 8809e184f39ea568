"""Child process of tests/integration/test_aoti_zoo.py: libtorch_cpu.so RTLD_GLOBAL first, then the
``shimgen run`` CLI (in-process, as ``python -m shimgen run`` would) for every model in SPEC.json;
prints a JSON report: per model the CLI's exit code, the runtime's shim-call delta and which library
each shim slot of the loaded model binds to.

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
    return report


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
