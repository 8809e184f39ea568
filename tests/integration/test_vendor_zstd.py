"""Proof on a C library nobody here wrote: zstd, from the sources the `zstandard` sdist on PyPI
bundles (zstd/zstd.c, the upstream single-file build), prefixed with no source edit through the
force-include route (examples/vendor-zstd), checked with `check-symbols --strict`, and loaded into
one process beside unprefixed copies of the same library.

The sdist is fetched once with `pip download` into pytest's cache directory (.pytest_cache), so a
second session needs no network; without network and without a cached copy the tests skip and
say why. Its sources are never committed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from shimgen.project.config import KEYS
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
EXAMPLE = REPO / "examples" / "vendor-zstd"
PREFIX = "vnd_"
MACRO = "VND_ZSTD_PREFIX"
SYSTEM_ZSTD = Path("/usr/lib/x86_64-linux-gnu/libzstd.so.1")
# Internal zstd names (HUF_, FSE_, POOL_, ...) are global too; every one joins the rename set.
PATTERNS = ["ZSTD_*", "ZSTDMT_*", "ZDICT_*", "HUF_*", "FSE_*", "HIST_*", "POOL_*", "COVER_*", "ERR_*",
            "divsufsort", "divbwt", "g_*"]


@pytest.fixture(scope="session")
def zstd_sources(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """zstd/ of the zstandard sdist, downloaded once per cache directory and extracted."""
    store = getattr(pytestconfig, "cache", None)  # None under -p no:cacheprovider: download per session
    cache = Path(store.mkdir("shimgen-vendor-zstd")) if store is not None else tmp_path_factory.mktemp("zstd")
    extracted = cache / "zstandard-0.25.0" / "zstd"
    if (extracted / "zstd.c").is_file():
        return extracted
    archives = sorted(cache.glob("zstandard-*.tar.gz"))
    if not archives:
        result = subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                                 "--disable-pip-version-check", "-d", str(cache), SDIST],
                                capture_output=True, text=True, timeout=300, check=False)
        archives = sorted(cache.glob("zstandard-*.tar.gz"))
        if result.returncode != 0 or not archives:
            pytest.skip(f"cannot download the {SDIST} sdist (offline?): {result.stderr.strip()[-300:]}")
    with tarfile.open(archives[-1]) as archive:
        members = [m for m in archive.getmembers() if m.name.startswith("zstandard-0.25.0/zstd/")]
        archive.extractall(cache, members=members, filter="data")
    header = (extracted / "zstd.c").read_text(errors="replace")[:2000]
    assert "BSD-style license" in header, "the bundled zstd.c is not the upstream BSD/GPLv2 single-file zstd"
    return extracted


@dataclass(frozen=True)
class Builds:
    plain: Path
    """Build dir of an unprefixed copy (libzstd_plain.so + its probe)."""
    plain2: Path
    """A second unprefixed copy (libzstd_plain2.so): the negative control."""
    prefixed: Path
    """The prefixed copy (libzstd_vnd.so + its probe, both force-included)."""
    config: Path

    def lib(self, name: str) -> Path:
        return {"plain": self.plain, "plain2": self.plain2, "vnd": self.prefixed}[name] / f"libzstd_{name}.so"

    def probe(self, name: str) -> Path:
        return self.lib(name).with_name(f"libzstd_{name}_probe.so")


def build_copy(sources: Path, build_dir: Path, name: str, *extra: str) -> Path:
    # -O1, not Release's -O3: the proof does not need speed, and CI has two cores.
    configure(EXAMPLE, build_dir, f"-DZSTD_SOURCE_DIR={sources}", f"-DZSTD_OUTPUT_NAME=zstd_{name}",
              "-DCMAKE_BUILD_TYPE=", "-DCMAKE_C_FLAGS=-O1", *extra, env=python_env())
    build(build_dir, env=python_env())
    return build_dir


def defined_globals(library: Path) -> list[str]:
    """What the unprefixed build defines and exports, read by shimgen's own reader."""
    from shimgen.binary.load import load_paths

    return sorted(set().union(*(binary.exports for binary in load_paths([library]))))


def write_config(path: Path, names: list[str]) -> None:
    lines = [f'prefix = "{PREFIX}"', f'macro = "{MACRO}"', 'library = "zstd"',
             f"patterns = {json.dumps(PATTERNS)}"]
    if "rename" in KEYS:
        # `#pragma redefine_extname` renames a definition even after a `#undef`; see test below.
        lines.append('rename = "auto"')
    lines.append(f"symbols = {json.dumps(names)}")
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="session")
def builds(zstd_sources: Path, tmp_path_factory: pytest.TempPathFactory) -> Builds:
    c_compiler()
    root = tmp_path_factory.mktemp("vendor-zstd")
    plain = build_copy(zstd_sources, root / "plain", "plain", "-DSHIMGEN_PREFIXED=OFF")
    plain2 = build_copy(zstd_sources, root / "plain2", "plain2", "-DSHIMGEN_PREFIXED=OFF")
    # The rename set is everything the unprefixed build defines (the `symbols_from` key of issue 15
    # reads it from the objects; until it lands here, the same names are read and listed).
    config = root / "shimgen.toml"
    write_config(config, defined_globals(plain / "libzstd_plain.so"))
    prefixed = build_copy(zstd_sources, root / "vnd", "vnd", f"-Dshimgen_DIR={CMAKE_DIR}",
                          f"-DSHIMGEN_CONFIG={config}")
    return Builds(plain, plain2, prefixed, config)


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


def test_rename_set_is_the_whole_library(builds: Builds) -> None:
    names = defined_globals(builds.lib("plain"))
    # Far more than the public API: internal HUF_/FSE_/POOL_ names collide just the same.
    assert "ZSTD_compress" in names and "HUF_decompress4X_hufOnly_wksp" in names
    assert sum(not n.startswith(("ZSTD_", "ZDICT_")) for n in names) > 50
    exported = defined_globals(builds.lib("vnd"))
    assert not [n for n in exported if not n.startswith(PREFIX)]
    assert f"{PREFIX}ZSTD_compress" in exported and f"{PREFIX}HUF_decompress4X_hufOnly_wksp" in exported


def test_no_source_edit(builds: Builds, zstd_sources: Path) -> None:
    ninja = (builds.prefixed / "build.ninja").read_text()
    # The library's own file is compiled straight from the extracted sdist, with the force-include.
    assert str(zstd_sources / "zstd.c") in ninja
    assert "-include" in ninja and "export.h" in ninja and f"-D{MACRO}={PREFIX}" in ninja


# zstd.c does `#define ZSTD_isError ERR_isError` internally and `#undef ZSTD_isError` right before
# defining the function, so a `#define` rename cannot reach that one definition: the prefixed
# library lacks vnd_ZSTD_isError, check-symbols reports it (SG002), and a consumer calling it fails
# to load. `#pragma redefine_extname` (rename = "auto", issue 15 item 3) renames it regardless.
needs_pragma = pytest.mark.xfail("rename" not in KEYS, strict=True,
                                 reason="define mode misses ZSTD_isError (zstd #undefs it); needs rename = 'auto'")


@needs_pragma
def test_check_symbols_strict_passes(builds: Builds) -> None:
    # --strict on the library: every export is a prefixed zstd name.
    result = run([sys.executable, "-m", "shimgen", "check-symbols", builds.lib("vnd"),
                  "-c", builds.config, "--strict"], env=python_env(), check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    # With its consumer (whose probe_* API is foreign by design, so not --strict): every prefixed
    # import resolves in the library, and no plain zstd name is imported.
    result = run([sys.executable, "-m", "shimgen", "check-symbols", builds.lib("vnd"), builds.probe("vnd"),
                  "-c", builds.config], env=python_env(), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_define_mode_gap_is_caught_by_check_symbols(builds: Builds) -> None:
    """Whatever the rename mode, check-symbols names every rename that did not happen."""
    result = run([sys.executable, "-m", "shimgen", "check-symbols", builds.lib("vnd"), "-c", builds.config,
                  "--format", "json"], env=python_env(), check=False)
    findings = json.loads(result.stdout)["findings"]
    assert {f["code"] for f in findings} <= {"SG002"}, findings
    missing = {f["symbol"] for f in findings}
    exported = set(defined_globals(builds.lib("vnd")))
    wanted = {PREFIX + name for name in defined_globals(builds.lib("plain"))}
    assert missing == wanted - exported
    assert (result.returncode == 0) == (not missing)


def test_check_symbols_catches_the_unprefixed_copy(builds: Builds) -> None:
    result = run([sys.executable, "-m", "shimgen", "check-symbols", builds.lib("plain"), "-c", builds.config,
                  "--strict"], env=python_env(), check=False)
    assert result.returncode == 1
    assert "SG001" in result.stdout and "ZSTD_compress" in result.stdout


@needs_pragma
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
@needs_pragma
def test_prefixed_copy_coexists_with_the_system_libzstd(builds: Builds) -> None:
    providers = coexist(builds, SYSTEM_ZSTD, builds.probe("plain"), builds.probe("vnd"))
    # The plain probe is captured by the system copy (the collision); the prefixed one is not.
    assert providers["libzstd_plain_probe.so"] == SYSTEM_ZSTD.name
    assert providers["libzstd_vnd_probe.so"] == "libzstd_vnd.so"


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
