#!/usr/bin/env bash
# Everything CUDA in one GPU-machine call (what the closing notes paste): tests/gpu (which runs
# scripts/gpu_aoti_cuda.sh), the transformer-block latency on CUDA, and the torch handle-steal
# contract the runtime's input-handle cleanup relies on. Run from the repository root.
# Without LIEF on the machine, put its abi3 wheel (and scipy-openblas32's) in .whl/ first.
# SHIMGEN_ZOO_CACHE: reuse compiled CUDA zoo models (default: compile them, a few minutes).
set -u
cd "$(dirname "$0")/.."
OUT="${OUT:-$(mktemp -d /tmp/shimgen-gpu-XXXXXX)}"
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/shimgen-site .whl/*.whl
  export PYTHONPATH=/tmp/shimgen-site${PYTHONPATH:+:$PYTHONPATH}
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== torch's steal_from_raw_handles_to_raii_handles (must null the handles it takes)"
utils=$(python3 -c "import torch,os;print(os.path.join(os.path.dirname(torch.__file__),'include/torch/csrc/inductor/aoti_runtime/utils.h'))")
grep -n -A10 "steal_from_raw_handles_to_raii_handles(" "$utils" | head -12
echo "== tests/gpu (log: $OUT/gpu.log)"
timeout 400 python3 -m pytest -q -s -rfEs -p no:cacheprovider tests/gpu > "$OUT/gpu.log" 2>&1; status=$?
grep -E "PASS|FAIL|per call|ratio" "$OUT/gpu.log" | tail -20; tail -8 "$OUT/gpu.log"
echo "== benchmarks/model_latency.py --device cuda"
timeout 150 python3 benchmarks/model_latency.py --device cuda --work "$OUT/latency" 2>&1 | grep -E "^transformer|^per call|^  |^ratio" | tail -8
exit $status
