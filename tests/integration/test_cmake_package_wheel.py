"""The CMake package as users get it: shimgen installed from this source tree (not editable) into
a fresh virtual environment, then the cmake-consumer example configured and built from an empty
directory with the pip cmake and ninja, found through `shimgen cmake-dir`, through the cmake.root
entry point's shimgen_ROOT, and by a scikit-build-core project with no flags at all."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from shimgen import __version__
from tests.e2e._native import EXAMPLE, REPO, build, c_compiler, configure, pip_cmake, pip_ninja, run
from tests.support import nested_venv


def _not_source(directory: str, names: list[str]) -> set[str]:
    """What a copy of a checkout without git leaves out: build outputs at the top (build/,
    build-*/), never the package's own shimgen/builder/ or shimgen/commands/build.py, which a
    "build*" pattern anywhere dropped (the wheel then failed with No module named
    'shimgen.commands.build')."""
    top = Path(directory).resolve() == REPO.resolve()
    return {n for n in names if n in (".git", "__pycache__", ".pytest_cache") or (top and n.startswith("build"))}


def source_tree(destination: Path) -> Path:
    """This checkout's files as git sees them (no build outputs), so the wheel build cannot pick
    up stale artefacts. README.md is the project's readme; a stub stands in if it is missing."""
    destination.mkdir()
    git = shutil.which("git")
    listed = subprocess.run([git, "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, capture_output=True)\
        if git else None
    if listed is not None and listed.returncode == 0:
        for name in filter(None, listed.stdout.decode().split("\0")):
            source = REPO / name
            if source.is_file():
                target = destination / name
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
    else:
        shutil.copytree(REPO, destination, dirs_exist_ok=True, ignore=_not_source)
    readme = destination / "README.md"
    if not readme.exists():
        readme.write_text("# shimgen\n")
    return destination


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with shimgen installed from a wheel built from this tree. It reuses the already
    installed dependencies (tests.support.nested_venv) and builds offline (--no-build-isolation)."""
    if importlib.util.find_spec("scikit_build_core") is None:
        pytest.skip("scikit-build-core (shimgen's build backend) is not installed")
    root = tmp_path_factory.mktemp("wheel")
    tree = source_tree(root / "src")
    env_dir = nested_venv(root / "venv")
    python = env_dir / "bin" / "python"
    run([python, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-deps", "--no-index",
         "--disable-pip-version-check", tree], env=clean_env())
    return env_dir


def clean_env(**extra: str) -> dict:
    """No PYTHONPATH (the checkout must not shadow the installed package) and no venv on PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def site_packages(env_dir: Path) -> Path:
    return next((env_dir / "lib").glob("python3*/site-packages"))


def test_cmake_dir_is_inside_the_installed_package(environment: Path) -> None:
    result = run([environment / "bin" / "shimgen", "cmake-dir"], env=clean_env(), cwd=environment)
    cmake_dir = Path(result.stdout.strip())
    assert cmake_dir == site_packages(environment) / "shimgen" / "cmake"
    assert (cmake_dir / "shimgenConfig.cmake").is_file() and (cmake_dir / "shimgenConfigVersion.cmake").is_file()
    # The wheel's version file is the one CMake's write_basic_package_version_file() wrote when the
    # wheel was built, not the checkout's edition that writes it on first use.
    version_file = (cmake_dir / "shimgenConfigVersion.cmake").read_text()
    assert version_file.startswith("# This is a basic version file for the Config-mode of find_package().")
    assert f'set(PACKAGE_VERSION "{__version__}")' in version_file and "_shimgen_write_version_file" not in version_file
    module = run([environment / "bin" / "python", "-m", "shimgen", "cmake-dir"], env=clean_env(), cwd=environment)
    assert module.stdout.strip() == str(cmake_dir)


def test_example_builds_from_an_empty_directory(environment: Path, tmp_path: Path) -> None:
    c_compiler()
    cmake_dir = run([environment / "bin" / "shimgen", "cmake-dir"], env=clean_env()).stdout.strip()
    has_check = subprocess.run([environment / "bin" / "shimgen", "check-symbols", "--help"],
                               capture_output=True, env=clean_env()).returncode == 0
    build_dir = tmp_path / "build"
    # The venv is not on PATH: the package must find its own shimgen script.
    result = configure(EXAMPLE, build_dir, f"-Dshimgen_DIR={cmake_dir}",
                       f"-DSHIMGEN_CHECK_SYMBOLS={'ON' if has_check else 'OFF'}", env=clean_env())
    assert f"Found shimgen {__version__}: {environment / 'bin' / 'shimgen'}" in result.stdout
    build(build_dir, env=clean_env())
    assert (build_dir / "libacme_shims.so").is_file() and (build_dir / "libacme_model.so").is_file()
    assert not (build_dir / "libacme_shims.so.shimgen-rejected").exists()


def test_found_through_shimgen_root(environment: Path, tmp_path: Path) -> None:
    # What scikit-build-core does with the cmake.root entry point: shimgen_ROOT = the package dir,
    # where find_package() looks in <root>/cmake/.
    c_compiler()
    result = configure(EXAMPLE, tmp_path / "build", f"-Dshimgen_ROOT={site_packages(environment) / 'shimgen'}",
                       "-DSHIMGEN_CHECK_SYMBOLS=OFF", env=clean_env())
    assert f"Found shimgen {__version__}" in result.stdout



def test_installed_version_file_answers_version_requests(environment: Path, tmp_path: Path) -> None:
    project = tmp_path / "versions"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.24)\nproject(v NONE)\n"
        f"find_package(shimgen {_major_minor()} CONFIG REQUIRED)\nmessage(STATUS \"RESULT ${{shimgen_VERSION}}\")\n"
        f"find_package(shimgen {_major_minor(1)} CONFIG QUIET)\nmessage(STATUS \"NEWER ${{shimgen_FOUND}}\")\n")
    result = configure(project, tmp_path / "build", f"-Dshimgen_ROOT={site_packages(environment) / 'shimgen'}",
                       env=clean_env())
    assert f"RESULT {__version__}" in result.stdout and "NEWER 0" in result.stdout


SKBUILD_PYPROJECT = """
[build-system]
requires = ["scikit-build-core", "shimgen"]
build-backend = "scikit_build_core.build"

[project]
name = "skdemo"
version = "0.0.1"

[tool.scikit-build]
wheel.packages = []
"""

SKBUILD_CMAKELISTS = """
cmake_minimum_required(VERSION 3.24)
project(skdemo LANGUAGES NONE)
find_package(shimgen CONFIG REQUIRED)
shimgen_generate(CONFIG "${CMAKE_CURRENT_SOURCE_DIR}/shimgen.toml")
install(FILES "${SHIMGEN_HEADER}" "${SHIMGEN_VERSION_SCRIPT}" DESTINATION skdemo)
"""


def test_scikit_build_core_project_finds_it_with_no_flags(environment: Path, tmp_path: Path) -> None:
    project = tmp_path / "skdemo"
    project.mkdir()
    (project / "pyproject.toml").write_text(SKBUILD_PYPROJECT)
    (project / "CMakeLists.txt").write_text(SKBUILD_CMAKELISTS)
    (project / "shimgen.toml").write_text('prefix = "skdemo_"\nsymbols = ["aoti_torch_dtype_float32"]\n')
    wheels = tmp_path / "wheels"
    env = clean_env(PATH=os.pathsep.join([str(Path(pip_cmake()).parent), str(Path(pip_ninja()).parent),
                                          os.environ.get("PATH", "")]))
    run([environment / "bin" / "python", "-m", "pip", "wheel", "--quiet", "--no-build-isolation", "--no-deps",
         "--no-index", "--disable-pip-version-check", "-w", wheels, project], env=env)
    wheel = next(wheels.glob("skdemo-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        header = next(n for n in names if n.endswith("skdemo/export.h"))
        version_script = archive.read(next(n for n in names if n.endswith("skdemo/shimgen.map"))).decode()
    assert "skdemo_aoti_torch_dtype_float32;" in version_script
    assert header


def _major_minor(later: int = 0) -> str:
    """MAJOR.MINOR of shimgen's version, the minor ``later`` releases on (a request it does not meet)."""
    major, minor = __version__.split(".")[:2]
    return f"{major}.{int(minor) + later}"
