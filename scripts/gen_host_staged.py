"""Regenerate the host-staged CUDA ops (shimgen/generate/host_staged.py) from shim_cpu_ops.h and
shimgen/runtime/src/ops/cuda/host_staged_ops.json: their declarations in shim_cuda_ops.h's marked
block, their wrappers in ops/cuda/host_staged_generated.cu, then the CPU-only build's stubs
(scripts/gen_cuda_stubs.py), which follow the header. Run after adding a name to the JSON:

    python scripts/gen_host_staged.py          # writes what changed
    python scripts/gen_host_staged.py --check  # exit 1 when any of the three files is stale
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from shimgen.generate import host_staged
from shimgen.generate.stubs import cuda_stubs

INCLUDE = REPO / "shimgen" / "runtime" / "include" / "shimgen_runtime"
CPU_HEADER, CUDA_HEADER = INCLUDE / "shim_cpu_ops.h", INCLUDE / "shim_cuda_ops.h"
OPS = REPO / "shimgen" / "runtime" / "src" / "ops"
LIST, SOURCE, STUBS = OPS / "cuda" / "host_staged_ops.json", OPS / "cuda" / "host_staged_generated.cu", \
    OPS / "cuda_unsupported.cpp"


def expected() -> dict[Path, str]:
    ops = host_staged.host_staged_ops(CPU_HEADER.read_text(encoding="utf-8"),
                                      host_staged.listed(LIST.read_text(encoding="utf-8")))
    header = host_staged.with_declarations(CUDA_HEADER.read_text(encoding="utf-8"), host_staged.declarations(ops))
    return {CUDA_HEADER: header, SOURCE: host_staged.source(ops, CPU_HEADER.name),
            STUBS: cuda_stubs(header, CUDA_HEADER.name)}


def main(argv: list[str]) -> int:
    stale = [path for path, text in expected().items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    if "--check" in argv:
        for path in stale:
            sys.stderr.write(f"{path.relative_to(REPO)} is stale: run python scripts/gen_host_staged.py\n")
        return 1 if stale else 0
    for path, text in expected().items():
        if path in stale:
            path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
