"""Shared fixtures: run the CLI in-process, write configs, golden-file updates."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def run_cli(capsys):
    """Call shimgen.cli.main in-process and capture its exit code and output."""
    from shimgen.cli import main

    def run(*argv) -> CliResult:
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


@pytest.fixture
def write_config(tmp_path):
    """Write a shimgen.toml (and any extra files) into tmp_path; return its path."""

    def write(body: str, name: str = "shimgen.toml", files: dict[str, str] | None = None) -> Path:
        for relative, text in (files or {}).items():
            target = tmp_path / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        path = tmp_path / name
        path.write_text(body)
        return path

    return write


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", help="rewrite golden files from current output")


@pytest.fixture
def update_golden(request) -> bool:
    return bool(request.config.getoption("--update-golden"))


# ---- the runtime cache and one CPU runtime per session (issue 12) ----

@pytest.fixture(scope="session", autouse=True)
def private_runtime_cache(tmp_path_factory) -> Path:
    """Every test (and every shimgen it starts) uses a runtime cache of the session's own, never the
    user's: ``shimgen build`` records into it and ``shimgen run`` builds into it on first use."""
    import os

    from shimgen.builder.runtime_cache import CACHE_ENV

    saved = {name: os.environ.get(name) for name in (CACHE_ENV, "SHIMGEN_RUNTIME")}
    root = tmp_path_factory.mktemp("runtime-cache")
    os.environ[CACHE_ENV] = str(root)
    os.environ.pop("SHIMGEN_RUNTIME", None)  # a developer's own setting would bypass the cache
    yield root
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


TESTS_OPTION = "SHIMGEN_RUNTIME_BUILD_TESTS"


@dataclass(frozen=True)
class BuiltRuntime:
    library: Path
    build_dir: Path
    project: Path
    """The directory `shimgen build` ran in."""
    stdout: str


@pytest.fixture(scope="session")
def cpu_runtime(tmp_path_factory, private_runtime_cache) -> BuiltRuntime:
    """The bundled runtime without CUDA, built once per session as a user builds it: `shimgen build`
    run in a directory of its own (so it is recorded in the session's runtime cache). Every test
    that only needs *a* CPU runtime shares this one build (about a minute and a half on 2 cores).

    It also builds the native test programs (SHIMGEN_RUNTIME_BUILD_TESTS=ON adds targets beside the
    library and leaves the library as it is), so that ``cpu_runtime_with_tests`` costs no second
    whole-runtime build: about 80 s of CI's time."""
    from shimgen.builder.builder import read_artifacts
    from tests.support import run_shimgen

    project = tmp_path_factory.mktemp("user-dir")
    completed = run_shimgen("build", "--cuda", "off", "-j", "2", "-D", f"{TESTS_OPTION}=ON", cwd=project, timeout=1200)
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    build_dir = project / "build" / "shimgen"
    return BuiltRuntime(read_artifacts(build_dir)[0], build_dir, project, completed.stdout)


@pytest.fixture(scope="session")
def cpu_runtime_with_tests(cpu_runtime):
    """The bundled runtime without CUDA and with its native test programs (their paths in
    shimgen-tests.txt) for every test that drives those programs (test_runtime.py,
    test_aoti_zoo.py): ``cpu_runtime``'s build, read back through the build API with the options
    it was built with. A BuildResult; nothing is rebuilt or reconfigured."""
    from shimgen.builder.builder import BuildOptions, build
    from shimgen.project.config import load_config
    from shimgen.resources import default_config

    result = build(load_config(default_config()),
                   BuildOptions(cpu_runtime.build_dir, cuda="off", jobs=2, cache=((TESTS_OPTION, "ON"),)))
    assert result.check.exit_code == 0, result.check.text
    assert not result.configured and not result.generated_changed, "cpu_runtime's build was not reused"
    return result
