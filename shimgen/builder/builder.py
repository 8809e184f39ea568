"""``shimgen build``: generate, configure (CMake + Ninja), build, then check the symbols.

Joins a ``Config`` to the CMake driver. The project built is the config's directory when it holds
a CMakeLists.txt (the bundled shimgen/runtime/ does), else the bundled runtime. Generated files go into
the build directory, never next to the config: an installed runtime directory is read-only.

A second run with nothing changed does no work: the generator leaves unchanged files (and their
mtimes) alone, configure runs only when the init cache changed or the build directory is new, and
the build is CMake's own no-op check.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from shimgen.builder import cmake as cmake_driver
from shimgen.builder.cmake import CacheEntry
from shimgen.builder.lock import build_lock
from shimgen.errors import ConfigError, ToolError, UsageError
from shimgen.generate.render import generate
from shimgen.project.config import Config, with_overrides
from shimgen.project.shims import ShimSet, resolve_shims
from shimgen.resources import cmake_dir, runtime_dir

log = logging.getLogger(__name__)

CUDA_MODES = ("auto", "on", "off")
BUILD_TYPES = ("Release", "Debug", "RelWithDebInfo", "MinSizeRel")
ARTIFACTS_FILE = "shimgen-artifacts.txt"


@dataclass(frozen=True)
class BuildOptions:
    build_dir: Path
    cuda: str = "auto"
    build_type: str = "Release"
    jobs: int | None = None
    cache: tuple[tuple[str, str], ...] = ()
    """Extra CMake cache entries (name, value), e.g. ('SHIMGEN_RUNTIME_BUILD_TESTS', 'ON')."""
    sanitize: tuple[str, ...] = ()
    """Sanitizers for the native code (SHIMGEN_RUNTIME_SANITIZE), from ``known_sanitizers()``."""
    wait: bool = True
    """When another shimgen build holds the build directory: wait for it (True) or fail at once."""
    stream: bool = True
    """CMake's and Ninja's output: shown as it comes (True), or captured, logged at DEBUG and its
    tail put into the error when a step fails (False: ``shimgen -q``, builds on first use)."""


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


def is_user_project(config: Config) -> bool:
    """The config sits beside the user's own CMakeLists.txt (else shimgen builds its bundled runtime)."""
    return (config.root / "CMakeLists.txt").is_file() and config.root.resolve() != runtime_dir().resolve()


def project_dir(config: Config) -> Path:
    """The CMake project ``shimgen build`` builds for ``config``: the one beside it (the bundled
    runtime's own config sits beside shimgen/runtime/CMakeLists.txt). A config with no project beside it
    describes the user's own shims: building the bundled runtime with it would give a library
    without the runtime's API (which 'shimgen run' then rejects), so it is refused."""
    if (config.root / "CMakeLists.txt").is_file():
        return config.root
    if config.symbols_from_targets:
        raise ConfigError(f"{config.path}: symbols_from_targets names CMake targets, but {config.root} holds "
                          "no CMakeLists.txt defining them (put the config beside the project's CMakeLists.txt)")
    raise ConfigError(f"{config.path}: nothing for 'shimgen build' to build here: it builds the CMake project "
                      f"beside the config (no CMakeLists.txt in {config.root}), or shimgen's bundled runtime "
                      "where no config is found. For your own shims run 'shimgen generate' and build them with "
                      "your build system (docs/integration.md), or put a CMakeLists.txt beside the config")


def cuda_compiler(options: BuildOptions, config: Config, progress: int = logging.INFO) -> Path | None:
    """nvcc when this build uses CUDA, else None. ``auto`` needs both nvcc and cuBLAS (the CUDA
    backend links it): a machine with the toolkit but no cuBLAS builds CPU-only, saying why, where
    CMake would otherwise stop the whole build; ``on`` lets CMake name what is missing."""
    # A vendored library's project declares its own languages: CUDA only when asked for.
    cuda = "off" if options.cuda == "auto" and config.symbols_from_targets else options.cuda
    # cuBLAS is what the bundled runtime links; a user's project says what it needs itself.
    needs_cublas = not is_user_project(config)
    if cuda == "off":
        return None
    nvcc = find_nvcc()
    if nvcc is None:
        if cuda == "on":
            raise ToolError("--cuda on, but no nvcc was found; set CUDACXX or CUDA_HOME, or use --cuda off")
        return None
    if cuda == "auto" and needs_cublas and not any(name == "SHIMGEN_CUBLAS_ROOT" for name, _ in options.cache) and not has_cublas(nvcc):
        log.log(progress, "%s", f"CUDA off: {nvcc} found but no cuBLAS (python -m pip install nvidia-cublas, or --cuda on "
             "-D SHIMGEN_CUBLAS_ROOT=DIR)")
        return None
    return nvcc


def has_cublas(nvcc: Path) -> bool:
    """cuBLAS headers where shimgen/runtime/cmake/cublas.cmake looks: a PyPI nvidia-cublas package, else the
    toolkit beside nvcc."""
    import importlib.metadata

    for name in ("nvidia-cublas", "nvidia-cublas-cu13", "nvidia-cublas-cu12"):
        try:
            files = importlib.metadata.distribution(name).files or ()
        except importlib.metadata.PackageNotFoundError:
            continue
        if any(f.name == "cublas_v2.h" for f in files):
            return True
    toolkit = nvcc.resolve().parent.parent
    return any((toolkit / sub / "cublas_v2.h").is_file() for sub in ("include", "targets/x86_64-linux/include"))


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
    if is_user_project(config):
        # The project calls find_package(shimgen) and shimgen_generate(CONFIG ...) or
        # shimgen_prefix_library(... CONFIG ...): the package and the config it was built with.
        entries["shimgen_DIR"] = CacheEntry(str(cmake_dir()), "PATH")
        entries["SHIMGEN_CONFIG"] = CacheEntry(str(config.path), "FILEPATH")
    if config.symbols_from_targets:
        # shimgen build checks every listed library itself (step 4, exit 1 on findings, on every run);
        # the CMake POST_BUILD check would only turn a finding into a failed build (exit 2).
        entries["SHIMGEN_CHECK_SYMBOLS"] = CacheEntry("OFF", "BOOL")
    if nvcc:
        entries["CMAKE_CUDA_COMPILER"] = CacheEntry(str(nvcc), "FILEPATH")
    for name, value in options.cache:
        entries[name] = CacheEntry(value)
    return entries


def build(config: Config, options: BuildOptions, *, progress: int = logging.INFO) -> BuildResult:
    """Generate, configure if needed, build, and check. Raises ShimgenError subclasses.

    Progress lines ("[2/4] configure ...") go to the shimgen logger at ``progress`` (INFO: shown
    unless -q; a first-use build from 'shimgen run' passes DEBUG, so they show only with -v)."""
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

    nvcc = cuda_compiler(options, config, progress)

    # One build per directory at a time: a second run waits (or fails) instead of racing on the
    # generated files, the CMake cache and Ninja's state. Taken only once the options are known
    # good, so a refused run creates nothing.
    project_dir(config)  # a config that names targets but no project fails before anything is created
    with build_lock(build_dir, wait=options.wait, progress=progress):
        return _build_locked(config, options, build_dir, nvcc, progress)


def known_sanitizers() -> tuple[str, ...]:
    """The names in shimgen/runtime/sanitizers.txt: the one list, which the runtime's CMake reads too."""
    text = (runtime_dir() / "sanitizers.txt").read_text(encoding="utf-8")
    return tuple(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def sanitize_problem(sanitize: Sequence[str]) -> None:
    """Raise UsageError for an unknown sanitizer or one that cannot be combined."""
    if not sanitize:
        return
    known = known_sanitizers()
    unknown = [name for name in sanitize if name not in known]
    if unknown:
        raise UsageError(f"--sanitize: unknown sanitizer '{unknown[0]}' (choose from {', '.join(known)})")
    if "thread" in sanitize and ({"address", "leak"} & set(sanitize)):
        raise UsageError("--sanitize: thread cannot be combined with address or leak (build them separately)")


def _build_locked(config: Config, options: BuildOptions, build_dir: Path, nvcc: Path | None,
                  progress: int) -> BuildResult:
    source_dir = project_dir(config)
    one_pass = bool(config.symbols_from_targets)
    generated_dir = build_dir / "generated"
    generated = with_overrides(config, output_dir=generated_dir)
    written: list[Path] = []
    if one_pass:
        # The rename set is read from objects this build compiles: shimgen_prefix_library() in the
        # project generates as a build step, between the unprefixed and the prefixed compile.
        log.log(progress, "%s", f"[1/4] generate: a build step (symbols_from_targets: {', '.join(config.symbols_from_targets)})")
    else:
        log.log(progress, "%s", f"[1/4] generate ({config.display_name}, prefix '{config.prefix}')")
        # Through generate(), as 'shimgen generate' does: the same files, and its warnings too.
        shimset = resolve_shims(generated)
        generated_files = generate(generated, shims=shimset)
        for warning in generated_files.warnings:
            log.warning("warning: %s", warning)
        written = list(generated_files.written)
        for path in written:
            log.log(progress, "%s", f"  wrote {path}")

    tools = cmake_driver.find_tools()
    init_cache, changed = cmake_driver.write_init_cache(
        build_dir, cache_entries(options, config, generated_dir, tools, nvcc)
    )
    configured = changed or not cmake_driver.is_configured(build_dir, init_cache)
    if configured:
        log.log(progress, "%s", f"[2/4] configure {source_dir} (CUDA {'on: ' + str(nvcc) if nvcc else 'off'})")
        try:
            cmake_driver.configure(tools, source_dir, build_dir, init_cache, stream=options.stream)
        except ToolError:
            init_cache.unlink(missing_ok=True)  # so the next run configures again, not just builds
            raise
    else:
        log.log(progress, "%s", "[2/4] configure: up to date")
    log.log(progress, "%s", "[3/4] build")
    before = _mtimes(_record_outputs(build_dir)) if one_pass else {}
    cmake_driver.build(tools, build_dir, jobs=options.jobs, stream=options.stream)

    if one_pass:
        written = _changed(before, _mtimes(_record_outputs(build_dir)))
        outcome, artifacts, shim_count = _check_prefixed(build_dir, config, progress)
    else:
        paths = read_artifacts(build_dir)
        log.log(progress, "%s", f"[4/4] check-symbols {' '.join(str(p) for p in paths)}")
        outcome, artifacts = check_artifacts(paths, generated, shimset)
        shim_count = len(shimset.shims)
    return BuildResult(
        build_dir=build_dir,
        source_dir=source_dir,
        cuda=nvcc is not None,
        configured=configured,
        generated_changed=tuple(written),
        artifacts=artifacts,
        shim_count=shim_count,
        check=outcome,
    )


PREFIXED_DIR = "shimgen-prefixed"
"""Where shimgen_prefix_library() records, per target, its generated files, objects and binary."""


@dataclass(frozen=True)
class PrefixedLibrary:
    """What one shimgen_prefix_library() call recorded (``<build>/shimgen-prefixed/<target>.txt``)."""

    target: str
    config: Path
    generated: Path
    objects: Path
    """The list of the unprefixed objects the rename set was read from."""
    artifact: Path | None
    """The library binary (None for an OBJECT library)."""

    def check(self, config: Config) -> tuple[ShimSet, CheckOutcome, Artifact | None]:
        """The rename set the build generated from, and check-symbols --strict on the binary with it
        (every name the library defines was renamed, so any unprefixed export is a leak), and the
        binary as an Artifact; the binary is read once for both."""
        from shimgen.project.objects import object_list

        shimset = resolve_shims(config, objects=object_list(self.objects))
        if self.artifact is None:
            return shimset, CheckOutcome(0, ""), None
        outcome, artifacts = check_artifacts([self.artifact], with_overrides(config, output_dir=self.generated),
                                             shimset, strict=True)
        return shimset, outcome, artifacts[0]


def parse_record(target: str, text: str) -> PrefixedLibrary:
    """A record's ``key=value`` lines (pure)."""
    values = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    missing = [k for k in ("config", "generated", "objects", "artifact") if k not in values]
    if missing:
        raise ToolError(f"{PREFIXED_DIR}/{target}.txt lacks {', '.join(missing)}; the shimgen CMake package "
                        "is older than this shimgen (install one version of both)")
    return PrefixedLibrary(target=target, config=Path(values["config"]), generated=Path(values["generated"]),
                           objects=Path(values["objects"]),
                           artifact=Path(values["artifact"]) if values["artifact"] else None)


def prefixed_libraries(build_dir: Path, config: Config) -> tuple[PrefixedLibrary, ...]:
    """The record of every target the config names in symbols_from_targets, from the configured project."""
    found = []
    for target in config.symbols_from_targets:
        record = build_dir / PREFIXED_DIR / f"{target}.txt"
        if not record.is_file():
            raise ToolError(f"the CMake project {project_dir(config)} has no shimgen_prefix_library({target} CONFIG ...) "
                            f"call, but {config.display_name} names {target} in symbols_from_targets; add the call "
                            "after add_library(" + target + " ...)")
        library = parse_record(target, record.read_text(encoding="utf-8"))
        if library.config.resolve() != config.path.resolve():
            raise ToolError(f"shimgen_prefix_library({target}) in the CMake project uses the config {library.config}, "
                            f"not {config.path}; pass one config to both (SHIMGEN_CONFIG)")
        found.append(library)
    return tuple(found)


def _check_prefixed(build_dir: Path, config: Config, progress: int) -> tuple[CheckOutcome, tuple[Artifact, ...], int]:
    """check-symbols --strict on every library shimgen_prefix_library() built for the config:
    the combined outcome, the artifacts, and how many names were renamed in all."""
    libraries = prefixed_libraries(build_dir, config)
    paths = [library.artifact for library in libraries if library.artifact is not None]
    log.log(progress, "%s", f"[4/4] check-symbols --strict {' '.join(str(p) for p in paths)}")
    checked = [library.check(config) for library in libraries]
    outcome = CheckOutcome(max((c.exit_code for _, c, _ in checked), default=0),
                           "\n".join(c.text for _, c, _ in checked if c.text))
    artifacts = tuple(artifact for _, _, artifact in checked if artifact is not None)
    return outcome, artifacts, sum(sum(s.exported for s in shimset.shims) for shimset, _, _ in checked)


def _changed(before: dict[Path, int], after: dict[Path, int]) -> list[Path]:
    return sorted(path for path, mtime in after.items() if before.get(path) != mtime)


def _record_outputs(build_dir: Path) -> list[Path]:
    """Every file a previous build generated for a prefixed library (none before the first build)."""
    records = sorted((build_dir / PREFIXED_DIR).glob("*.txt"))
    files: list[Path] = []
    for record in records:
        library = parse_record(record.stem, record.read_text(encoding="utf-8"))
        if library.generated.is_dir():
            files += [p for p in sorted(library.generated.iterdir()) if p.is_file() and p.suffix != ".stamp"]
    return files


def _mtimes(paths: Sequence[Path]) -> dict[Path, int]:
    return {path: path.stat().st_mtime_ns for path in paths if path.exists()}


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


def check_artifacts(paths: Sequence[Path], config: Config, shimset: ShimSet, *,
                    strict: bool = False) -> tuple[CheckOutcome, tuple[Artifact, ...]]:
    """check-symbols on the artifacts with the policy of the config that built them, and how many
    of its prefixed shims each exports: every artifact is read once, for both."""
    from shimgen.check import Policy, check_loaded, load_for_check, render_text

    policy = Policy.from_config(config, shimset)
    binaries = load_for_check(list(paths), policy)
    report = check_loaded(binaries, policy, strict=strict, several=len(paths) > 1)
    artifacts = tuple(Artifact(path, count_prefixed_exports(
        set().union(*(b.exports for b in binaries if b.path == str(path))), shimset)) for path in paths)
    return CheckOutcome(report.exit_code, render_text(report, color=False)), artifacts


def count_prefixed_exports(exported: set[str], shimset: ShimSet) -> int:
    """How many of the set's prefixed shims are among ``exported`` (pure)."""
    return sum(1 for shim in shimset.shims if shim.prefixed in exported)
