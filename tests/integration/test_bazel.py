"""examples/bazel-consumer built for real with Bazel (offline: local rules_cc/rules_java stubs),
then proven with check-symbols: the shared library exports the prefixed shims only, an unreferenced
shim survives through alwayslink, the consumer imports no plain name, and a consumer whose prefix
came through `copts` links anyway while importing the plain names (SG004).

Needs `bazel` (and `buildifier` for the lint test): `.ci/setup-bazel.sh` installs both."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e._native import REPO, c_compiler, has_check_symbols, python_env, run

EXAMPLE = REPO / "examples" / "bazel-consumer"
BAZEL = shutil.which("bazel")
BUILDIFIER = shutil.which("buildifier")

pytestmark = pytest.mark.skipif(BAZEL is None, reason="bazel is not installed (run .ci/setup-bazel.sh)")
needs_checker = pytest.mark.skipif(not has_check_symbols(), reason="`shimgen check-symbols` is not in this checkout yet")

SHIMS = ("aoti_torch_device_type_cpu", "aoti_torch_dtype_bool", "aoti_torch_dtype_float32", "aoti_torch_dtype_int64")
CALLED = ("aoti_torch_device_type_cpu", "aoti_torch_dtype_float32", "aoti_torch_dtype_int64")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the example with the shimgen outputs generated into it."""
    workspace = tmp_path_factory.mktemp("bazel") / "ws"
    shutil.copytree(EXAMPLE, workspace, ignore=shutil.ignore_patterns("bazel-*"))
    run([sys.executable, "-m", "shimgen", "generate", "-c", workspace / "shimgen.toml"], env=python_env())
    assert (workspace / "generated" / "shimgen.bzl").is_file()
    return workspace


@pytest.fixture(scope="module")
def bazel_bin(workspace: Path) -> Path:
    c_compiler()
    root = workspace.parent / "bazel-root"
    run([BAZEL, "--batch", f"--output_user_root={root}", "build",
         "--nosandbox_debug", "--spawn_strategy=local", "//..."], cwd=workspace)
    return workspace / "bazel-bin"


def symbols(path: Path, *, defined: bool) -> set[str]:
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) is not installed")
    flag = "--defined-only" if defined else "--undefined-only"
    result = subprocess.run([nm, "-D", flag, str(path)], capture_output=True, text=True, check=True)
    return {line.split()[-1].split("@")[0] for line in result.stdout.splitlines() if line.strip()}


def check(workspace: Path, *paths: Path, strict: bool = False) -> tuple[int, dict]:
    command = [sys.executable, "-m", "shimgen", "check-symbols", *map(str, paths),
               "--manifest", str(workspace / "generated" / "manifest.json"), "--format", "json"]
    if strict:
        command.append("--strict")
    result = subprocess.run(command, capture_output=True, text=True, env=python_env())
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


def codes(report: dict) -> set[tuple[str, str]]:
    return {(finding["code"], finding["symbol"]) for finding in report["findings"]}


def test_library_exports_every_shim_prefixed_and_nothing_plain(bazel_bin: Path) -> None:
    exported = symbols(bazel_bin / "shims" / "libacme_shims.so", defined=True)
    assert {f"acme_{name}" for name in SHIMS} <= exported
    # aoti_torch_dtype_bool is referenced by nothing: only alwayslink (--whole-archive) kept it.
    assert "acme_aoti_torch_dtype_bool" in exported
    assert not [name for name in exported if name.startswith("aoti_torch_")]


def test_defines_reach_the_consumer_and_copts_do_not(bazel_bin: Path) -> None:
    consumer = symbols(bazel_bin / "consumer" / "libacme_model.so", defined=False)
    assert {f"acme_{name}" for name in CALLED} <= consumer
    assert not [name for name in consumer if name.startswith("aoti_torch_")]
    # The copts-only variant linked fine, yet imports the plain names: it would bind to libtorch.
    copts_only = symbols(bazel_bin / "copts_only" / "libacme_model_copts_only.so", defined=False)
    assert set(CALLED) <= copts_only


@needs_checker
def test_check_symbols_passes_the_library_and_consumer(workspace: Path, bazel_bin: Path) -> None:
    library = bazel_bin / "shims" / "libacme_shims.so"
    status, report = check(workspace, library, strict=True)
    assert status == 0, report["findings"]
    # Checked together, the consumer's prefixed imports all resolve to the library's exports.
    status, report = check(workspace, bazel_bin / "consumer" / "libacme_model.so", library)
    assert status == 0, report["findings"]


@needs_checker
def test_check_symbols_flags_the_copts_only_consumer(workspace: Path, bazel_bin: Path) -> None:
    status, report = check(workspace, bazel_bin / "copts_only" / "libacme_model_copts_only.so",
                           bazel_bin / "shims" / "libacme_shims.so")
    assert status == 1
    assert {("SG004", name) for name in CALLED} <= codes(report)


@pytest.mark.skipif(BUILDIFIER is None, reason="buildifier is not installed (npm install -g @bazel/buildifier)")
def test_buildifier_lint(workspace: Path) -> None:
    files = [workspace / "generated" / "shimgen.bzl", workspace / "WORKSPACE",
             *sorted(p for p in workspace.rglob("*") if p.name in ("BUILD.bazel", "BUILD") or p.suffix == ".bzl")]
    result = subprocess.run([BUILDIFIER, "--mode=check", "--lint=warn", *map(str, set(files))],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
