"""Where ``shimgen run`` finds the runtime built for the active config, wherever the user stands.

A per-user cache directory (platformdirs' ``user_cache_dir("shimgen")``, or ``$SHIMGEN_CACHE_DIR``)
holds one entry per *build key*: a hash of what decides the runtime's binary, namely shimgen's
version, the config file (its path and the digest of its bytes) and whether CUDA is built in. An
entry ``runtime-<key>/`` holds ``runtime.json``, which names the library: the one ``shimgen build``
made in the user's build directory (recorded there after a passing build), or the one built into
the entry's own ``build/`` on first use.

Lookup (``find_or_build``): the recorded library for the key, else a build on first use into the
entry, under the entry's lock so that two processes starting at once build it once. A record that
cannot be read, belongs to another key, or names a library that is gone or unusable (read, never
loaded: shimgen.binary.runtime_library) counts as absent: it is rebuilt, and the line that announces
the build says why. An unusable library of the entry's own build is deleted first, so Ninja relinks it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from shimgen import __version__
from shimgen.binary.runtime_library import runtime_problem
from shimgen.build import builder
from shimgen.build.builder import BuildOptions, BuildResult, build, project_dir
from shimgen.build.lock import build_lock
from shimgen.errors import ConfigError, ToolError
from shimgen.files import write_if_changed
from shimgen.project.config import Config
from shimgen.resources import runtime_dir

log = logging.getLogger(__name__)

CACHE_ENV = "SHIMGEN_CACHE_DIR"
RECORD_NAME = "runtime.json"
RECORD_SCHEMA = "shimgen-runtime-cache/1"


@dataclass(frozen=True)
class Entry:
    """One cache entry: the runtime for one config, built with or without CUDA."""

    dir: Path
    key: str
    cuda: bool

    @property
    def record(self) -> Path:
        return self.dir / RECORD_NAME

    @property
    def build_dir(self) -> Path:
        """Where a build on first use goes."""
        return self.dir / "build"


def cache_root() -> Path:
    """``$SHIMGEN_CACHE_DIR``, else the per-user cache directory of the platform."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser().resolve()
    import platformdirs

    return Path(platformdirs.user_cache_dir("shimgen")).resolve()


def cache_key(config: Config, *, cuda: bool) -> str:
    """A hash of what decides the built runtime (pure): any change to the config file's bytes, its
    place (relative header globs resolve there), shimgen's version or CUDA gives another key."""
    parts = {"shimgen": __version__, "config": str(config.path), "digest": config.digest, "cuda": cuda}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:20]


def entry_for(config: Config, *, cuda: bool, root: Path | None = None) -> Entry:
    key = cache_key(config, cuda=cuda)
    return Entry(dir=(root or cache_root()) / f"runtime-{key}", key=key, cuda=cuda)


def record_text(entry: Entry, config: Config, library: Path, made_by: str) -> str:
    return json.dumps({"schema": RECORD_SCHEMA, "key": entry.key, "config": str(config.path), "cuda": entry.cuda,
                       "library": str(library.resolve()), "made_by": made_by}, indent=2, sort_keys=True) + "\n"


def write_record(entry: Entry, config: Config, library: Path, made_by: str) -> None:
    try:
        write_if_changed(entry.record, record_text(entry, config, library, made_by).encode())
    except OSError as exc:
        raise ToolError(f"cannot write the runtime cache entry {entry.record}: {exc.strerror or exc} "
                        f"(set ${CACHE_ENV} to a writable directory)") from None


def read_record(entry: Entry) -> tuple[Path | None, str]:
    """The library the entry names, or (None, why not)."""
    try:
        data = json.loads(entry.record.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, "no entry"
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, f"unreadable {entry.record}: {exc}"
    if not isinstance(data, dict) or data.get("schema") != RECORD_SCHEMA or data.get("key") != entry.key:
        return None, f"{entry.record} is not a runtime record for key {entry.key}"
    library = data.get("library")
    if not isinstance(library, str) or not Path(library).is_file():
        return None, f"the recorded runtime {library} is gone"
    problem = runtime_problem(Path(library))  # read, not dlopened: a truncated library is SIGBUS
    if problem:
        return None, problem
    return Path(library), ""


def _discard_unusable(entry: Entry) -> None:
    """Before a rebuild into the entry: remove a library of the entry's own build that failed
    validation (truncated, emptied, garbage). Ninja sees it newer than its inputs and would not
    relink it, so the cache would never heal. A library outside the entry (recorded by
    'shimgen build' in the user's build directory) is never touched: the rebuild goes into the
    entry and the record is pointed there."""
    try:
        recorded = json.loads(entry.record.read_text(encoding="utf-8")).get("library")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError, RecursionError):
        return
    if not isinstance(recorded, str):
        return
    library = Path(recorded)
    inside = library.resolve().is_relative_to(entry.build_dir.resolve())
    if inside and library.is_file() and not library.is_symlink() and runtime_problem(library):
        log.debug("removing the unusable %s before rebuilding it", library)
        library.unlink()


def builds_the_runtime(config: Config) -> bool:
    """True when ``shimgen build`` of this config builds the bundled runtime (not the user's own
    CMake project, which has no model loader, nor a config with nothing to build)."""
    try:
        return project_dir(config).resolve() == runtime_dir().resolve()
    except ConfigError:
        return False


def record_build(config: Config, options: BuildOptions, result: BuildResult) -> Entry | None:
    """After ``shimgen build``: point the config's cache entry at the runtime it made. Only a passing,
    unsanitized build of the runtime itself is recorded (a sanitized library needs its runtime
    preloaded, and a user's own project has no model loader)."""
    if options.sanitize and result.artifacts:
        _forget(entry_for(config, cuda=result.cuda), result.artifacts[0].path)
    if result.check.exit_code != 0 or options.sanitize or not result.artifacts or not builds_the_runtime(config):
        return None
    entry = entry_for(config, cuda=result.cuda)
    try:
        write_record(entry, config, result.artifacts[0].path, "shimgen build")
    except ToolError as exc:  # the build itself succeeded: a read-only cache must not fail it
        log.warning("warning: %s; 'shimgen run' will not find this build without --runtime", exc)
        return None
    log.debug("recorded %s in %s", result.artifacts[0].path, entry.record)
    return entry


def _forget(entry: Entry, library: Path) -> None:
    """Drop the entry's record when it names ``library``: a sanitized rebuild in the same build
    directory replaced the library the record vouched for."""
    try:
        recorded = json.loads(entry.record.read_text(encoding="utf-8")).get("library")
        if isinstance(recorded, str) and Path(recorded) == library.resolve():
            entry.record.unlink()
            log.debug("forgot %s: %s is now a sanitized build", entry.record, library)
    except (OSError, UnicodeDecodeError, ValueError, AttributeError, RecursionError):
        pass


def find_or_build(config: Config, *, need_cuda: bool = False, jobs: int | None = None) -> Path:
    """The runtime for ``config``: recorded by ``shimgen build`` or an earlier first use, else built
    now into the cache (one INFO line announces it). ``need_cuda``: only a CUDA build will do; else
    a CPU-only build is preferred, a CUDA one taken, and a CPU-only one built (no nvcc needed)."""
    preferred = [True] if need_cuda else [False, True]
    problems = []
    for cuda in preferred:
        library, why = read_record(entry_for(config, cuda=cuda))
        if library is not None:
            log.debug("runtime for %s from the cache: %s", config.path, library)
            return library
        problems.append(why)
    return build_on_first_use(config, entry_for(config, cuda=preferred[0]),
                              why=next((p for p in problems if p != "no entry"), ""), jobs=jobs)


def build_on_first_use(config: Config, entry: Entry, *, why: str = "", jobs: int | None = None) -> Path:
    if not builds_the_runtime(config):
        what = "builds its own CMake project" if (config.root / "CMakeLists.txt").is_file() else \
            "describes your own shims (no project beside it)"
        raise ToolError(f"{config.path} {what}, not shimgen's runtime: pass --runtime or set $SHIMGEN_RUNTIME")
    if entry.cuda and builder.find_nvcc() is None:
        raise ToolError("a CUDA device needs a runtime built with CUDA, and no nvcc was found to build one: "
                        "run 'shimgen build --cuda on' where nvcc is, or pass --runtime")
    try:
        entry.dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ToolError(f"cannot create the runtime cache {entry.dir}: {exc.strerror or exc} "
                        f"(set ${CACHE_ENV} to a writable directory)") from None
    with build_lock(entry.dir, echo=log.info):
        library, _ = read_record(entry)  # another process may have built it while we waited
        if library is not None:
            return library
        _discard_unusable(entry)
        log.info("building the runtime for %s into %s (%s) ...", config.path, entry.build_dir,
                 f"rebuilding: {why}" if why else "first use")
        options = BuildOptions(entry.build_dir, cuda="on" if entry.cuda else "off", jobs=jobs, stream=False)
        result = build(config, options, echo=log.debug)
        if result.check.exit_code != 0:
            raise ToolError([f"the runtime built into {entry.build_dir} fails check-symbols:",
                             *_first_lines(result.check.text.splitlines(), 5)])
        library = result.artifacts[0].path
        problem = runtime_problem(library)
        if problem:  # never record what 'run' would refuse (or crash on)
            raise ToolError(f"the runtime built into {entry.build_dir} is unusable: {problem}")
        write_record(entry, config, library, "first use")
    return library


def _first_lines(lines: Sequence[str], count: int) -> list[str]:
    return [line for line in lines if line.strip()][:count]
