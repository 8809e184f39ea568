"""`shimgen run` finds the runtime built for the active config from any directory (issue 12).

The runtime cache (shimgen/build/runtime_cache.py) is keyed by the config; `shimgen build` records
its runtime there and `shimgen run` builds one into it on first use. Two real runtime builds in all:
the session's `cpu_runtime` (tests/conftest.py, shared with the AOTI tests) and one first-use build
(two processes start at once, one builds) in a cache of this module's own; the rebuilds after a
corrupted entry are incremental.
The model is a real AOTInductor model compiled by torch (tests/aoti_zoo.py, cached per user).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shimgen.build.lock import LOCK_NAME
from shimgen.build.runtime_cache import CACHE_ENV, cache_key, entry_for, read_record, write_record
from shimgen.project.config import load_config
from shimgen.resources import default_config
from tests import aoti_zoo
from tests.support import REPO, STAND_IN_RUNTIME, compile_library, run_shimgen

MODEL = "layernorm_softmax"
BUILDING = "shimgen: building the runtime for "


# ---- the key and the entry (no build) ----

def test_changed_config_content_or_cuda_gives_another_key(write_config):
    path = write_config('prefix = "acme_"\nsymbols = ["aoti_torch_x"]\n')
    first = cache_key(load_config(path), cuda=False)
    assert cache_key(load_config(path), cuda=False) == first  # stable for the same content
    assert cache_key(load_config(path), cuda=True) != first
    path.write_text('prefix = "acme_"\nsymbols = ["aoti_torch_x", "aoti_torch_y"]\n')
    assert cache_key(load_config(path), cuda=False) != first
    path.write_text('prefix = "acme_"\nsymbols = ["aoti_torch_x"]\n')
    assert cache_key(load_config(path), cuda=False) == first  # the content decides, not the mtime


def test_cache_dir_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "c"))
    entry = entry_for(load_config(default_config()), cuda=False)
    assert entry.dir.parent == (tmp_path / "c").resolve() and entry.dir.name.startswith("runtime-")


@pytest.mark.parametrize("content, why", [
    (None, "no entry"),
    ("{not json", "unreadable"),
    ('{"schema": "shimgen-runtime-cache/1", "key": "other", "library": "/x"}', "not a runtime record"),
])
def test_unusable_records_count_as_absent(tmp_path, content, why):
    entry = entry_for(load_config(default_config()), cuda=False, root=tmp_path)
    if content is not None:
        entry.dir.mkdir()
        entry.record.write_text(content)
    assert read_record(entry)[0] is None and why in read_record(entry)[1]


def test_record_of_a_deleted_library_counts_as_absent(tmp_path):
    config = load_config(default_config())
    entry = entry_for(config, cuda=False, root=tmp_path)
    library = compile_library(tmp_path, "shimgen_runtime", STAND_IN_RUNTIME)
    write_record(entry, config, library, "test")
    assert read_record(entry) == (library.resolve(), "")
    library.unlink()
    assert read_record(entry)[0] is None and "is gone" in read_record(entry)[1]


def test_unusable_cache_dir_is_one_exit_2_line(tmp_path):
    model = tmp_path / "m.pt2"
    model.write_bytes(b"PK")
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    done = run_shimgen("run", model, cwd=tmp_path, env_extra={CACHE_ENV: str(blocker)})
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot create the runtime cache" in lines[0] and CACHE_ENV in lines[0]


def test_own_cmake_project_has_no_runtime_to_build(tmp_path):
    project = tmp_path / "p"
    project.mkdir()
    (project / "shimgen.toml").write_text('prefix = "acme_"\nsymbols = ["aoti_torch_x"]\n')
    (project / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.24)\nproject(p NONE)\n")
    (project / "m.pt2").write_bytes(b"PK")
    done = run_shimgen("run", "m.pt2", cwd=project, env_extra={CACHE_ENV: str(tmp_path / "cache")})
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "builds its own CMake project" in done.stderr and "--runtime" in done.stderr
    assert not (tmp_path / "cache").exists()


def test_cuda_device_without_nvcc_is_one_exit_2_line(tmp_path, monkeypatch, run_cli):
    from shimgen.aoti import runner
    from shimgen.build import builder

    monkeypatch.setattr(builder, "find_nvcc", lambda: None)
    monkeypatch.setattr(runner, "cuda_device_count", lambda: 1)  # a GPU, but nothing to build for it
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    model = tmp_path / "m.pt2"
    model.write_bytes(b"PK")
    result = run_cli("run", model, "--device", "cuda:0")
    assert result.code == 2 and result.err.splitlines() == [
        "shimgen: error: a CUDA device needs a runtime built with CUDA, and no nvcc was found to build one: "
        "run 'shimgen build --cuda on' where nvcc is, or pass --runtime"]


# ---- real builds, a real model ----

@pytest.fixture(scope="module")
def model(tmp_path_factory) -> tuple[Path, list[Path], list[Path]]:
    """A torch-compiled model with its imports prefixed: (.pt2, inputs, eager outputs)."""
    pytest.importorskip("torch")
    directory = aoti_zoo.ensure_compiled([MODEL])[MODEL]
    target = tmp_path_factory.mktemp("model") / "model.prefixed.pt2"
    done = run_shimgen("prefix-imports", directory / "model.pt2", "-o", target)
    assert done.returncode == 0, done.stderr
    return target, aoti_zoo.inputs_of(directory), aoti_zoo.expected_of(directory)


def _run_model(model, cwd: Path, out: Path, *flags: str, env_extra: dict[str, str] | None = None):
    pt2, inputs, _ = model
    return run_shimgen(*flags, "run", pt2, *[a for p in inputs for a in ("--input", p)], "-o", out, cwd=cwd,
                       env_extra=env_extra, timeout=1200)


def _assert_outputs(model, out: Path) -> None:
    expected = model[2]
    assert expected
    for index, path in enumerate(expected):
        assert np.allclose(np.load(out / f"output_{index}.npy"), np.load(path), atol=aoti_zoo.ZOO[MODEL].atol, rtol=0)


@pytest.mark.slow
def test_build_then_run_from_another_directory(cpu_runtime, model, tmp_path):
    """`shimgen build` in one directory, `shimgen run` in another: the recorded build is used.

    A cache of the test's own (any `shimgen build` of the bundled config records into the session's
    cache; the last one wins there). The build is the session's, done again: nothing to do."""
    env = {CACHE_ENV: str(tmp_path / "cache")}
    built = run_shimgen("build", "--cuda", "off", "-j", "2", cwd=cpu_runtime.project, env_extra=env, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert "SHIMGEN_RUNTIME" not in os.environ
    done = _run_model(model, elsewhere, tmp_path / "out", "-v", env_extra=env)
    assert done.returncode == 0, done.stderr
    assert BUILDING not in done.stderr  # found, not built
    assert f"from the cache: {cpu_runtime.library.resolve()}" in done.stderr
    _assert_outputs(model, tmp_path / "out")


@pytest.mark.slow
def test_run_chooses_a_model_of_several_by_name(cpu_runtime, model, tmp_path):
    """Issue 19 item 13: a package holding two models named 'a' and 'b' (the same compiled model
    twice, with the first one's bytes spoiled so that only 'b' runs): without --model, one line that
    lists them and names the option; with --model b, the right outputs; with --model a, the loader's error."""
    import zipfile

    pt2, inputs, _ = model
    two = tmp_path / "two.pt2"
    with zipfile.ZipFile(pt2) as source, zipfile.ZipFile(two, "w", zipfile.ZIP_STORED) as target:
        for info in source.infolist():
            data = source.read(info)
            if "/data/aotinductor/model/" not in info.filename:
                target.writestr(info.filename, data)
                continue
            for name in ("a", "b"):
                spoiled = name == "a" and info.filename.endswith(".so")
                target.writestr(info.filename.replace("/aotinductor/model/", f"/aotinductor/{name}/"),
                                b"\x7fELF" + bytes(60) if spoiled else data)
    feed = [a for p in inputs for a in ("--input", p)]
    runtime = ["--runtime", str(cpu_runtime.library)]
    unnamed = run_shimgen("run", two, *feed, *runtime, "-o", tmp_path / "x", timeout=600)
    assert unnamed.returncode == 2
    (line,) = unnamed.stderr.splitlines()
    assert "the package holds: a, b" in line and "--model NAME" in line, line
    named = run_shimgen("run", two, "--model", "b", *feed, *runtime, "-o", tmp_path / "b", timeout=600)
    assert named.returncode == 0, named.stderr
    _assert_outputs(model, tmp_path / "b")
    spoiled = run_shimgen("run", two, "--model", "a", *feed, *runtime, "-o", tmp_path / "a", timeout=600)
    assert spoiled.returncode == 2 and not (tmp_path / "a").exists(), spoiled.stderr
    # A name the package does not hold is named as such (it said "choose a model by name ... pass --model").
    unknown = run_shimgen("run", two, "--model", "c", *feed, *runtime, "-o", tmp_path / "c", timeout=600)
    assert unknown.returncode == 2
    (line,) = unknown.stderr.splitlines()
    assert "no model named 'c'; the package holds: a, b" in line and "--model NAME" not in line, line


@pytest.fixture(scope="module")
def first_use(model, tmp_path_factory) -> tuple[Path, list[subprocess.CompletedProcess]]:
    """Two `shimgen run` started at once on an empty cache: the one costly step of this module.
    One builds the runtime into the cache; the other waits for the entry's lock and uses it."""
    cache = tmp_path_factory.mktemp("first-use-cache")
    pt2, inputs, _ = model
    runs = []
    for index in range(2):
        cwd = tmp_path_factory.mktemp(f"first-use-cwd{index}")
        command = [sys.executable, "-m", "shimgen", "run", str(pt2), *[a for p in inputs for a in ("--input", str(p))],
                   "-o", str(cwd / "out")]
        runs.append((command, cwd, subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                                    text=True, env={**os.environ, "PYTHONPATH": str(REPO),
                                                                    CACHE_ENV: str(cache)})))
    done = []
    for command, _cwd, process in runs:
        stdout, stderr = process.communicate(timeout=1200)
        done.append(subprocess.CompletedProcess(command, process.returncode, stdout, stderr))
    return cache, done


@pytest.mark.slow
def test_first_use_builds_into_the_cache_once_with_one_progress_line(first_use, model):
    cache, done = first_use
    assert all(d.returncode == 0 for d in done), [d.stderr[-3000:] for d in done]
    config = load_config(default_config())
    entry = entry_for(config, cuda=False, root=cache)
    line = f"{BUILDING}{config.path} into {entry.build_dir} (first use) ..."
    builders = [d for d in done if line in d.stderr.splitlines()]
    assert len(builders) == 1, [d.stderr for d in done]  # built once, under the entry's lock
    assert builders[0].stderr.splitlines() == [line]
    (other,) = [d for d in done if d is not builders[0]]
    assert set(other.stderr.splitlines()) <= {f"shimgen: waiting for another shimgen build in {entry.dir} to finish "
                                              f"(lock {entry.dir / LOCK_NAME})"}, other.stderr
    for d in done:
        assert "wrote " in d.stdout and "RUN:" not in d.stdout + d.stderr  # the tools' output is captured
        _assert_outputs(model, Path(d.args[d.args.index("-o") + 1]))
    assert read_record(entry)[0] == (entry.build_dir / "libshimgen_runtime.so").resolve()


@pytest.mark.slow
def test_second_run_uses_the_cache_entry(first_use, model, tmp_path):
    cache, _ = first_use
    done = _run_model(model, tmp_path, tmp_path / "out", env_extra={CACHE_ENV: str(cache)})
    assert done.returncode == 0 and done.stderr == "", done.stderr
    _assert_outputs(model, tmp_path / "out")


@pytest.mark.slow
def test_corrupt_entry_is_rebuilt_and_verbosity_flags(first_use, model, tmp_path):
    cache, _ = first_use
    entry = entry_for(load_config(default_config()), cuda=False, root=cache)
    env = {CACHE_ENV: str(cache)}

    entry.record.write_text("garbage")
    done = _run_model(model, tmp_path, tmp_path / "a", env_extra=env)
    assert done.returncode == 0, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(BUILDING) and "(rebuilding: unreadable" in line
    _assert_outputs(model, tmp_path / "a")

    entry.record.write_text("garbage")
    quiet = _run_model(model, tmp_path, tmp_path / "b", "-q", env_extra=env)
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr  # -q: no progress line

    entry.record.write_text("garbage")
    verbose = _run_model(model, tmp_path, tmp_path / "c", "-v", env_extra=env)
    assert verbose.returncode == 0, verbose.stderr
    runs = [line for line in verbose.stderr.splitlines() if line.startswith("shimgen: RUN: ")]
    assert any(" --build " in line and "cmake" in line for line in runs), verbose.stderr  # -v: each command
    assert read_record(entry)[0] is not None


@pytest.mark.slow
def test_truncated_library_in_the_entry_is_relinked(first_use, model, tmp_path):
    """Issue 19 item 10: the entry's library cut short (a full disk, a killed link) was SIGBUS in
    run, and Ninja would never relink it. Now it is read before loading, deleted, and relinked."""
    cache, _ = first_use
    entry = entry_for(load_config(default_config()), cuda=False, root=cache)
    library = read_record(entry)[0]
    assert library is not None and library.resolve().is_relative_to(entry.build_dir.resolve())
    library.write_bytes(library.read_bytes()[: library.stat().st_size // 2])
    done = _run_model(model, tmp_path, tmp_path / "a", env_extra={CACHE_ENV: str(cache)})
    assert done.returncode == 0, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(BUILDING) and "truncated" in line, line
    _assert_outputs(model, tmp_path / "a")
    assert read_record(entry) == (library.resolve(), "")


# ---- shimgen build -v / -q ----

@pytest.mark.slow
@pytest.mark.parametrize("flag", ["-v", "-q"])
def test_build_verbosity(cpu_runtime, flag):
    """Against the session's build directory: a no-op rebuild, still every step."""
    args = ["build", "--cuda", "off", "-j", "2", "-B", cpu_runtime.build_dir]
    done = run_shimgen(*([flag, *args] if flag == "-v" else [*args, flag]), cwd=cpu_runtime.project, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "check-symbols: passed" in done.stdout  # the result is always printed
    if flag == "-v":
        runs = [line for line in done.stderr.splitlines() if line.startswith("shimgen: RUN: ")]
        assert any(" --build " in line for line in runs) and "shimgen: [3/4] build" in done.stderr, done.stderr
    else:
        assert done.stderr == "" and "[1/4]" not in done.stdout and "ninja" not in done.stdout, done.stdout


@pytest.mark.slow
def test_unwritable_cache_does_not_fail_a_build(cpu_runtime, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    done = run_shimgen("build", "--cuda", "off", "-B", cpu_runtime.build_dir, cwd=cpu_runtime.project,
                       env_extra={CACHE_ENV: str(blocker)}, timeout=600)
    assert done.returncode == 0 and "check-symbols: passed" in done.stdout, done.stdout + done.stderr
    (line,) = [line for line in done.stderr.splitlines() if "warning" in line]  # beside the build's progress
    assert line.startswith("shimgen: warning: cannot write the runtime cache entry") and "--runtime" in line


NOISY_MODEL = r"""
#include <stdio.h>
#include <stddef.h>
static int container;
int AOTInductorModelContainerCreateWithDevice(void** c, size_t n, const char* d, const char* dir) {
    (void)n, (void)d, (void)dir;
    fprintf(stderr, "Error: %d \x1b[2J cleared\n", FAIL_OPEN);
    *c = &container;
    return FAIL_OPEN;
}
int AOTInductorModelContainerDelete(void* c) { (void)c; return 0; }
int AOTInductorModelContainerRun(void* c, void** i, size_t ni, void** o, size_t no, void* s, void* p) {
    (void)c, (void)i, (void)ni, (void)o, (void)no, (void)s, (void)p;
    fprintf(stderr, "Error: the run went wrong\n");
    return 1;
}
int AOTInductorModelContainerGetNumInputs(void* c, size_t* n) { (void)c; *n = 0; return 0; }
int AOTInductorModelContainerGetNumOutputs(void* c, size_t* n) { (void)c; *n = 0; return 0; }
"""


@pytest.mark.slow
@pytest.mark.parametrize("fail_open", [1, 0])
def test_model_output_comes_after_shimgen_line_escaped(cpu_runtime, tmp_path, fail_open):
    """Issue 19 item 12: what a model's C++ prints to stderr (AOTInductor's "Error: ..." lines)
    follows shimgen's own line, one problem a line, escaped; it never reaches the terminal first."""
    from tests.support import compile_library

    model = compile_library(tmp_path, "noisy", NOISY_MODEL, f"-DFAIL_OPEN={fail_open}")
    done = run_shimgen("run", model, "--runtime", cpu_runtime.library, "-o", tmp_path / "out", timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert "\x1b" not in done.stderr, lines
    if fail_open:
        assert len(lines) == 2 and "creating the model container failed" in lines[0], lines
        assert lines[1] == "shimgen: error: the model printed: Error: 1 \\x1b[2J cleared", lines
    else:  # the open's own line (it succeeded) is shown as progress; the failed run's after shimgen's
        assert len(lines) == 3 and lines[0] == "shimgen: the model printed: Error: 0 \\x1b[2J cleared", lines
        assert lines[1].startswith("shimgen: error: ") and "the model printed" not in lines[1], lines
        assert lines[2] == "shimgen: error: the model printed: Error: the run went wrong", lines
