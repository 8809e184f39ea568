"""The Bazel force-include route on a real third-party library: zstd from the `zstandard` sdist,
built by Bazel twice from the same unchanged zstd.c, unprefixed and then through the generated
`shim_force_include_kwargs()` (copts `-include export.h`, the prefix in `defines`), with the
rename set read (`symbols_from`) from the unprefixed build. A consumer built with the helper too
imports only prefixed names; check-symbols --strict passes on the prefixed library.

Bazel has no build step that could feed the generator in the same build, so this is the two-step
route (build, read, generate, build); the one-pass route is CMake's (test_vendor_zstd.py). Needs
`bazel` (`.ci/setup-bazel.sh` installs it); skips without it.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from shimgen.binary.symbols import LINKER_SYMBOLS
from tests.e2e._native import REPO, c_compiler, python_env, run
from tests.integration.test_vendor_zstd import sdist  # noqa: F401  (the session fixture)

BAZEL = shutil.which("bazel")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(BAZEL is None, reason="bazel is not installed (run .ci/setup-bazel.sh)")]

STUBS = REPO / "examples" / "bazel-consumer"
HEADERS = ["zstd.h", "zdict.h", "zstd_errors.h"]

CONFIG = """\
prefix = "vnd_"
macro = "VND_ZSTD_PREFIX"
library = "zstd"
rename = "auto"
symbols_from = ["objects/libzstd_plain.so"]
patterns = ["ZSTD_*", "ZDICT_*", "HUF_*", "FSE_*", "HIST_*", "POOL_*", "COVER_*", "ERR_*"]

[outputs]
dir = "generated"
"""
ZSTD_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_library")
package(default_visibility = ["//visibility:public"])
exports_files(["zstd.c"])
cc_library(name = "headers", hdrs = [{headers}], includes = ["."])
""".format(headers=", ".join(f'"{h}"' for h in HEADERS))
PLAIN_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_binary")
cc_binary(
    name = "libzstd_plain.so",
    srcs = ["//zstd:zstd.c"],
    copts = ["-O1"],
    linkopts = ["-pthread"],
    linkshared = True,
)
"""
VND_DEFS = """\
load("@rules_cc//cc:defs.bzl", "cc_library")
load("//generated:shimgen.bzl", "shim_force_include_kwargs")

def prefixed_cc_library(**kwargs):
    cc_library(**shim_force_include_kwargs("//generated:export.h", "generated/export.h", **kwargs))
"""
VND_BUILD = """\
load("@rules_cc//cc:defs.bzl", "cc_binary")
load("//generated:shimgen.bzl", "shim_version_script_linkopts")
load(":defs.bzl", "prefixed_cc_library")

prefixed_cc_library(
    name = "zstd_vnd_lib",
    srcs = ["//zstd:zstd.c"],
    alwayslink = True,  # a linkshared cc_binary links only what is referenced otherwise
    copts = ["-O1"],
    deps = ["//zstd:headers"],
)
cc_binary(
    name = "libzstd_vnd.so",
    additional_linker_inputs = ["//generated:shimgen.map"],
    linkopts = ["-pthread"] + shim_version_script_linkopts("//generated:shimgen.map"),
    linkshared = True,
    deps = [":zstd_vnd_lib"],
)

# A consumer that includes zstd.h, built with the helper too (copts do not reach dependents).
prefixed_cc_library(name = "consumer_lib", srcs = ["consumer.c"], alwayslink = True, deps = ["//zstd:headers"])
cc_binary(name = "libconsumer.so", linkshared = True, deps = [":consumer_lib"])
"""
CONSUMER = """\
#include <zstd.h>
unsigned consumer_version(void) { return ZSTD_versionNumber(); }
size_t consumer_bound(size_t n) { return ZSTD_compressBound(n); }
"""
GENERATED_BUILD = 'exports_files(["export.h", "shimgen.bzl", "shimgen.map", "manifest.json"])\n'


@pytest.fixture(scope="module")
def workspace(sdist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: F811
    c_compiler()
    ws = tmp_path_factory.mktemp("bazel-vendor") / "ws"
    ws.mkdir()
    shutil.copy2(STUBS / "WORKSPACE", ws / "WORKSPACE")
    shutil.copytree(STUBS / "third_party", ws / "third_party")
    (ws / "zstd").mkdir()
    for name in ["zstd.c", *HEADERS]:
        shutil.copy2(sdist / "zstd" / name, ws / "zstd" / name)  # copied unchanged
    (ws / "zstd" / "BUILD.bazel").write_text(ZSTD_BUILD)
    (ws / "plain").mkdir()
    (ws / "plain" / "BUILD.bazel").write_text(PLAIN_BUILD)
    (ws / "shimgen.toml").write_text(CONFIG)
    return ws


def bazel(ws: Path, *args: str) -> None:
    run([BAZEL, "--batch", f"--output_user_root={ws.parent / 'bazel-root'}", "build", "--spawn_strategy=local",
         *args], cwd=ws)


@pytest.fixture(scope="module")
def built(workspace: Path, sdist: Path) -> Path:  # noqa: F811
    ws = workspace
    bazel(ws, "//plain:libzstd_plain.so")                      # 1. unprefixed
    (ws / "objects").mkdir()
    shutil.copy2(ws / "bazel-bin" / "plain" / "libzstd_plain.so", ws / "objects" / "libzstd_plain.so")
    run([sys.executable, "-m", "shimgen", "generate", "-c", ws / "shimgen.toml"], env=python_env())  # 2. read
    (ws / "generated" / "BUILD.bazel").write_text(GENERATED_BUILD)
    (ws / "vnd").mkdir()
    (ws / "vnd" / "defs.bzl").write_text(VND_DEFS)
    (ws / "vnd" / "BUILD.bazel").write_text(VND_BUILD)
    (ws / "vnd" / "consumer.c").write_text(CONSUMER)
    bazel(ws, "//vnd:libzstd_vnd.so", "//vnd:libconsumer.so")  # 3. prefixed
    for name in ["zstd.c", *HEADERS]:
        assert (ws / "zstd" / name).read_bytes() == (sdist / "zstd" / name).read_bytes()
    return ws / "bazel-bin"


def exports(path: Path) -> set[str]:
    from shimgen.binary.load import load_paths

    return set().union(*(b.exports for b in load_paths([path])))


def imports(path: Path) -> set[str]:
    from shimgen.binary.load import load_paths

    return set().union(*(b.imports for b in load_paths([path])))


def test_bazel_force_include_prefixes_zstd(workspace: Path, built: Path) -> None:
    plain = exports(built / "plain" / "libzstd_plain.so")
    prefixed = exports(built / "vnd" / "libzstd_vnd.so")
    assert "ZSTD_compress" in plain and "HUF_decompress4X_hufOnly_wksp" in plain
    manifest = json.loads((workspace / "generated" / "manifest.json").read_text())
    names = {s["name"] for s in manifest["shims"]}
    # Every zstd export (not the linker's _end, __bss_start) was renamed, and nothing else is exported.
    assert names == plain - LINKER_SYMBOLS
    # Some ld versions keep __bss_start global despite the version script; it is the linker's, not zstd's.
    assert prefixed - LINKER_SYMBOLS == {f"vnd_{name}" for name in names}
    result = run([sys.executable, "-m", "shimgen", "check-symbols", built / "vnd" / "libzstd_vnd.so", "--manifest",
                  workspace / "generated" / "manifest.json", "--strict"], env=python_env(), check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert {s["defined_in"]["file"] for s in manifest["shims"]} == {"objects/libzstd_plain.so"}


def test_bazel_consumer_built_with_the_helper_calls_prefixed_names(built: Path) -> None:
    consumer = {n for n in imports(built / "vnd" / "libconsumer.so") if "ZSTD_" in n}
    assert consumer == {"vnd_ZSTD_versionNumber", "vnd_ZSTD_compressBound"}
