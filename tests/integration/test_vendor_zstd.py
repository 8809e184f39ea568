"""Proof on a C library nobody here wrote: zstd, from the sources the `zstandard` sdist on PyPI
bundles (zstd/zstd.c, the upstream single-file build), prefixed in one command with no source edit
(examples/vendor-zstd: `shimgen build`, which reads the rename set from zstd's own unprefixed
objects), checked with `check-symbols --strict`, loaded into one process beside unprefixed copies of
the same library, and used by python-zstandard's own C extension, whose own test suite (the sdist's
tests/) runs on it.

The command the test runs is the one README.md's section "Prefixing a vendored C library" shows, and
the config is examples/vendor-zstd/shimgen.toml, which the README quotes verbatim.

The sdist is fetched once with `pip download` into pytest's cache directory (.pytest_cache), so a
second session needs no network; without network and without a cached copy the tests skip and
say why. Its sources are never committed.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.e2e._native import (
    CMAKE_DIR,
    REPO,
    build,
    c_compiler,
    configure,
    python_env,
    run,
)

pytestmark = pytest.mark.slow

SDIST = "zstandard==0.25.0"
SDIST_DIR = "zstandard-0.25.0"
EXAMPLE = REPO / "examples" / "vendor-zstd"
CONFIG = EXAMPLE / "shimgen.toml"
PREFIX = "vnd_"
SYSTEM_ZSTD = Path("/usr/lib/x86_64-linux-gnu/libzstd.so.1")
# What the test takes from the sdist: the library, python-zstandard's C extension, its Python
# package and its test suite.
SDIST_PARTS = ("zstd/zstd.c", "c-ext/backend_c.c", "zstandard/__init__.py", "tests/test_compressor.py")
# python-zstandard's test_features expects the pool-based features, which setup_zstd.py compiles in
# only when zstd is built into the extension itself (ZSTD_SINGLE_FILE), never against a separate
# libzstd; the unprefixed control build fails it the same way (asserted below).
EXPECTED_UPSTREAM_FAILURES = {"tests/test_module_attributes.py::TestModuleAttributes::test_features"}


@pytest.fixture(scope="session")
def sdist(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The zstandard sdist, downloaded once per cache directory and the parts used extracted."""
    store = getattr(pytestconfig, "cache", None)  # None under -p no:cacheprovider: download per session
    cache = Path(store.mkdir("shimgen-vendor-zstd")) if store is not None else tmp_path_factory.mktemp("zstd")
    extracted = cache / SDIST_DIR
    if all((extracted / part).is_file() for part in SDIST_PARTS):
        return extracted
    archives = sorted(cache.glob("zstandard-*.tar.gz"))
    if not archives:
        result = subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                                 "--disable-pip-version-check", "-d", str(cache), SDIST],
                                capture_output=True, text=True, timeout=300, check=False)
        archives = sorted(cache.glob("zstandard-*.tar.gz"))
        if result.returncode != 0 or not archives:
            pytest.skip(f"cannot download the {SDIST} sdist (offline?): {result.stderr.strip()[-300:]}")
    wanted = tuple(f"{SDIST_DIR}/{part.split('/')[0]}/" for part in SDIST_PARTS)
    with tarfile.open(archives[-1]) as archive:
        members = [m for m in archive.getmembers() if m.name.startswith(wanted)]
        archive.extractall(cache, members=members, filter="data")
    header = (extracted / "zstd" / "zstd.c").read_text(errors="replace")[:2000]
    assert "BSD-style license" in header, "the bundled zstd.c is not the upstream BSD/GPLv2 single-file zstd"
    return extracted


# The README's command ------------------------------------------------------------------------


def readme_section() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index("## Prefixing a vendored C library")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def readme_build_command() -> list[str]:
    """The `shimgen build` line of the README section, split as a shell would (without expansion)."""
    lines = [line for line in readme_section().splitlines()
             if line.startswith("shimgen build ") and "examples/vendor-zstd/" in line]
    assert len(lines) == 1, lines
    return shlex.split(lines[0])


def test_readme_shows_the_example_config_verbatim() -> None:
    assert CONFIG.read_text(encoding="utf-8") in readme_section()
    # ... and the CMake call the example makes.
    assert "shimgen_prefix_library(zstd_vendored" in readme_section()
    assert "shimgen_prefix_library(zstd_vendored" in (EXAMPLE / "CMakeLists.txt").read_text()


@dataclass(frozen=True)
class OnePass:
    build_dir: Path
    first: subprocess.CompletedProcess
    second: subprocess.CompletedProcess
    compiles_first: list[str]
    """Every compiler invocation of the first run (a CMAKE_C_COMPILER_LAUNCHER logs them)."""
    compiles_second: list[str]
    mtimes_first: dict[str, int]
    """mtime of every file under the build directory after the first run, but CMake's and Ninja's logs."""
    mtimes_second: dict[str, int]


def _mtimes(root: Path) -> dict[str, int]:
    # Ninja's own logs, and shimgen build's lock file (taken and released by every run).
    skip = {".ninja_log", ".ninja_deps", ".shimgen-build.lock"}
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*")
            if p.is_file() and p.name not in skip}


@pytest.fixture(scope="session")
def one_pass(sdist: Path, tmp_path_factory: pytest.TempPathFactory) -> OnePass:
    """The README's command, run twice: it builds the prefixed zstd (and the C extension) in one go."""
    c_compiler()
    root = tmp_path_factory.mktemp("one-pass")
    build_dir = root / "build"
    log = root / "compile.log"
    launcher = root / "count-cc"
    launcher.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "$@"\n')
    launcher.chmod(0o755)
    argv = readme_build_command()
    assert argv[:2] == ["shimgen", "build"]
    substituted = [arg.replace("$SDIST", str(sdist)).replace("build/zstd", str(build_dir)) for arg in argv[2:]]
    command = [sys.executable, "-m", "shimgen", "build", *substituted,
               # Test-only additions: output names the coexistence tests tell apart, -O1 (CI has two
               # cores), no CUDA probing, and the compiler-invocation counter.
               "-D", "ZSTD_OUTPUT_NAME=zstd_vnd", "-D", "CMAKE_C_FLAGS_RELEASE=-O1", "--cuda", "off", "-j", "2",
               "-D", f"CMAKE_C_COMPILER_LAUNCHER={launcher}"]
    # The README's paths are relative to the checkout. One stream, as a terminal shows it: shimgen's
    # progress (stderr, through its logger) in order with CMake's and Ninja's output (stdout).
    def run_merged() -> subprocess.CompletedProcess:
        return subprocess.run([str(c) for c in command], cwd=REPO, env=python_env(), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=1200)

    first = run_merged()
    assert first.returncode == 0, first.stdout[-8000:]
    compiles_first = log.read_text().splitlines()
    mtimes_first = _mtimes(build_dir)
    second = run_merged()
    assert second.returncode == 0, second.stdout[-8000:]
    compiles_second = log.read_text().splitlines()[len(compiles_first):]
    return OnePass(build_dir, first, second, compiles_first, compiles_second, mtimes_first, _mtimes(build_dir))


def test_one_command_builds_unprefixed_reads_generates_rebuilds_and_checks(one_pass: OnePass) -> None:
    out = one_pass.first.stdout
    # zstd.c compiled once, unprefixed (the objects the names are read from); the library links
    # those objects renamed by objcopy, and its consumers compile with the generated header.
    zstd_compiles = [line for line in one_pass.compiles_first if line.endswith("/zstd/zstd.c")]
    assert len(zstd_compiles) == 1, one_pass.compiles_first
    (unprefixed,) = zstd_compiles
    assert "zstd_vendored_shimgen_unprefixed.dir" in unprefixed and "-include" not in unprefixed
    (probe,) = [line for line in one_pass.compiles_first if line.endswith("probe/probe.c")]
    assert "-include" in probe and "export.h" in probe and f"-DVND_ZSTD_PREFIX={PREFIX}" in probe
    # The order in one build: unprefixed objects, then the generator and objcopy on them, then the link.
    steps = [line for line in out.splitlines() if re.match(r"\[\d+/\d+\] ", line)]
    order = [next(i for i, s in enumerate(steps) if marker in s) for marker in
             ("zstd_vendored_shimgen_unprefixed.dir", "shimgen: reading the unprefixed objects",
              "Linking C shared library libzstd_vnd.so")]
    assert order == sorted(order), steps
    # Then shimgen build checks the library (strict: every name it defines was renamed).
    assert out.index("[4/4] check-symbols --strict") > out.index("Linking C shared library libzstd_vnd.so")
    assert "check-symbols: passed" in out and "clean: 1 binary checked, prefix 'vnd_' (strict)" in out


def test_second_run_does_no_work(one_pass: OnePass) -> None:
    out = one_pass.second.stdout
    assert one_pass.compiles_second == []
    assert "[2/4] configure: up to date" in out and "ninja: no work to do." in out
    assert "generated:" not in out  # no generated file rewritten
    changed = {name for name, mtime in one_pass.mtimes_second.items() if one_pass.mtimes_first.get(name) != mtime}
    assert changed == set() and one_pass.mtimes_first.keys() == one_pass.mtimes_second.keys()
    assert "check-symbols: passed" in out  # the check still runs (it reads, it builds nothing)


def manifest(one_pass: OnePass) -> dict:
    return json.loads((one_pass.build_dir / "shimgen" / "zstd_vendored" / "manifest.json").read_text())


# Unprefixed copies, and what the prefixed one is compared with -----------------------------------


@dataclass(frozen=True)
class Builds:
    plain: Path
    """Build dir of an unprefixed copy (libzstd_plain.so, its probe, the C extension on it)."""
    plain2: Path
    """A second unprefixed copy (libzstd_plain2.so): the negative control."""
    prefixed: Path
    """The one-pass build (libzstd_vnd.so + its probe and the C extension, force-included)."""
    manifest: Path

    def lib(self, name: str) -> Path:
        return {"plain": self.plain, "plain2": self.plain2, "vnd": self.prefixed}[name] / f"libzstd_{name}.so"

    def probe(self, name: str) -> Path:
        return self.lib(name).with_name(f"libzstd_{name}_probe.so")


def build_copy(sdist: Path, build_dir: Path, name: str, *extra: str) -> Path:
    configure(EXAMPLE, build_dir, f"-DZSTD_SOURCE_DIR={sdist / 'zstd'}", f"-DZSTD_OUTPUT_NAME=zstd_{name}",
              "-DCMAKE_BUILD_TYPE=", "-DCMAKE_C_FLAGS=-O1", "-DSHIMGEN_PREFIXED=OFF", *extra, env=python_env())
    build(build_dir, env=python_env())
    return build_dir


def defined_globals(library: Path) -> list[str]:
    """What a shared library exports, read by shimgen's own reader."""
    from shimgen.binary.load import load_paths

    return sorted(set().union(*(binary.exports for binary in load_paths([library]))))


@pytest.fixture(scope="session")
def builds(sdist: Path, one_pass: OnePass, tmp_path_factory: pytest.TempPathFactory) -> Builds:
    root = tmp_path_factory.mktemp("vendor-zstd")
    plain = build_copy(sdist, root / "plain", "plain", f"-DZSTANDARD_CEXT_DIR={sdist / 'c-ext'}")
    plain2 = build_copy(sdist, root / "plain2", "plain2")
    return Builds(plain, plain2, one_pass.build_dir, one_pass.build_dir / "shimgen" / "zstd_vendored" / "manifest.json")


def coexist(builds: Builds, *libraries: Path) -> dict[str, str]:
    """Load ``libraries`` in order into one process; map each probe's name to its provider."""
    result = run([builds.plain / "coexist", *libraries])
    providers = {}
    for line in result.stdout.splitlines():
        probe, rest = line.split(" -> ", 1)
        provider, version, roundtrip = rest.split(" ")
        assert roundtrip == "roundtrip=0", line
        assert version.startswith("version=") and int(version[8:]) >= 10500, line
        providers[Path(probe).name] = Path(provider).name
    return providers


def test_rename_set_is_what_the_objects_define(builds: Builds, one_pass: OnePass) -> None:
    data = manifest(one_pass)
    names = {shim["name"] for shim in data["shims"]}
    # Every name the unprefixed library exports is in the set read from the objects (which also
    # hold the hidden globals), internal HUF_/FSE_/POOL_ names too: they collide just the same.
    exported_plain = set(defined_globals(builds.lib("plain")))
    assert exported_plain <= names and "HUF_decompress4X_hufOnly_wksp" in names
    assert sum(not n.startswith(("ZSTD_", "ZDICT_")) for n in names) > 50
    # Provenance: each name came from the unprefixed object of this build, named relative to it.
    files = {shim["defined_in"]["file"] for shim in data["shims"]}
    assert len(files) == 1 and next(iter(files)).startswith("CMakeFiles/zstd_vendored_shimgen_unprefixed.dir/")
    assert next(iter(files)).endswith("zstd.c.o")
    exported = defined_globals(builds.lib("vnd"))
    assert exported and not [n for n in exported if not n.startswith(PREFIX)]
    assert {PREFIX + n for n in exported_plain} <= set(exported)
    print(f"rename set: {len(names)} names read from the objects; the unprefixed library exports "
          f"{len(exported_plain)}, the prefixed one {len(exported)}")


def test_no_source_edit(builds: Builds, sdist: Path) -> None:
    ninja = (builds.prefixed / "build.ninja").read_text()
    # The library's own file is compiled straight from the extracted sdist, with the force-include.
    assert str(sdist / "zstd" / "zstd.c") in ninja
    assert "-include" in ninja and "export.h" in ninja and f"-DVND_ZSTD_PREFIX={PREFIX}" in ninja


def test_check_symbols_strict_passes(builds: Builds) -> None:
    result = run([sys.executable, "-m", "shimgen", "check-symbols", builds.lib("vnd"),
                  "--manifest", builds.manifest, "--strict"], env=python_env(), check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    # With its consumer (whose probe_* API is foreign by design, so not --strict): every prefixed
    # import resolves in the library, and no plain zstd name is imported.
    result = run([sys.executable, "-m", "shimgen", "check-symbols", builds.lib("vnd"), builds.probe("vnd"),
                  "--manifest", builds.manifest], env=python_env(), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_symbols_catches_the_unprefixed_copy(builds: Builds) -> None:
    result = run([sys.executable, "-m", "shimgen", "check-symbols", builds.lib("plain"), "--manifest",
                  builds.manifest, "--strict"], env=python_env(), check=False)
    assert result.returncode == 1
    assert "SG001" in result.stdout and "ZSTD_compress" in result.stdout


def test_prefixed_copy_coexists_with_an_unprefixed_one(builds: Builds) -> None:
    # The unprefixed copy is loaded first, RTLD_GLOBAL: it wins every plain name in the process.
    providers = coexist(builds, builds.lib("plain"), builds.probe("plain"), builds.probe("vnd"))
    assert providers == {"libzstd_plain_probe.so": "libzstd_plain.so", "libzstd_vnd_probe.so": "libzstd_vnd.so"}
    # Loaded the other way round, each still binds to its own copy.
    providers = coexist(builds, builds.probe("vnd"), builds.probe("plain"))
    assert providers == {"libzstd_vnd_probe.so": "libzstd_vnd.so", "libzstd_plain_probe.so": "libzstd_plain.so"}


def test_negative_control_unprefixed_pair_collides(builds: Builds) -> None:
    # Two unprefixed copies: the second probe was linked against libzstd_plain2.so, yet its calls
    # land in libzstd_plain.so, which came first.
    providers = coexist(builds, builds.lib("plain"), builds.probe("plain"), builds.probe("plain2"))
    assert providers == {"libzstd_plain_probe.so": "libzstd_plain.so", "libzstd_plain2_probe.so": "libzstd_plain.so"}


@pytest.mark.skipif(not SYSTEM_ZSTD.is_file(), reason=f"no system libzstd at {SYSTEM_ZSTD}")
def test_prefixed_copy_coexists_with_the_system_libzstd(builds: Builds) -> None:
    providers = coexist(builds, SYSTEM_ZSTD, builds.probe("plain"), builds.probe("vnd"))
    # The plain probe is captured by the system copy (the collision); the prefixed one is not.
    assert providers["libzstd_plain_probe.so"] == SYSTEM_ZSTD.name
    assert providers["libzstd_vnd_probe.so"] == "libzstd_vnd.so"


# python-zstandard's own test suite on the prefixed build -----------------------------------------


def upstream_suite(sdist: Path, build_dir: Path, workdir: Path, *, preload: Path | None = None
                   ) -> subprocess.CompletedProcess:
    """Run the sdist's tests/ with python-zstandard's C extension as built in ``build_dir``.

    The package directory is the sdist's zstandard/ with the built backend_c beside it, on
    PYTHONPATH first, and the import policy says "C extension or fail" (no CFFI fallback)."""
    if not workdir.exists():
        shutil.copytree(sdist / "zstandard", workdir / "zstandard")
        shutil.copytree(sdist / "tests", workdir / "tests")
        (extension,) = (build_dir / "python" / "zstandard").glob("backend_c*.so")
        shutil.copy2(extension, workdir / "zstandard")
    env = python_env({"PYTHON_ZSTANDARD_IMPORT_POLICY": "cext", "PYTHONPATH": str(workdir)})
    env.pop("ZSTD_SLOW_TESTS", None)
    if preload is not None:
        env["LD_PRELOAD"] = str(preload)
    code = ("import zstandard, sys; assert zstandard.backend == 'cext'; "
            f"assert zstandard.backend_c.__file__.startswith({str(workdir)!r}), zstandard.backend_c.__file__; "
            "import pytest; sys.exit(pytest.main(['-q', '-rf', '-p', 'no:cacheprovider', 'tests']))")
    return run([sys.executable, "-c", code], cwd=workdir, env=env, check=False)


def failures(result: subprocess.CompletedProcess) -> set[str]:
    return {line.split()[1] for line in result.stdout.splitlines() if line.startswith("FAILED ")}


def passed(result: subprocess.CompletedProcess) -> int:
    match = re.search(r"(\d+) passed", result.stdout)
    return int(match.group(1)) if match else 0


def test_zstandards_own_tests_pass_on_the_prefixed_build(builds: Builds, sdist: Path,
                                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    (extension,) = (builds.prefixed / "python" / "zstandard").glob("backend_c*.so")
    # The extension was compiled with the force-include: it calls only prefixed zstd names.
    from shimgen.binary.load import load_paths

    imports = set().union(*(binary.imports for binary in load_paths([extension])))
    zstd_imports = {name for name in imports if re.match(r"(vnd_)?(ZSTD|ZDICT)_", name)}
    assert zstd_imports and all(name.startswith(PREFIX) for name in zstd_imports), sorted(zstd_imports)

    root = tmp_path_factory.mktemp("upstream-tests")
    prefixed = upstream_suite(sdist, builds.prefixed, root / "vnd")
    plain = upstream_suite(sdist, builds.plain, root / "plain")
    print(f"python-zstandard tests on the prefixed build: {passed(prefixed)} passed, failed: {sorted(failures(prefixed))}")
    assert passed(prefixed) >= 200, prefixed.stdout[-3000:] + prefixed.stderr[-3000:]
    # The one failure is upstream's, not the prefix's: the unprefixed control fails exactly it.
    assert failures(prefixed) == EXPECTED_UPSTREAM_FAILURES, prefixed.stdout[-3000:]
    assert failures(plain) == EXPECTED_UPSTREAM_FAILURES and passed(plain) == passed(prefixed), plain.stdout[-3000:]


@pytest.mark.skipif(not SYSTEM_ZSTD.is_file(), reason=f"no system libzstd at {SYSTEM_ZSTD}")
def test_zstandards_own_tests_beside_the_system_libzstd(builds: Builds, sdist: Path,
                                                        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The system's older libzstd loaded first (LD_PRELOAD) takes every plain zstd name: the
    unprefixed extension then runs on it and refuses to load (its version check), the prefixed one
    still runs on its own copy and passes as before."""
    root = tmp_path_factory.mktemp("upstream-preload")
    prefixed = upstream_suite(sdist, builds.prefixed, root / "vnd", preload=SYSTEM_ZSTD)
    assert passed(prefixed) >= 200 and failures(prefixed) == EXPECTED_UPSTREAM_FAILURES, prefixed.stdout[-3000:]
    plain = upstream_suite(sdist, builds.plain, root / "plain", preload=SYSTEM_ZSTD)
    assert plain.returncode != 0
    assert "zstd C API versions mismatch" in plain.stdout + plain.stderr, (plain.stdout + plain.stderr)[-3000:]


# Bad input ------------------------------------------------------------------------------------


def test_apply_prefix_rejects_bad_arguments(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "shimgen.toml").write_text('prefix = "x_"\nsymbols = ["f"]\n')
    (project / "f.c").write_text("int f(void) { return 1; }\n")
    cases = {
        "shimgen_apply_prefix(f FORCE_INCLUD)": "shimgen_apply_prefix: unknown arguments 'FORCE_INCLUD'",
        "shimgen_apply_prefix(f PRIVATE)": "PRIVATE needs FORCE_INCLUDE",
        "shimgen_apply_prefix(f PUBLIC PRIVATE FORCE_INCLUDE)": "give one scope",
        "shimgen_apply_prefix(f FORCE_INCLUDE ASM_HEADER)": "ASM_HEADER needs a value",
    }
    for index, (call, expected) in enumerate(cases.items()):
        (project / "CMakeLists.txt").write_text(
            "cmake_minimum_required(VERSION 3.21)\nproject(p C)\nfind_package(shimgen CONFIG REQUIRED)\n"
            'shimgen_generate(CONFIG "${CMAKE_CURRENT_SOURCE_DIR}/shimgen.toml")\n'
            f"add_library(f STATIC f.c)\n{call}\n")
        result = configure(project, tmp_path / f"b{index}", f"-Dshimgen_DIR={CMAKE_DIR}", env=python_env(),
                           check=False)
        assert result.returncode != 0 and expected in result.stderr, (call, result.stderr[-2000:])
    shutil.rmtree(tmp_path / "b0", ignore_errors=True)


def test_prefix_library_rejects_bad_arguments(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "shimgen.toml").write_text('prefix = "x_"\nsymbols_from_targets = ["f"]\n')
    (project / "f.c").write_text("int f(void) { return 1; }\n")
    cases = {
        "shimgen_prefix_library(f)": "shimgen_prefix_library: CONFIG <file> is required",
        "shimgen_prefix_library(f CONFIG shimgen.toml PUBLC)": "unknown arguments 'PUBLC'",
        "shimgen_prefix_library(g CONFIG shimgen.toml)": "'g' is not a target",
        "shimgen_prefix_library(f CONFIG shimgen.toml PUBLIC PRIVATE)": "give one scope",
        "shimgen_prefix_library(f CONFIG nowhere.toml)": "is not a file",
        # The config must say where its names come from: a target it does not list is refused.
        "add_library(h STATIC f.c)\nshimgen_prefix_library(h CONFIG shimgen.toml)":
            "--target h: shimgen.toml does not name it in symbols_from_targets (it names: f)",
    }
    for index, (call, expected) in enumerate(cases.items()):
        (project / "CMakeLists.txt").write_text(
            "cmake_minimum_required(VERSION 3.21)\nproject(p C)\nfind_package(shimgen CONFIG REQUIRED)\n"
            f"add_library(f SHARED f.c)\n{call}\n")
        result = configure(project, tmp_path / f"b{index}", f"-Dshimgen_DIR={CMAKE_DIR}", env=python_env(),
                           check=False)
        message = " ".join(result.stderr.split())  # CMake wraps long messages
        assert result.returncode != 0 and expected in message, (call, result.stderr[-2000:])
