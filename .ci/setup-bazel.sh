#!/usr/bin/env bash
# Installs what the Bazel example test needs: Debian's bazel-bootstrap (Bazel 4.2.3, builds offline
# with the local rules_cc/rules_java stubs in examples/bazel-consumer/WORKSPACE) and buildifier
# from npm. Idempotent and quick: each step is skipped when its tool is already on PATH.
set -euo pipefail

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
    echo "setup-bazel: need root (or sudo) to run: $*" >&2; return 1; fi
}

if ! command -v bazel >/dev/null 2>&1; then
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends bazel-bootstrap >/dev/null
fi

if ! command -v buildifier >/dev/null 2>&1; then
  if command -v npm >/dev/null 2>&1; then
    as_root npm install -g --silent --no-audit --no-fund @bazel/buildifier >/dev/null
  else
    echo "setup-bazel: npm not found; buildifier lint will be skipped" >&2
  fi
fi

bazel --version
command -v buildifier >/dev/null 2>&1 && buildifier --version || true
