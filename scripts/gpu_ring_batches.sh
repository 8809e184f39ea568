#!/usr/bin/env bash
# The GPU ring in few device minutes: tests/arch_ring.py's models in batches (BATCHES, ';'-separated
# names), pipelined so that batch i+1 compiles (torch, CPU-bound) while batch i runs
# (tests/gpu/test_ring_cuda.py, GPU), with part 1's op tests and, optionally, the special-function
# proxy test in the background. Measured 2026-12-05: 112 models in three calls (about 1,000 s of
# device time). Each batch is its own pytest run, so a call cut short loses only the batch in flight.
#   OPS=1 [OPFILES="..."]  part 1 (default: ring_cuda_ops, cuda_fallbacks, cuda_renorm_model,
#                          runtime_cuda, dlpack_cuda) in the background
#   SPECIAL=1 | diag       tests/gpu/test_proxy_cuda.py in the background, or only the special model's
#                          compile under faulthandler (DIAG_AT seconds, default 240)
#   DYNAMIC=all | names    tests/gpu/test_dynamic_ring_cuda.py (the whole dynamic ring, or those names)
#                          in the background, log dynamic.log
#   PROBE=dtype            scripts/op_probe.py --device cuda --dtype dtype (float32, bfloat16, float16) in
#                          the background, 6 shards, log probe.log and rows probe.json (the plain-torch calls
#                          that fall back on CUDA, against what the runtime serves)
#   SWEEP="args"           scripts/family_sweep.py --device cuda args in the background (e.g. "--head causal-lm
#                          --dtype bfloat16 --jobs 6"), log sweep.log (a row per family as it ends), rows sweep.json (rewritten as each family ends)
#   BENCH=1                after everything else, on the idle GPU: benchmarks/int4_mm_cuda.py and
#                          benchmarks/llm_decode_cuda.py against the same runtime (log bench.log), with
#                          the library path the runtime needs (its libscipy_openblas, cuBLAS, cudart);
#                          up to 90 + 150 s after LIMIT, so leave that room (LIMIT=340 in a 600 s call)
#   LIMIT=seconds          when the script stops starting batches and returns (default 560)
#   DECLARE_GROUPED_MM=1   add the one declaration torch 2.11's c_shim_cuda.h lacks to that machine's
#                          torch (aoti_torch_cuda__grouped_mm, as torch 2.13's header has it): without it
#                          torch 2.11 cannot compile a bf16 MoE for CUDA (its wrapper calls the shim,
#                          "was not declared in this scope"). The GPU machine is thrown away after.
#   JOBS=n                 compiling children (default 8)
#   ARBITRATE="names"      after the batches, on the idle GPU: scripts/cuda_arbiter.py on those models (shimgen,
#                          torch's loader, eager CUDA and a float64 reference side by side), log arbiter.log
# The CUDA runtime: .gpu/pre if present (built elsewhere with SHIMGEN_RUNTIME_BUILD_TESTS=ON: its
# library, shimgen-*.txt and tests/ binaries), else built here. Wheels in .whl/ (LIEF, scipy-openblas32,
# platformdirs) are installed first. Logs under $OUT: part1.log, special.log, ring.log, compile.log,
# build.log. Run from the repository root:
#   OPS=1 BATCHES="gemma glm;pegasus marian" bash scripts/gpu_ring_batches.sh
set -u
cd "$(dirname "$0")/.."
OUT="${OUT:-$(mktemp -d /tmp/shimgen-gpu-ring-XXXXXX)}"
start=$(date +%s)
LIMIT=${LIMIT:-560}
left() { echo $(( LIMIT - ($(date +%s) - start) )); }
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/shimgen-site .whl/*.whl || exit 1
fi
export PYTHONPATH=/tmp/shimgen-site:$PWD PYTHONUNBUFFERED=1
export SHIMGEN_ZOO_JOBS=${JOBS:-8} SHIMGEN_ZOO_CACHE=/tmp/zoo
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)"
if [ -n "${DECLARE_GROUPED_MM:-}" ]; then
  header=$(python3 -c "import os, torch; print(os.path.join(os.path.dirname(torch.__file__), 'include/torch/csrc/inductor/aoti_torch/generated/c_shim_cuda.h'))")
  if ! grep -q aoti_torch_cuda__grouped_mm "$header"; then
    sed -i '0,/^extern "C" {/s//extern "C" {\nAOTI_TORCH_EXPORT AOTITorchError aoti_torch_cuda__grouped_mm(AtenTensorHandle self, AtenTensorHandle mat2, AtenTensorHandle* offs, AtenTensorHandle* bias, int32_t* out_dtype, AtenTensorHandle* ret0);/' "$header"
    echo "== declared aoti_torch_cuda__grouped_mm in $header"
  fi
fi
compile() { python3 -c "import sys; sys.path.insert(0, 'tests'); import aoti_zoo
r = aoti_zoo.ensure_compiled(sys.argv[2:], device='cuda', keep_going=True, timeout=float(sys.argv[1]))
print(len(r), 'compiled or refused')" "$@" >> $OUT/compile.log 2>&1; }
IFS=';' read -ra batches <<< "${BATCHES:-}"
rm -rf /tmp/ringlogs && mkdir -p /tmp/ringlogs  # a machine kept warm between calls keeps /tmp
[ ${#batches[@]} -gt 0 ] && { compile $((LIMIT-60)) ${batches[0]} & first=$!; }
if [ -d .gpu/pre ]; then
  export SHIMGEN_GPU_PREBUILT=$PWD/.gpu/pre
  site=$(python3 -c "import os, torch; print(os.path.dirname(os.path.dirname(torch.__file__)))")
  libdirs=$(find "$site/nvidia" /tmp/shimgen-site -maxdepth 4 \( -name 'libcublas.so.*' -o -name 'libcudart.so.*' \
    -o -name 'libscipy_openblas*.so' \) -printf '%h\n' 2>/dev/null | sort -u | paste -sd:)
  export LD_LIBRARY_PATH="$SHIMGEN_GPU_PREBUILT:$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
  export SHIMGEN_GPU_BUILD_DIR=/tmp/gpubuild
  ( time timeout 400 python3 -m shimgen build -c shimgen/runtime/shimgen.toml -B /tmp/gpubuild --cuda on -j 16 \
      -D SHIMGEN_RUNTIME_BUILD_TESTS=ON ) > $OUT/build.log 2>&1
  tail -5 $OUT/build.log; echo "== built after $(( $(date +%s) - start )) s"
fi
if [ "${SPECIAL:-}" = diag ]; then  # where the special model's CUDA compile spends its time
  ( timeout 320 python3 -X faulthandler -c "import faulthandler, sys, time; faulthandler.dump_traceback_later(${DIAG_AT:-240}, exit=True)
sys.path.insert(0, 'tests'); import proxy_models; t = time.time(); proxy_models.main(['/tmp/pm', '--device', 'cuda', 'special']); print('compiled in', time.time() - t)" > $OUT/special.log 2>&1 ) &
  SPECIAL=
fi
if [ -n "${SPECIAL:-}" ]; then
  ( timeout -s INT -k 20 $(( $(left) - 20 )) python3 -m pytest -q -s -rfEs -p no:cacheprovider tests/gpu/test_proxy_cuda.py > $OUT/special.log 2>&1 ) &
fi
if [ -n "${DYNAMIC:-}" ]; then
  names=${DYNAMIC/#all/}
  ( SHIMGEN_DYNAMIC_CUDA_NAMES="$names" timeout -s INT -k 20 $(( $(left) - 20 )) python3 -m pytest -q -s -rfEs -p no:cacheprovider \
      tests/gpu/test_dynamic_ring_cuda.py > $OUT/dynamic.log 2>&1 ) &
fi
if [ -n "${PROBE:-}" ]; then
  ( timeout -s INT -k 20 $(( $(left) - 20 )) python3 scripts/op_probe.py --device cuda --dtype "$PROBE" --jobs 6 \
      --json $OUT/probe.json > $OUT/probe.log 2>&1 ) &
fi
if [ -n "${SWEEP:-}" ]; then
  ( timeout -s INT -k 20 $(( $(left) - 20 )) python3 scripts/family_sweep.py --device cuda $SWEEP --json $OUT/sweep.json \
      > $OUT/sweep.log 2>&1 ) &
fi
if [ -n "${OPS:-}" ]; then
  ( timeout -s INT -k 20 $(( $(left) - 20 )) python3 -m pytest -q -s -rfEs -p no:cacheprovider ${OPFILES:-tests/gpu/test_ring_cuda_ops.py tests/gpu/test_cuda_fallbacks.py \
      tests/gpu/test_cuda_renorm_model.py tests/gpu/test_runtime_cuda.py tests/gpu/test_dlpack_cuda.py} > $OUT/part1.log 2>&1 ) &
fi
[ -n "${first:-}" ] && wait $first
runner=
for i in "${!batches[@]}"; do
  l=$(left)
  if [ "$l" -lt 60 ]; then echo "== batch $i not run ($l s left): ${batches[$i]}" >> /tmp/ringlogs/$i.log; continue; fi
  echo "== batch $i ($l s left): ${batches[$i]}" > /tmp/ringlogs/$i.log
  ( SHIMGEN_RING_CUDA_NAMES="${batches[$i]}" timeout -s INT -k 15 $((l-20)) python3 -m pytest -q -s -rfEs -p no:cacheprovider tests/gpu/test_ring_cuda.py >> /tmp/ringlogs/$i.log 2>&1 ) &
  runner=$!
  next=$((i+1))
  [ $next -lt ${#batches[@]} ] && [ "$(left)" -gt 120 ] && compile $(( $(left) - 60 )) ${batches[$next]}
  wait $runner
  grep -E "^(FAILED|ERROR)|passed|failed" /tmp/ringlogs/$i.log | tail -6
done
wait
if [ -n "${ARBITRATE:-}" ]; then
  timeout -s INT -k 10 $(( $(left) + 120 )) python3 scripts/cuda_arbiter.py \
    --runtime "${SHIMGEN_GPU_PREBUILT:-/tmp/gpubuild}/libshimgen_runtime.so" $ARBITRATE > $OUT/arbiter.log 2>&1
fi
if [ -n "${BENCH:-}" ]; then  # last and alone: timings want an idle GPU
  runtime=${SHIMGEN_GPU_PREBUILT:-/tmp/gpubuild}/libshimgen_runtime.so
  { timeout -s INT -k 10 90 python3 benchmarks/int4_mm_cuda.py --runtime "$runtime"
    timeout -s INT -k 10 150 python3 benchmarks/llm_decode_cuda.py --runtime "$runtime"; } > $OUT/bench.log 2>&1
fi
for i in "${!batches[@]}"; do cat "/tmp/ringlogs/$i.log" 2>/dev/null; done > $OUT/ring.log  # in batch order
for f in part1 special dynamic; do [ -f $OUT/$f.log ] && { echo "== $f"; grep -E "^(FAILED|ERROR)" $OUT/$f.log | head -30; tail -3 $OUT/$f.log; }; done
[ -f $OUT/sweep.log ] && { echo "== sweep: $(grep -c ' served$' $OUT/sweep.log) served"; grep -E "MISSING|timeout|crash" $OUT/sweep.log | head -30; tail -1 $OUT/sweep.log; }
[ -f $OUT/arbiter.log ] && { echo "== arbiter"; tail -40 $OUT/arbiter.log; }
[ -f $OUT/bench.log ] && { echo "== bench"; tail -30 $OUT/bench.log; }
[ -f $OUT/probe.log ] && { echo "== probe"; grep -E "MISSING" $OUT/probe.log | head -30; tail -1 $OUT/probe.log; }
echo "== done after $(( $(date +%s) - start )) s"
