#!/usr/bin/env bash
# Everything CUDA in one GPU-machine call (what the closing notes paste), most wanted first; each
# part writes its log under $OUT when it ends, so a call cut short by its time limit still returns
# what finished:
#   v. benchmarks/int4_mm_cuda.py --variants all: every int4 kernel variant of the runtime against
#      torch's tinygemm at M = 1..16 (inner_k_tiles 8; 4 and 2 at M = 1..8), one table each;
#   1. tests/gpu that compile no model (ops, fallbacks, runtime, defects, several GPUs);
#   2. benchmarks/int4_mm_cuda.py (shimgen's int4 kernel as dispatched vs torch's tinygemm);
#   3. tests/gpu that compile models (DLPack, AOTI CUDA, the zoo, transformers' LLMs);
#   4. the transformer-block latency on CUDA; 5. the bf16 decoder step.
# Run from the repository root. Without LIEF on the machine, put its abi3 wheel (and
# scipy-openblas32's) in .whl/ first. SHIMGEN_GPU_PREBUILT=DIR: use a CUDA runtime built elsewhere
# with SHIMGEN_RUNTIME_BUILD_TESTS=ON (its library, shimgen-*.txt and tests/ copied into DIR) instead
# of building one here: the GPU machine's minutes then go to the tests. SHIMGEN_ZOO_CACHE: reuse
# compiled CUDA zoo models. SHIMGEN_GPU_PARTS="1 3": run only those parts (always in the order
# v 1 2 3 4 5); SHIMGEN_GPU_OP_TESTS, SHIMGEN_GPU_MODEL_TESTS: part 1's or part 3's test files
# instead of all of them (SHIMGEN_GPU_MODEL_TIMEOUT: part 3's limit in seconds, default 500).
# SHIMGEN_INT4_SWEEP_TIMEOUT (seconds, default 200) and SHIMGEN_INT4_SWEEP_INNER
# (default "4 2"; empty: none) bound part v when the session's GPU minutes are few. SHIMGEN_ZOO_JOBS:
# compiling children for the models (default: a quarter of the cores).
set -u
parts=" ${SHIMGEN_GPU_PARTS:-v 1 2 3 4 5} "
want() { [[ "$parts" == *" $1 "* ]]; }
cd "$(dirname "$0")/.."
OUT="${OUT:-$(mktemp -d /tmp/shimgen-gpu-XXXXXX)}"
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/shimgen-site .whl/*.whl
  export PYTHONPATH=/tmp/shimgen-site${PYTHONPATH:+:$PYTHONPATH}
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)"
status=0
if [ -n "${SHIMGEN_GPU_PREBUILT:-}" ]; then
  SHIMGEN_GPU_PREBUILT=$(cd "$SHIMGEN_GPU_PREBUILT" && pwd)
  export SHIMGEN_GPU_PREBUILT
  # The build machine's RUNPATHs do not exist here: cuBLAS and cudart from torch's nvidia wheels,
  # OpenBLAS from the carried scipy-openblas32, the runtime itself for the native test programs.
  site=$(python3 -c "import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))")
  libdirs=$(find "$site/nvidia" /tmp/shimgen-site -maxdepth 4 \( -name 'libcublas.so.*' -o -name 'libcudart.so.*' \
    -o -name 'libscipy_openblas*.so' \) -printf '%h\n' 2>/dev/null | sort -u | paste -sd:)
  export LD_LIBRARY_PATH="$SHIMGEN_GPU_PREBUILT:$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  RT="$SHIMGEN_GPU_PREBUILT/libshimgen_runtime.so"
else
  export SHIMGEN_GPU_BUILD_DIR="${SHIMGEN_GPU_BUILD_DIR:-/tmp/shimgen-gpu-build}"
  echo "== build (log: $OUT/build.log)"
  ( time timeout 420 python3 -m shimgen build -c shimgen/runtime/shimgen.toml -B "$SHIMGEN_GPU_BUILD_DIR" --cuda on -j 16 \
      -D SHIMGEN_RUNTIME_BUILD_TESTS=ON ) > "$OUT/build.log" 2>&1 || { status=1; tail -30 "$OUT/build.log"; }
  RT=$(head -1 "$SHIMGEN_GPU_BUILD_DIR/shimgen-artifacts.txt" 2>/dev/null)
fi
pytest_gpu() {  # log name, timeout, test files
  local log=$1 limit=$2
  shift 2
  # SIGINT first: pytest then still prints its summary (which test failed, and why) when cut short.
  timeout -s INT -k 30 "$limit" python3 -m pytest -q -s -rfEs -p no:cacheprovider "$@" > "$OUT/$log" 2>&1 || status=1
  grep -E "^(FAILED|ERROR)|PASS|per call|ratio" "$OUT/$log" | tail -20; tail -4 "$OUT/$log"
}
if want v; then  # first: the int4 kernel-variant sweep (about a minute), then the rest
echo "== v. benchmarks/int4_mm_cuda.py --variants all (log: $OUT/int4_variants.log)"
timeout "${SHIMGEN_INT4_SWEEP_TIMEOUT:-200}" python3 benchmarks/int4_mm_cuda.py --runtime "$RT" --variants all \
  > "$OUT/int4_variants.log" 2>&1 || status=1
tail -26 "$OUT/int4_variants.log"
for inner in ${SHIMGEN_INT4_SWEEP_INNER-4 2}; do  # the other inner_k_tiles torch makes, decoding rows only
  echo "== v. --variants all --inner $inner --m 1-8 (log: $OUT/int4_variants_inner$inner.log)"
  timeout 100 python3 benchmarks/int4_mm_cuda.py --runtime "$RT" --variants all --inner "$inner" --m 1-8 \
    > "$OUT/int4_variants_inner$inner.log" 2>&1 || status=1
  tail -10 "$OUT/int4_variants_inner$inner.log"
done
fi
if want 1; then
echo "== 1. tests/gpu that compile no model (log: $OUT/gpu.log)"
# shellcheck disable=SC2086
pytest_gpu gpu.log 300 ${SHIMGEN_GPU_OP_TESTS:-tests/gpu/test_cuda_ops.py tests/gpu/test_runtime_cuda.py \
  tests/gpu/test_cuda_defects.py tests/gpu/test_multi_gpu.py tests/gpu/test_cuda_fallbacks.py}
fi
if want 2; then
echo "== 2. benchmarks/int4_mm_cuda.py"
timeout 150 python3 benchmarks/int4_mm_cuda.py --runtime "$RT" > "$OUT/int4.log" 2>&1 || status=1
tail -22 "$OUT/int4.log"
fi
if want 3; then
echo "== 3. tests/gpu that compile models (log: $OUT/models.log)"
# shellcheck disable=SC2086
pytest_gpu models.log "${SHIMGEN_GPU_MODEL_TIMEOUT:-500}" ${SHIMGEN_GPU_MODEL_TESTS:-tests/gpu/test_dlpack_cuda.py tests/gpu/test_aoti_cuda.py \
  tests/gpu/test_zoo_cuda.py tests/gpu/test_llm_cuda.py}
fi
if want 4; then
echo "== 4. benchmarks/model_latency.py --device cuda"
timeout 150 python3 benchmarks/model_latency.py --device cuda --runtime "$RT" --work "$OUT/latency" > "$OUT/latency.log" 2>&1 || status=1
grep -E "^transformer|^per call|^  |^ratio" "$OUT/latency.log" | tail -8
fi
if want 5; then
echo "== 5. benchmarks/llm_decode_cuda.py"
timeout 200 python3 benchmarks/llm_decode_cuda.py --runtime "$RT" > "$OUT/decode.log" 2>&1 || status=1
tail -8 "$OUT/decode.log"
fi
exit $status
