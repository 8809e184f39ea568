#!/usr/bin/env bash
# Issue 8, CUDA part: a CUDA AOTInductor model (link_libtorch=False), rewritten with
# `shimgen prefix-imports`, runs on a CUDA build of shimgen's runtime on a caller-selected stream;
# outputs are compared with eager torch; imported CUDA shims and per-call latency are printed.
#
# Needs: a CUDA GPU, torch with CUDA, nvcc, and shimgen's Python deps (lief, jinja2, numpy, cmake,
# ninja). Without network, install them from a wheel directory first: SHIMGEN_WHEELS=/path/to/wheels.
# Usage (from the repository root):  bash scripts/gpu_aoti_cuda.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="${1:-$(mktemp -d /tmp/shimgen-gpu-aoti-XXXXXX)}"
mkdir -p "$WORK"
PY="${PYTHON:-python3}"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

step() { printf '\n== %s\n' "$*"; }

if [[ -n "${SHIMGEN_WHEELS:-}" ]]; then
  "$PY" -m pip install -q --no-index --find-links "$SHIMGEN_WHEELS" lief jinja2 cmake ninja numpy
fi
"$PY" - <<'PY'
import importlib.util, sys
missing = [m for m in ("lief", "jinja2", "numpy", "torch") if importlib.util.find_spec(m) is None]
if missing:
    sys.exit(f"missing Python packages: {', '.join(missing)} (set SHIMGEN_WHEELS=DIR to install from wheels)")
import torch
if not torch.cuda.is_available():
    sys.exit("no CUDA device visible to torch")
PY
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true

step "build the runtime with CUDA"
"$PY" -m shimgen build -B "$WORK/runtime" --cuda on -j "$(nproc)" | tail -4
RUNTIME="$WORK/runtime/libshimgen_runtime.so"
"$PY" -c "import ctypes,sys; sys.exit(0 if ctypes.CDLL('$RUNTIME').shimgen_runtime_has_cuda() == 1 else 'runtime built without CUDA')"

step "compile for CUDA with link_libtorch=False (torch, separate process)"
TORCHINDUCTOR_CACHE_DIR="$WORK/inductor-free" "$PY" scripts/gpu_aoti_cuda.py compile "$WORK" 2> "$WORK/compile.log" || { tail -30 "$WORK/compile.log"; exit 1; }

for name in pointwise reduction; do
  step "$name: what the compiled .so imports"
  rm -rf "$WORK/x_$name" && "$PY" -m zipfile -e "$WORK/$name.pt2" "$WORK/x_$name"
  so=$(find "$WORK/x_$name" -name '*.so' | head -1)
  echo "DT_NEEDED: $(readelf -d "$so" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
  echo "shims ($(nm -D --undefined-only "$so" | grep -c ' aoti_torch_')): $(nm -D --undefined-only "$so" | awk '/ aoti_torch_/{print $2}' | tr '\n' ' ')"
  echo "CUDA runtime imports: $(nm -D --undefined-only "$so" | awk '/ cuda/{print $2}' | tr '\n' ' ')"
  echo "cubins in package: $(find "$WORK/x_$name" -name '*.cubin' | wc -l)"
  step "$name: shimgen prefix-imports"
  "$PY" -m shimgen prefix-imports "$WORK/$name.pt2" -o "$WORK/$name.prefixed.pt2" -c shimgen/runtime/shimgen.toml
done

step "run on the prefixed CUDA runtime, caller-selected stream (no torch in this process)"
status=0
"$PY" scripts/gpu_aoti_cuda.py run "$WORK" "$RUNTIME" || status=$?

step "zoo: compile the six models for CUDA (cached in \$SHIMGEN_ZOO_CACHE, default WORK/zoo-cache)"
export SHIMGEN_ZOO_CACHE="${SHIMGEN_ZOO_CACHE:-$WORK/zoo-cache}"
"$PY" - "$WORK" <<'PY'
import json, sys
from pathlib import Path
sys.path.insert(0, "tests")
import aoti_zoo
dirs = aoti_zoo.ensure_compiled(sorted(aoti_zoo.ZOO), device="cuda")
Path(sys.argv[1], "zoo.json").write_text(json.dumps({n: str(d) for n, d in dirs.items()}))
print(f"{len(dirs)} models in {aoti_zoo.cache_root()}")
PY

step "zoo: prefix-imports + run on the CUDA runtime (numpy, LIEF and libcudart in the process; no torch)"
"$PY" scripts/gpu_aoti_cuda.py zoo "$WORK" "$RUNTIME" || status=$?

step "baseline: eager torch and torch's own aoti_load_package (libtorch-linked builds), separate process"
set +e
TORCHINDUCTOR_CACHE_DIR="$WORK/inductor-linked" "$PY" scripts/gpu_aoti_cuda.py torch-baseline "$WORK" 2> "$WORK/baseline.log"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
  echo "torch's loader exited with status $rc (139 = segfault, as FACTS.md reports for torch 2.11); last lines:"
  tail -5 "$WORK/baseline.log"
fi

step "result: $([[ $status -eq 0 ]] && echo PASS || echo FAIL) (work dir $WORK)"
exit $status
