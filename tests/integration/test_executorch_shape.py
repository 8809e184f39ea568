"""ExecuTorch's shim tree in miniature (tests/packages/executorch_shape), prefixed with the
force-include route and no source edit (issue 23 items 8-12): a `.cu` shim, the project's own
`export.h` defining the export macro, a C++ allocator API its backend and test binary call, and one
config serving a CPU-only and a CUDA build. Built with `shimgen build -c <the project's config>`,
so the project finds the CMake package through the shimgen_DIR shimgen passes.

The real tree: examples/executorch-shims (scripts there fetch it; not run in CI)."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from shimgen.builder.builder import find_nvcc
from tests.support import REPO, run_shimgen

PACKAGE = REPO / "tests" / "packages" / "executorch_shape"
PLAIN_SHIM = re.compile(r"^aoti_torch_")

pytestmark = pytest.mark.slow


def _tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _exports(library: Path) -> set[str]:
    from shimgen.binary.load import load_paths

    (binary,) = load_paths([library])
    return set(binary.exports)


def _build(tmp: Path, name: str, cuda: str) -> tuple[Path, Path, subprocess.CompletedProcess]:
    source = tmp / f"{name}-src"
    shutil.copytree(PACKAGE, source)
    before = _tree_digest(source)
    build = tmp / name
    result = run_shimgen("build", "-c", source / "shimgen.toml", "-B", build, "--cuda", cuda, "-j", "2", "-v")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert _tree_digest(source) == before, "the build edited the source tree"
    return source, build, result


@pytest.fixture(scope="module")
def cuda_build(tmp_path_factory):
    if find_nvcc() is None:
        pytest.skip("no nvcc: the .cu shim needs the CUDA toolkit")
    return _build(tmp_path_factory.mktemp("et"), "cuda", "on")


@pytest.fixture(scope="module")
def cpu_build(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("et"), "cpu", "off")


def test_cuda_build_renames_the_cu_shim_and_exports_the_cpp_api(cuda_build):
    _, build, result = cuda_build
    exports = _exports(build / "libaoti_cuda_shims.so")
    assert "executorch_aoti_torch_cuda_sort_stable" in exports  # compiled by nvcc, force-included
    assert not {n for n in exports if PLAIN_SHIM.match(n)}
    assert "_ZN10executorch8backends4cuda13CudaAllocator8instanceEv" in exports  # exports = ["…::*"]
    output = result.stdout + result.stderr
    assert "(CUDA on" in output and "clean: 3 binaries checked, prefix 'executorch_' (strict)" in output
    assert "redefined" not in output  # export.h leaves AOTI_SHIM_EXPORT to the project's export.h
    ran = subprocess.run([build / "test_allocator"], capture_output=True, text=True, check=False)
    assert ran.returncode == 0 and "test_allocator: ok" in ran.stdout


def test_cpu_build_of_the_same_config_and_required_per_build(cpu_build):
    _, build, result = cpu_build
    exports = _exports(build / "libaoti_cuda_shims.so")
    assert "executorch_aoti_torch_empty_strided" in exports
    assert "executorch_aoti_torch_cuda_sort_stable" not in exports
    assert "(CUDA off" in result.stdout + result.stderr
    manifest = build / "shimgen" / "shimgen_prefix" / "manifest.json"
    # What the CUDA build's shimgen_check_symbols(... REQUIRED "aoti_torch_*") asks, on the CPU
    # build: the .cu shim is missing. The config's own `required` is what every build holds.
    cuda_rules = run_shimgen("check-symbols", build / "libaoti_cuda_shims.so", "--manifest", manifest,
                             "--required", "aoti_torch_*")
    assert cuda_rules.returncode == 1 and "SG002 executorch_aoti_torch_cuda_sort_stable" in cuda_rules.stdout
    assert run_shimgen("check-symbols", build / "libaoti_cuda_shims.so", "--manifest", manifest).returncode == 0


def test_a_dependent_calling_hidden_api_is_sg011(cpu_build, tmp_path):
    """Link the same objects with the export list minus the C++ block: the backend, linked against
    the real library, now imports what the library hides."""
    _, build, _ = cpu_build
    script = (build / "shimgen" / "shimgen_prefix" / "shimgen.map").read_text()
    assert 'extern "C++"' in script
    hidden_script = tmp_path / "no_cpp.map"
    hidden_script.write_text(re.sub(r'extern "C\+\+" \{.*?\};\n', "", script, flags=re.S))
    objects = sorted(str(p) for p in (build / "CMakeFiles" / "aoti_cuda_shims.dir").rglob("*.o"))
    hiding = tmp_path / "libaoti_cuda_shims.so"
    subprocess.run(["c++", "-shared", "-o", hiding, *objects, f"-Wl,--version-script={hidden_script}"], check=True)
    manifest = build / "shimgen" / "shimgen_prefix" / "manifest.json"
    backend = build / "libcuda_backend.so"
    report = run_shimgen("check-symbols", hiding, backend, "--manifest", manifest, "--strict")
    assert report.returncode == 1
    assert "SG011 _ZN10executorch8backends4cuda13CudaAllocator8instanceEv" in report.stdout
    assert "hidden in " + str(hiding) in report.stdout
    real = run_shimgen("check-symbols", build / "libaoti_cuda_shims.so", backend, "--manifest", manifest, "--strict")
    assert real.returncode == 0, real.stdout


def test_the_project_export_macro_is_not_redefined(cpu_build, tmp_path):
    """Compile a shim source the way the build does; then with a header that defines the macro
    itself (export_macro_owner = "shimgen"): GCC warns that the project's export.h redefines it."""
    source, build, _ = cpu_build
    header = build / "shimgen" / "shimgen_prefix" / "shimgen_export.h"

    def warnings(forced: Path) -> str:
        done = subprocess.run(["c++", "-std=c++17", "-fsyntax-only", "-include", forced,
                               "-DAOTI_SHIM_SYMBOL_PREFIX=executorch_", "-I", source,
                               source / "backends" / "aoti" / "common_shims.cpp"],
                              capture_output=True, text=True, check=True)
        return done.stderr

    assert "redefined" not in warnings(header)
    shutil.copytree(source / "backends", tmp_path / "backends")
    config = tmp_path / "shimgen.toml"
    config.write_text('export_macro_owner = "shimgen"\n' + (source / "shimgen.toml").read_text())
    generated = tmp_path / "owned"
    assert run_shimgen("generate", "-c", config, "-o", generated).returncode == 0
    assert '"AOTI_SHIM_EXPORT" redefined' in warnings(generated / "shimgen_export.h")


def test_generate_warns_about_the_default_header_name(cpu_build, tmp_path):
    source, _, _ = cpu_build
    config = tmp_path / "shimgen.toml"
    shutil.copytree(source / "backends", tmp_path / "backends")
    config.write_text((source / "shimgen.toml").read_text().replace('header = "shimgen_export.h"', ""))
    result = run_shimgen("generate", "-c", config)
    assert result.returncode == 0
    assert "outputs.header 'export.h' has the file name of the scanned project header backends/aoti/export.h" \
        in result.stderr


def test_python_module_names_every_shim(cpu_build):
    import importlib.util
    import json

    _, build, _ = cpu_build
    generated = build / "shimgen" / "shimgen_prefix"
    spec = importlib.util.spec_from_file_location("et_shape_names", generated / "shimgen_names.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    manifest = json.loads((generated / "manifest.json").read_text())
    assert {s["name"]: s["prefixed"] for s in manifest["shims"]} == module.NAMES
    assert module.DECLARATIONS["aoti_torch_cuda_sort_stable"] == (
        "AOTITorchError executorch_aoti_torch_cuda_sort_stable(Tensor*, int64_t, Tensor**)")
