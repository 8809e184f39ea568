#!/bin/sh
# fetch.sh [DIR]: the grpcio 1.76.0 sdist from PyPI (pip download), with BoringSSL's sources
# (third_party/boringssl-with-bazel) extracted to DIR/grpcio-1.76.0 (default: build/).
# Prints the BoringSSL source directory to pass as -D BORINGSSL_SOURCE_DIR=...
set -eu
dir=${1:-build}
mkdir -p "$dir"
if [ ! -f "$dir/grpcio-1.76.0.tar.gz" ]; then
  "${PYTHON:-python3}" -m pip download --no-binary :all: --no-deps --disable-pip-version-check \
    -d "$dir" grpcio==1.76.0 >&2
fi
if [ ! -f "$dir/grpcio-1.76.0/third_party/boringssl-with-bazel/src/include/openssl/base.h" ]; then
  tar -xzf "$dir/grpcio-1.76.0.tar.gz" -C "$dir" grpcio-1.76.0/third_party/boringssl-with-bazel
fi
echo "$(cd "$dir" && pwd)/grpcio-1.76.0/third_party/boringssl-with-bazel/src"
