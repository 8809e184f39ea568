#!/bin/sh
# Fetch the part of ExecuTorch's tree that builds its AOTI shim library into src/executorch (not
# committed here), and curand_kernel.h (rand.cu needs it) from the nvidia-curand wheel into
# src/curand/include. Nothing fetched is edited.
#   ET_GIT   where to clone from (default https://github.com/pytorch/executorch.git; a local mirror works)
#   ET_REF   the commit (default: the one this example was checked against)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ET_GIT=${ET_GIT:-https://github.com/pytorch/executorch.git}
ET_REF=${ET_REF:-cff6f4dd32e630945b7188512c1f2b4f102b05ad}
PYTHON=${PYTHON:-python3}
src="$here/src"
mkdir -p "$src"

paths="backends/aoti backends/cuda/runtime runtime/core runtime/platform extension/cuda"
if [ ! -f "$src/executorch/backends/aoti/common_shims_slim.h" ]; then
  rm -rf "$src/executorch.tmp"
  mkdir -p "$src/executorch.tmp"
  if [ -d "$ET_GIT" ]; then
    # A local clone or bare mirror: export just those paths at the commit.
    git -C "$ET_GIT" archive "$ET_REF" $paths |
      tar -x -C "$src/executorch.tmp"
  else
    git init -q "$src/executorch.tmp"
    git -C "$src/executorch.tmp" fetch -q --depth 1 --filter=blob:none "$ET_GIT" "$ET_REF"
    git -C "$src/executorch.tmp" sparse-checkout set $paths
    git -C "$src/executorch.tmp" checkout -q FETCH_HEAD
  fi
  echo "$ET_REF" > "$src/executorch.tmp/.executorch-commit"
  mv "$src/executorch.tmp" "$src/executorch"
fi

if [ ! -f "$src/curand/include/curand_kernel.h" ]; then
  rm -rf "$src/curand.tmp"
  "$PYTHON" -m pip download --no-deps --only-binary=:all: -d "$src/curand.tmp" nvidia-curand
  "$PYTHON" - "$src/curand.tmp" "$src/curand/include" <<'PY'
import sys, zipfile, pathlib
wheel = next(pathlib.Path(sys.argv[1]).glob("*.whl"))
out = pathlib.Path(sys.argv[2])
with zipfile.ZipFile(wheel) as archive:
    for member in archive.namelist():
        parts = pathlib.PurePosixPath(member).parts
        # nvidia/<cuXX>/include/<header>: headers only, no path from the archive trusted beyond that
        if len(parts) == 4 and parts[0] == "nvidia" and parts[2] == "include" and parts[3].endswith(".h"):
            out.mkdir(parents=True, exist_ok=True)
            (out / parts[3]).write_bytes(archive.read(member))
PY
  rm -rf "$src/curand.tmp"
fi
echo "ExecuTorch $(cat "$src/executorch/.executorch-commit") in $src/executorch"
