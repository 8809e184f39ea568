#!/usr/bin/env bash
# BoringSSL's libcrypto prefixed by shimgen, the whole proof by hand (what the closing note pastes):
# fetch the grpcio 1.76.0 sdist, the slow test (README build with BoringSSL's own tests, strict
# check, coexistence with the system OpenSSL by dladdr, crypto_test's counts), then the build-time
# benchmark against a plain build of the same targets. Run from anywhere; several minutes per build
# on 2 cores. WORK (default /tmp/shimgen-boringssl) keeps the sdist between runs.
set -eu
cd "$(dirname "$0")/.."
WORK="${WORK:-/tmp/shimgen-boringssl}"
PYTHON="${PYTHON:-python3}"
SRC=$(PYTHON="$PYTHON" examples/vendor-boringssl/fetch.sh "$WORK")
echo "== BoringSSL: $SRC"
SHIMGEN_BORINGSSL_SRC="$SRC" "$PYTHON" -m pytest -q -s -rfEs -p no:cacheprovider \
  tests/integration/test_vendor_boringssl.py 2>&1 | grep -E "crypto_test:|passed|failed|skipped|Error" || true
echo "== build time (benchmarks/one_pass.py)"
"$PYTHON" benchmarks/one_pass.py --boringssl "$SRC" -j 2 --keep "$WORK/bench"
