#!/bin/sh
# Fetch ExecuTorch's shim tree, build its AOTI CUDA shim library prefixed (one `shimgen build`, the
# post-build `check-symbols --strict` of the library with every test binary that links it), then
# run ExecuTorch's own shim gtests against it. Without a GPU only the tests that need none pass;
# the summary counts them per binary.
#   BUILD   the build directory (default: build)
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
