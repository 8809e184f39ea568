#!/bin/sh
# Fetch ExecuTorch's shim tree, build its AOTI CUDA shim library prefixed (one `shimgen build`, the
# post-build `check-symbols --strict` of the library with every test binary that links it), then
# run ExecuTorch's own shim gtests against it. Without a GPU only the tests that need none pass;
# the summary counts them per binary. Then coexistence with libtorch (torch's libtorch_cpu.so exports
# the same plain aoti_torch_* names): loaded first, RTLD_GLOBAL, beside a consumer of the prefixed
# library and a consumer of the same ExecuTorch source linked unprefixed (the negative control).
#   BUILD      the build directory (default: build)
#   LIBTORCH   libtorch_cpu.so to load (default: the one of the torch that $PYTHON imports)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PYTHON=${PYTHON:-python3}
BUILD=${BUILD:-$here/build}
"$here/fetch.sh"
"$PYTHON" -m shimgen build -c "$here/shimgen.toml" -B "$BUILD" --cuda on
"$PYTHON" -m shimgen check-symbols "$BUILD/libaoti_cuda_shims.so" \
  --manifest "$BUILD/shimgen/shimgen_prefix/manifest.json" --strict
passed=0; failed=0; skipped=0
while read -r name; do
  [ -n "$name" ] || continue
  out=$("$BUILD/$name" --gtest_brief=1 2>&1 || true)
  p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p'); p=${p:-0}
  f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p'); f=${f:-0}
  s=$(echo "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p'); s=${s:-0}
  echo "$name: $p passed, $f failed, $s skipped"
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done < "$BUILD/et_tests.txt"
echo "ExecuTorch shim gtests: $passed passed, $failed failed, $skipped skipped"

LIBTORCH=${LIBTORCH:-$("$PYTHON" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))' 2>/dev/null || true)}
if [ -z "$LIBTORCH" ] || [ ! -f "$LIBTORCH" ]; then
  echo "coexistence: skipped (no libtorch_cpu.so: install torch or set LIBTORCH)"
  exit 0
fi
out=$("$BUILD/coexist" "$LIBTORCH" "$BUILD/libet_coexist_unprefixed.so" "$BUILD/libet_coexist_prefixed.so")
echo "$out"
echo "$out" | grep -q "libet_coexist_prefixed.so -> .*/libaoti_cuda_shims.so version=6 roundtrip=0" &&
  echo "$out" | grep -q "libet_coexist_unprefixed.so -> .*libtorch_cpu.so version=6 roundtrip=0" || {
  echo "coexistence: FAILED (the prefixed consumer must bind to libaoti_cuda_shims.so, the unprefixed one to libtorch)"
  exit 1
}
echo "coexistence: the prefixed consumer binds to libaoti_cuda_shims.so, the unprefixed control to $(basename "$LIBTORCH")"
