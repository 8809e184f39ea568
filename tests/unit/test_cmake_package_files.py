"""The CMake package's files, without a compiler: the version file matches shimgen.__version__,
and the `cmake -P` unit scripts in tests/unit/cmake/ pass."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import shimgen

REPO = Path(__file__).resolve().parents[2]
CMAKE_DIR = REPO / "shimgen" / "cmake"
SCRIPTS = sorted((Path(__file__).parent / "cmake").glob("*.cmake"))


def cmake() -> str:
    try:
        import cmake as cmake_package

        return str(Path(cmake_package.CMAKE_BIN_DIR) / "cmake")
    except ImportError:
        found = shutil.which("cmake")
        if found is None:
            pytest.skip("cmake is not installed")
        return found


def test_version_file_is_made_by_cmake_from_the_package_version() -> None:
    # The checkout's version file and the wheel's (root CMakeLists.txt) both come from CMake's
    # write_basic_package_version_file(), fed shimgen/__init__.py's version; none is hand-written.
    helper = (CMAKE_DIR / "shimgenVersionFile.cmake").read_text()
    assert "write_basic_package_version_file(" in helper
    for path in (CMAKE_DIR / "shimgenConfigVersion.cmake", REPO / "CMakeLists.txt"):
        text = path.read_text()
        assert "_shimgen_write_version_file(" in text and "PACKAGE_VERSION_COMPATIBLE TRUE" not in text, path
    assert f'__version__ = "{shimgen.__version__}"' in (REPO / "shimgen" / "__init__.py").read_text()


def test_cmake_dir_command_prints_the_package_directory() -> None:
    result = subprocess.run([sys.executable, "-m", "shimgen", "cmake-dir"], capture_output=True, text=True,
                            cwd=REPO, check=True)
    directory = Path(result.stdout.strip())
    assert directory == CMAKE_DIR
    assert (directory / "shimgenConfig.cmake").is_file()
    assert (directory / "shimgenConfigVersion.cmake").is_file()


def test_config_documents_every_public_function() -> None:
    doc = (CMAKE_DIR / "shimgenConfig.cmake").read_text().split("\n\n")[0]
    defined = set()
    for path in CMAKE_DIR.glob("*.cmake"):
        defined |= set(re.findall(r"^function\((shimgen_\w+)", path.read_text(), re.MULTILINE))
    assert defined == {"shimgen_generate", "shimgen_link_whole", "shimgen_export_only", "shimgen_check_symbols",
                       "shimgen_prefix_library"}
    for name in defined:
        assert f"#   {name}(" in doc, f"{name} is missing from the doc block of shimgenConfig.cmake"


def _documented_variables() -> set[str]:
    doc = (CMAKE_DIR / "shimgenConfig.cmake").read_text().split("\n\n")[0]
    section = doc[doc.index("#   shimgen_generate("):doc.index("#   shimgen_link_whole(")]
    return set(re.findall(r"\bSHIMGEN_[A-Z_]+\b", section.split("and no other")[1]))


def _listed_variables() -> set[str]:
    text = (CMAKE_DIR / "shimgenGenerate.cmake").read_text()
    body = re.search(r"function\(_shimgen_generate_variables out\)\n  set\(\$\{out\}(.*?)PARENT_SCOPE\)", text, re.DOTALL)
    assert body, "shimgenGenerate.cmake defines no _shimgen_generate_variables()"
    return set(body.group(1).split())


def _fragment_variables(tmp_path: Path) -> set[str]:
    """What the generated fragment sets, with every output switched on."""
    from shimgen.generate.render import render
    from shimgen.project.config import load_config
    from shimgen.project.shims import resolve_shims

    (tmp_path / "shimgen.toml").write_text('prefix = "p_"\nsymbols = ["aoti_torch_x"]\n[outputs]\nasm_header = "prefix_asm.h"\n')
    config = load_config(tmp_path / "shimgen.toml")
    fragment = render(config, resolve_shims(config))[config.outputs.dir / "shimgen.cmake"].decode()
    return set(re.findall(r"^\s*set\((SHIMGEN_[A-Z_]+)\b", fragment, re.MULTILINE))


def test_the_variables_handed_to_the_caller_are_the_documented_ones(tmp_path: Path) -> None:
    documented, listed, fragment = _documented_variables(), _listed_variables(), _fragment_variables(tmp_path)
    assert "SHIMGEN_PREFIX" in documented and "SHIMGEN_PREFIX_TARGET" in documented
    assert listed == documented, "shimgenGenerate.cmake and the doc block of shimgenConfig.cmake differ"
    assert fragment == documented, "shimgen/templates/shimgen.cmake.j2 sets other variables than the documented ones"


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_cmake_script(script: Path, tmp_path: Path) -> None:
    result = subprocess.run([cmake(), f"-DCMAKE_DIR={CMAKE_DIR}", f"-DWORK={tmp_path}",
                             f"-DVERSION_UNDER_TEST={shimgen.__version__}", "-P", str(script)],
                            capture_output=True, text=True, cwd=tmp_path, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
