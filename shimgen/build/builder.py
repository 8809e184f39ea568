"""``shimgen build``: generate, configure (CMake + Ninja), build, then check the symbols.

Joins a ``Config`` to the CMake driver. The project built is the config's directory when it holds
a CMakeLists.txt (the bundled runtime/ does), else the bundled runtime. Generated files go into
the build directory, never next to the config: an installed runtime directory is read-only.

A second run with nothing changed does no work: the generator leaves unchanged files (and their
mtimes) alone, configure runs only when the init cache changed or the build directory is new, and
the build is CMake's own no-op check.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from shimgen.build import cmake as cmake_driver
from shimgen.build.cmake import CacheEntry
from shimgen.build.lock import build_lock
from shimgen.errors import ToolError, UsageError
from shimgen.generate.render import render, write
from shimgen.project.config import Config, with_overrides
from shimgen.project.shims import ShimSet, resolve_shims
from shimgen.resources import runtime_dir

CUDA_MODES = ("auto", "on", "off")
BUILD_TYPES = ("Release", "Debug", "RelWithDebInfo", "MinSizeRel")
ARTIFACTS_FILE = "shimgen-artifacts.txt"
SANITIZERS = ("address", "undefined", "thread", "leak")

Echo = Callable[[str], None]


@dataclass(frozen=True)
class BuildOptions:
    build_dir: Path
    cuda: str = "auto"
    build_type: str = "Release"
    jobs: int | None = None
    cache: tuple[tuple[str, str], ...] = ()
    """Extra CMake cache entries (name, value), e.g. ('SHIMGEN_RUNTIME_BUILD_TESTS', 'ON')."""
    sanitize: tuple[str, ...] = ()
    """Sanitizers for the native code (SHIMGEN_RUNTIME_SANITIZE): address, undefined, thread, leak."""
    wait: bool = True
    """When another shimgen build holds the build directory: wait for it (True) or fail at once."""


@dataclass(frozen=True)
class Artifact:
    path: Path
    prefixed_exports: int
    """How many of the config's prefixed shims the artifact exports."""


@dataclass(frozen=True)
class CheckOutcome:
    exit_code: int
    text: str


@dataclass(frozen=True)
class BuildResult:
    build_dir: Path
    source_dir: Path
    cuda: bool
    configured: bool
    """True when this run configured (a fresh build directory or changed options)."""
    generated_changed: tuple[Path, ...]
    artifacts: tuple[Artifact, ...]
    shim_count: int
    check: CheckOutcome


def project_dir(config: Config) -> Path:
    return config.root if (config.root / "CMakeLists.txt").is_file() else runtime_dir()


def find_nvcc() -> Path | None:
    """nvcc from CUDACXX, PATH, CUDA_HOME/CUDA_PATH, or /usr/local/cuda."""
    candidates = [os.environ.get("CUDACXX"), shutil.which("nvcc")]
    for variable in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(variable):
            candidates.append(str(Path(os.environ[variable]) / "bin" / "nvcc"))
    candidates.append("/usr/local/cuda/bin/nvcc")
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


def cache_entries(options: BuildOptions, config: Config, generated_dir: Path, tools: cmake_driver.Tools,
                  nvcc: Path | None) -> dict[str, CacheEntry]:
    entries = {
        "CMAKE_BUILD_TYPE": CacheEntry(options.build_type),
        "CMAKE_MAKE_PROGRAM": CacheEntry(str(tools.ninja), "FILEPATH"),
        "SHIMGEN_GENERATED_DIR": CacheEntry(str(generated_dir), "PATH"),
        "SHIMGEN_RUNTIME_OUTPUT_NAME": CacheEntry(config.library),
        "SHIMGEN_RUNTIME_CUDA": CacheEntry("ON" if nvcc else "OFF"),
        # Always written (empty = none), so dropping --sanitize reconfigures without sanitizers.
        "SHIMGEN_RUNTIME_SANITIZE": CacheEntry(",".join(options.sanitize)),
        # The interpreter running shimgen: the runtime's CMake asks it where scipy-openblas32 is.
        "Python3_EXECUTABLE": CacheEntry(sys.executable, "FILEPATH"),
    }
    if nvcc:
        entries["CMAKE_CUDA_COMPILER"] = CacheEntry(str(nvcc), "FILEPATH")
    for name, value in options.cache:
        entries[name] = CacheEntry(value)
    return entries


def build(config: Config, options: BuildOptions, *, echo: Echo = print) -> BuildResult:
    """Generate, configure if needed, build, and check. Raises ShimgenError subclasses."""
    if options.cuda not in CUDA_MODES:
        raise UsageError(f"--cuda must be one of {', '.join(CUDA_MODES)}, not '{options.cuda}'")
    if options.build_type not in BUILD_TYPES:
        raise UsageError(f"--build-type must be one of {', '.join(BUILD_TYPES)}, not '{options.build_type}'")
    if options.jobs is not None and options.jobs < 1:
        raise UsageError(f"-j must be at least 1, not {options.jobs}")
    sanitize_problem(options.sanitize)
    build_dir = options.build_dir.resolve()
    if build_dir.exists() and not build_dir.is_dir():
        raise UsageError(f"build directory {build_dir} exists and is not a directory")

    nvcc = None
    if options.cuda != "off":
        nvcc = find_nvcc()
        if nvcc is None and options.cuda == "on":
            raise ToolError("--cuda on, but no nvcc was found; set CUDACXX or CUDA_HOME, or use --cuda off")

    # One build per directory at a time: a second run waits (or fails) instead of racing on the
    # generated files, the CMake cache and Ninja's state. Taken only once the options are known
    # good, so a refused run creates nothing.
    with build_lock(build_dir, wait=options.wait, echo=echo):
        return _build_locked(config, options, build_dir, nvcc, echo)


def sanitize_problem(sanitize: Sequence[str]) -> None:
    """Raise UsageError for an unknown sanitizer or one that cannot be combined."""
    unknown = [name for name in sanitize if name not in SANITIZERS]
    if unknown:
        raise UsageError(f"--sanitize: unknown sanitizer '{unknown[0]}' (choose from {', '.join(SANITIZERS)})")
    if "thread" in sanitize and ({"address", "leak"} & set(sanitize)):
        raise UsageError("--sanitize: thread cannot be combined with address or leak (build them separately)")


def _build_locked(config: Config, options: BuildOptions, build_dir: Path, nvcc: Path | None,
                  echo: Echo) -> BuildResult:
    echo(f"[1/4] generate ({config.display_name}, prefix '{config.prefix}')")
    shimset = resolve_shims(config)
    generated_dir = build_dir / "generated"
    generated = with_overrides(config, output_dir=generated_dir)
    written = write(render(generated, shimset)).written
    for path in written:
        echo(f"  wrote {path}")

    tools = cmake_driver.find_tools()
    source_dir = project_dir(config)
    init_cache, changed = cmake_driver.write_init_cache(
        build_dir, cache_entries(options, config, generated_dir, tools, nvcc)
    )
    configured = changed or not cmake_driver.is_configured(build_dir)
    if configured:
        echo(f"[2/4] configure {source_dir} (CUDA {'on: ' + str(nvcc) if nvcc else 'off'})")
        try:
            cmake_driver.configure(tools, source_dir, build_dir, init_cache, echo=echo)
        except ToolError:
            init_cache.unlink(missing_ok=True)  # so the next run configures again, not just builds
            raise
    else:
        echo("[2/4] configure: up to date")
    echo("[3/4] build")
    cmake_driver.build(tools, build_dir, jobs=options.jobs, echo=echo)

    paths = read_artifacts(build_dir)
    echo(f"[4/4] check-symbols {' '.join(str(p) for p in paths)}")
    outcome = check_symbols(paths, generated, shimset)
    artifacts = tuple(Artifact(path, count_prefixed_exports(path, shimset)) for path in paths)
    return BuildResult(
        build_dir=build_dir,
        source_dir=source_dir,
        cuda=nvcc is not None,
        configured=configured,
        generated_changed=tuple(written),
        artifacts=artifacts,
        shim_count=len(shimset.shims),
        check=outcome,
    )


def read_artifacts(build_dir: Path) -> tuple[Path, ...]:
    """The libraries the project lists in shimgen-artifacts.txt, else the shared libraries at the top."""
    listing = build_dir / ARTIFACTS_FILE
    if listing.is_file():
        paths = tuple(Path(line) for line in listing.read_text().splitlines() if line.strip())
    else:
        paths = tuple(sorted(p for p in build_dir.iterdir() if p.suffix in (".so", ".dylib", ".dll")))
    missing = [str(p) for p in paths if not p.is_file()]
    if missing or not paths:
        raise ToolError(f"the build produced no library to check (expected {', '.join(missing) or 'a shared library'} in {build_dir})")
    return paths


def dynamic_exports(path: Path) -> set[str]:
    """Names a shared library exports, read by check-symbols' own reader."""
    from shimgen.binary.load import load_paths

    return set().union(*(binary.exports for binary in load_paths([path])))


def count_prefixed_exports(path: Path, shimset: ShimSet) -> int:
    exported = dynamic_exports(path)
    return sum(1 for shim in shimset.shims if shim.prefixed in exported)


def check_symbols(paths: Sequence[Path], config: Config, shimset: ShimSet) -> CheckOutcome:
    """Run check-symbols on the artifacts with the policy of the config that built them."""
    from shimgen.check import Policy, check_paths, render_text

    report = check_paths(list(paths), Policy.from_config(config, shimset))
    return CheckOutcome(report.exit_code, render_text(report, color=False))
