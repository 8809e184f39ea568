"""One version source: `__version__` in shimgen/__init__.py. The wheel's metadata (pyproject.toml's
dynamic version, scikit-build-core's regex provider), the CMake package version file
(tests/unit/cmake/version_file.cmake), banners, reports and `--version` are read from it; this test
fails when any place writes down another."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import shimgen
from tests.support import REPO

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_pyproject_reads_the_version_from_the_package():
    project = _pyproject()["project"]
    assert "version" not in project, "pyproject.toml writes a version; it must be dynamic (shimgen/__init__.py)"
    assert "version" in project.get("dynamic", [])
    settings = _pyproject()["tool"]["scikit-build"]["metadata"]["version"]
    assert settings == {"provider": "scikit_build_core.metadata.regex", "input": "shimgen/__init__.py"}


def test_the_regex_provider_reads_what_python_imports():
    """What scikit-build-core puts into the wheel's METADATA is what `import shimgen` says."""
    regex = pytest.importorskip("scikit_build_core.metadata.regex")
    settings = dict(_pyproject()["tool"]["scikit-build"]["metadata"]["version"])
    settings.pop("provider")
    settings["input"] = str(REPO / settings["input"])
    assert regex.dynamic_metadata("version", settings) == shimgen.__version__


def test_the_cmake_reader_reads_what_python_imports(tmp_path):
    """shimgen/cmake/shimgenVersionFile.cmake's reader (the version file of a checkout, and the wheel's one
    written by the root CMakeLists.txt) gives the same version."""
    from shimgen.builder.cmake import find_tools
    from shimgen.resources import cmake_dir

    script = tmp_path / "read.cmake"
    script.write_text(f'include("{cmake_dir() / "shimgenVersionFile.cmake"}")\n'
                      f'_shimgen_source_version(v "{REPO / "shimgen" / "__init__.py"}")\n'
                      'message(STATUS "VERSION=${v}")\n')
    result = subprocess.run([str(find_tools().cmake), "-P", str(script)], capture_output=True, text=True, check=True)
    assert f"VERSION={shimgen.__version__}" in result.stdout + result.stderr


def test_version_is_assigned_once():
    """The single line both readers match: `__version__ = "..."`, once, in shimgen/__init__.py only."""
    lines = [line for line in (REPO / "shimgen" / "__init__.py").read_text().splitlines()
             if line.startswith("__version__")]
    assert lines == [f'__version__ = "{shimgen.__version__}"']
    others = [str(p.relative_to(REPO)) for p in (REPO / "shimgen").rglob("*.py")
              if p.name != "__init__.py" or p.parent != REPO / "shimgen"
              if re.search(r"^__version__\s*=", p.read_text(encoding="utf-8"), re.MULTILINE)]
    assert others == []


def _texts():
    for pattern in ("README.md", "docs/**/*.md", "examples/**/*.txt", "examples/**/*.cmake", "examples/**/*.toml",
                    "examples/**/*.md"):
        for path in sorted(REPO.glob(pattern)):
            yield path, path.read_text(encoding="utf-8")


def test_docs_and_examples_name_this_version():
    """Docs may quote shimgen's version (a report's `generator`) and examples request it
    (`find_package(shimgen 0.1 ...)`): the one and the major.minor of the other must be this one."""
    major_minor = ".".join(shimgen.__version__.split(".")[:2])
    wrong = []
    for path, text in _texts():
        for quoted in re.findall(r"\bshimgen (\d+\.\d+\.\d+)\b", text):
            if quoted != shimgen.__version__:
                wrong.append(f"{path.relative_to(REPO)}: shimgen {quoted}")
        for requested in re.findall(r"find_package\(shimgen (\d+\.\d+)", text):
            if requested != major_minor:
                wrong.append(f"{path.relative_to(REPO)}: find_package(shimgen {requested}")
    assert wrong == [], f"these name another version than shimgen/__init__.py's {shimgen.__version__}"


def test_cli_version():
    result = subprocess.run([sys.executable, "-m", "shimgen", "--version"], capture_output=True, text=True,
                            cwd=REPO, check=True)
    assert result.stdout.strip() == f"shimgen {shimgen.__version__}"
