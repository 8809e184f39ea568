#!/usr/bin/env bash
# Issue 22 on the GPU machine, one call: build the CUDA runtime once, the CUDA fallback ops against
# torch (tests/gpu/test_cuda_fallbacks.py), transformers' bf16 decoders and encoders end to end
# (tests/gpu/test_llm_cuda.py; compiled in the background while the op tests run), then the two
# benchmarks (benchmarks/int4_mm_cuda.py, benchmarks/llm_decode_cuda.py). Logs under $OUT.
# SHIMGEN_ZOO_CACHE (default: .zoo-cache here): where compiled models are cached.
set -u
cd "$(dirname "$0")/.."
OUT="${OUT:-$(mktemp -d /tmp/shimgen-gpu22-XXXXXX)}"
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/shimgen-site .whl/*.whl
  export PYTHONPATH=/tmp/shimgen-site${PYTHONPATH:+:$PYTHONPATH}
fi
export SHIMGEN_ZOO_CACHE="${SHIMGEN_ZOO_CACHE:-$PWD/.zoo-cache}"
export SHIMGEN_GPU_BUILD_DIR=/tmp/shimgen-gpu22-build
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)"
status=0
echo "== compiling the transformers models in the background (log: $OUT/compile.log)"
( time timeout 480 python3 -c "
import sys; sys.path.insert(0, 'tests'); import aoti_zoo, hf_models
import concurrent.futures as cf
root = aoti_zoo.cache_root() / 'hf-models'
with cf.ThreadPoolExecutor() as pool:
    jobs = [pool.submit(hf_models.ensure_compiled, root, [*hf_models.MODELS, 'llama_step'], 'cuda', 'bfloat16'),
            pool.submit(hf_models.ensure_compiled, root, ['mixtral'], 'cuda', 'float32')]
    for job in jobs:
        print('\n'.join(f'{k}: {v}' for k, v in job.result().items()))" ) > "$OUT/compile.log" 2>&1 &
compiler=$!
echo "== build (log: $OUT/build.log)"
( time timeout 420 python3 -m shimgen build -c shimgen/runtime/shimgen.toml -B "$SHIMGEN_GPU_BUILD_DIR" --cuda on -j 16 \
    -D SHIMGEN_RUNTIME_BUILD_TESTS=ON ) > "$OUT/build.log" 2>&1 || { status=1; tail -30 "$OUT/build.log"; }
tail -4 "$OUT/build.log"
RT=$(head -1 "$SHIMGEN_GPU_BUILD_DIR/shimgen-artifacts.txt" 2>/dev/null)
echo "== tests/gpu/test_cuda_fallbacks.py (log: $OUT/ops.log)"
timeout 300 python3 -m pytest -q -s -rfEs -p no:cacheprovider tests/gpu/test_cuda_fallbacks.py > "$OUT/ops.log" 2>&1 || status=1
grep -E "^(topk|sort|histc|rand|new|cudnn|int4)" "$OUT/ops.log" | head -60; tail -3 "$OUT/ops.log"
wait $compiler; cat "$OUT/compile.log" | tail -12
echo "== tests/gpu/test_llm_cuda.py (log: $OUT/llm.log)"
timeout 300 python3 -m pytest -q -s -rfEs -p no:cacheprovider tests/gpu/test_llm_cuda.py > "$OUT/llm.log" 2>&1 || status=1
grep -E "max \||imports|FAILED|Error" "$OUT/llm.log" | head -30; tail -3 "$OUT/llm.log"
echo "== benchmarks/int4_mm_cuda.py"
timeout 150 python3 benchmarks/int4_mm_cuda.py --runtime "$RT" 2>&1 | tee "$OUT/int4.log" | tail -22
echo "== benchmarks/llm_decode_cuda.py"
timeout 200 python3 benchmarks/llm_decode_cuda.py --runtime "$RT" 2>&1 | tee "$OUT/decode.log" | tail -8
exit $status
