"""An editable install (`pip install -e .`) works: templates/, cmake/ and runtime/ are package data
inside shimgen/ (docs/layout.md), so the installed package finds them where a wheel has them, and
the CMake package is found through `shimgen cmake-dir` and through shimgen_ROOT (the cmake.root
entry point) and builds the cmake-consumer example."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from shimgen import __version__
from tests.e2e._native import EXAMPLE, build, c_compiler, configure, run
from tests.integration.test_cmake_package_wheel import clean_env, source_tree
from tests.support import nested_venv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def editable(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(venv, source tree): a copy of this checkout installed editable into a fresh venv (the copy,
    so the install writes nothing into the checkout)."""
    if importlib.util.find_spec("scikit_build_core") is None:
        pytest.skip("scikit-build-core (shimgen's build backend) is not installed")
    root = tmp_path_factory.mktemp("editable")
    tree = source_tree(root / "src")
    env_dir = nested_venv(root / "venv")
    run([env_dir / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps",
         "--no-index", "--disable-pip-version-check", "-e", tree], env=clean_env(), cwd=root)
    return env_dir, tree


def _env(venv: Path) -> dict:
    return clean_env(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")


def test_editable_install_finds_its_data_in_the_source_tree(editable, tmp_path: Path) -> None:
    venv, tree = editable
    result = run([venv / "bin" / "python", "-c",
                  "import shimgen, shimgen.resources as r; print(shimgen.__file__); print(r.templates_dir()); "
                  "print(r.cmake_dir()); print(r.runtime_dir()); print(r.default_config())"],
                 env=_env(venv), cwd=tmp_path)
    module, templates, cmake_dir, runtime, config = (Path(line) for line in result.stdout.split())
    package = tree / "shimgen"
    assert module.resolve() == (package / "__init__.py").resolve()
    assert (templates, cmake_dir, runtime) == tuple(package.resolve() / n for n in ("templates", "cmake", "runtime"))
    assert (templates / "export.h.j2").is_file() and (runtime / "CMakeLists.txt").is_file()
    assert config == runtime / "shimgen.toml"
    out = tmp_path / "out"
    generated = run([venv / "bin" / "shimgen", "generate", "-c", config, "-o", out], env=_env(venv), cwd=tmp_path)
    assert "executorch_aoti_torch_empty_strided" in (out / "shimgen.map").read_text(), generated.stderr
    version = run([venv / "bin" / "shimgen", "--version"], env=_env(venv), cwd=tmp_path)
    assert version.stdout.strip() == f"shimgen {__version__}"


def test_editable_cmake_package_builds_the_example(editable, tmp_path: Path) -> None:
    venv, tree = editable
    c_compiler()
    cmake_dir = Path(run([venv / "bin" / "shimgen", "cmake-dir"], env=_env(venv), cwd=tmp_path).stdout.strip())
    assert cmake_dir == (tree / "shimgen" / "cmake").resolve()
    assert (cmake_dir / "shimgenConfig.cmake").is_file()
    result = configure(EXAMPLE, tmp_path / "build", f"-Dshimgen_DIR={cmake_dir}", "-DSHIMGEN_CHECK_SYMBOLS=ON",
                       f"-DPython3_EXECUTABLE={venv / 'bin' / 'python'}", env=_env(venv))
    assert f"Found shimgen {__version__}" in result.stdout, result.stdout
    build(tmp_path / "build", env=_env(venv))
    assert (tmp_path / "build" / "libacme_shims.so").is_file()
    assert not (tmp_path / "build" / "libacme_shims.so.shimgen-rejected").exists()
    # What a scikit-build-core consumer gets from the cmake.root entry point: shimgen_ROOT = the package.
    rooted = configure(EXAMPLE, tmp_path / "rooted", f"-Dshimgen_ROOT={tree / 'shimgen'}",
                       "-DSHIMGEN_CHECK_SYMBOLS=OFF", env=_env(venv))
    assert f"Found shimgen {__version__}" in rooted.stdout, rooted.stdout
