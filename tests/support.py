"""Helpers shared by test modules (import as `from tests.support import ...`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def run_shimgen(*argv, cwd: Path | None = None, env_extra: dict[str, str] | None = None,
                **kwargs) -> subprocess.CompletedProcess:
    """Run shimgen in a fresh interpreter (for crash/traceback checks); ``env_extra`` adds variables."""
    return subprocess.run(
        [sys.executable, "-m", "shimgen", *map(str, argv)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env_extra or {})},
        **kwargs,
    )


def nested_venv(directory: Path) -> Path:
    """A fresh venv that sees the packages of the interpreter running the tests, so a wheel can be
    installed into it offline (--no-deps --no-build-isolation). `--system-site-packages` alone sees
    the *base* interpreter's site-packages, not those of a venv pytest itself runs in (the README's
    test command in a fresh venv): a .pth file adds the running environment's directories after the
    nested venv's own, so what is installed into the nested venv still comes first."""
    import site
    import sysconfig
    import venv

    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(directory)
    python = directory / "bin" / "python"
    nested = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    running = dict.fromkeys([*site.getsitepackages(), sysconfig.get_paths()["purelib"],
                             sysconfig.get_paths()["platlib"]])
    (Path(nested) / "_shimgen_tests_outer_env.pth").write_text(
        "".join(f"{entry}\n" for entry in running if Path(entry).is_dir() and Path(entry) != Path(nested)))
    return directory


# Exports the runtime's identifying C API (shimgen.binary.runtime_library): reads as a runtime, is
# never loaded.
STAND_IN_RUNTIME = """
const char *shimgen_runtime_last_error(void) { return 0; }
int shimgen_model_open(const char *p, const char *n, const char *d, unsigned long c, void **out) {
    static char buffer[64]; buffer[0] = p[0]; *out = buffer; return 0; }
"""


def compile_library(directory: Path, name: str, source: str, *flags: str) -> Path:
    """lib<name>.so compiled by gcc from C ``source`` (skips without gcc)."""
    gcc = require_tool("gcc")
    (directory / f"{name}.c").write_text(source)
    library = directory / f"lib{name}.so"
    subprocess.run([gcc, "-shared", "-fPIC", "-O1", *flags, str(directory / f"{name}.c"), "-o", str(library)],
                   check=True, capture_output=True)
    return library


def cpu_flags() -> set[str]:
    """This CPU's feature flags from /proc/cpuinfo (empty where there is none: not Linux)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    line = next((line for line in text.splitlines() if line.startswith("flags")), "")
    return set(line.split(":", 1)[-1].split())


def require_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    return path


def write_loader_inputs(directory: Path, not_a_model: Path) -> Path:
    """The files shimgen/runtime/tests/leak_tests.cpp `loader_errors` feeds to shimgen_model_open: each one a
    different way a file is not a loadable model (missing.pt2 deliberately absent)."""
    import zipfile

    directory.mkdir(parents=True, exist_ok=True)
    (directory / "empty.pt2").write_bytes(b"")
    (directory / "text.pt2").write_text("not an archive, not an ELF file\n")
    member = "model/data/aotinductor/model/abc.wrapper.so"
    with zipfile.ZipFile(directory / "nomodel.pt2", "w", zipfile.ZIP_STORED) as z:
        z.writestr("model/data/constants/x.txt", "no shared object here")
    with zipfile.ZipFile(directory / "deflated.pt2", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(member, not_a_model.read_bytes())
    with zipfile.ZipFile(directory / "twomodels.pt2", "w", zipfile.ZIP_STORED) as z:
        z.writestr("model/data/aotinductor/a/a.wrapper.so", b"\x7fELF")
        z.writestr("model/data/aotinductor/b/b.wrapper.so", b"\x7fELF")
    with zipfile.ZipFile(directory / "notmodel.pt2", "w", zipfile.ZIP_STORED) as z:
        z.writestr(member, not_a_model.read_bytes())
    whole = (directory / "notmodel.pt2").read_bytes()
    (directory / "corrupt.pt2").write_bytes(whole[: len(whole) - 30])  # cut inside the central directory
    (directory / "broken.so").write_bytes(b"\x7fELF" + bytes(60))     # extracted, then dlopen fails
    shutil.copy(not_a_model, directory / "notmodel.so")                # loads, has no container API
    return directory


def load_script(name: str):
    """A script of scripts/ imported as a module (its ``main`` not run), for tests of generators."""
    import importlib.util

    path = REPO / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def c_project(root: Path, config: str, sources: dict[str, str], extra_cmake: str = "") -> Path:
    """A user's C library beside its shimgen.toml (no bundled runtime): ``sources`` (file name: text)
    built into one shared library through the generated shimgen.cmake, prefixed; ``extra_cmake``:
    lines appended to its CMakeLists.txt. Returns the config's path."""
    from tests.e2e._native import c_compiler

    c_compiler()
    root.mkdir()
    (root / "shimgen.toml").write_text(config)
    for name, text in sources.items():
        (root / name).write_text(text)
    (root / "CMakeLists.txt").write_text(f"""cmake_minimum_required(VERSION 3.24)
project(small C)
include("${{SHIMGEN_GENERATED_DIR}}/shimgen.cmake")
add_library(small SHARED {' '.join(sources)})
set_target_properties(small PROPERTIES OUTPUT_NAME "${{SHIMGEN_RUNTIME_OUTPUT_NAME}}" C_VISIBILITY_PRESET hidden)
shimgen_apply_prefix(small)
""" + extra_cmake)
    return root / "shimgen.toml"
