"""Regenerate shimgen/runtime/src/ops/cuda_unsupported.cpp (the CPU-only build's CUDA op stubs) from
shimgen/runtime/include/shimgen_runtime/shim_cuda_ops.h. Run after adding a CUDA op to that header:

    python scripts/gen_cuda_stubs.py          # writes the file (unchanged: untouched)
    python scripts/gen_cuda_stubs.py --check  # exit 1 when the file is stale
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from shimgen.generate.stubs import cuda_stubs

HEADER = REPO / "shimgen" / "runtime" / "include" / "shimgen_runtime" / "shim_cuda_ops.h"
TARGET = REPO / "shimgen" / "runtime" / "src" / "ops" / "cuda_unsupported.cpp"


def expected() -> str:
    return cuda_stubs(HEADER.read_text(encoding="utf-8"), HEADER.name)


def main(argv: list[str]) -> int:
    text = expected()
    current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else None
    if "--check" in argv:
        if current != text:
            sys.stderr.write(f"{TARGET.relative_to(REPO)} is stale: run python scripts/gen_cuda_stubs.py\n")
            return 1
        return 0
    if current != text:
        TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
