"""A runtime is read before it is loaded (issue 19 item 10): a truncated, empty, garbage, foreign or
sanitizer-built library given with --runtime is refused with one line naming it; one in the cache is
rebuilt (and one of the cache's own build is deleted first, so Ninja relinks it and the cache heals).

The libraries are compiled here with gcc: a stand-in that exports the runtime's identifying C API
(enough for the reader; it is never loaded), the same with -fsanitize=address, and a library that
is not the runtime. The rebuild of a real cache entry is in test_runtime_cache.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from shimgen.binary.runtime_library import runtime_problem
from shimgen.builder.runtime_cache import CACHE_ENV, _discard_unusable, entry_for, read_record, write_record
from shimgen.project.config import load_config
from shimgen.resources import default_config
from tests.support import STAND_IN_RUNTIME, compile_library, run_shimgen

OTHER = "int not_the_runtime(int x) { return x + 1; }\n"


@pytest.fixture
def stand_in(tmp_path) -> Path:
    return compile_library(tmp_path, "stand_in", STAND_IN_RUNTIME)


def _truncated(library: Path, keep: int) -> Path:
    cut = library.with_name(f"cut{keep}-{library.name}")
    cut.write_bytes(library.read_bytes()[:keep])
    return cut


def test_the_stand_in_reads_as_a_runtime(stand_in):
    assert runtime_problem(stand_in) is None  # the control every refusal below is measured against


@pytest.mark.parametrize("damage, expected", [
    ("half", "truncated"),
    ("empty", "empty file"),
    ("garbage", "not a binary"),
    ("header-only", "truncated"),
])
def test_damaged_library_is_refused_by_reading(stand_in, damage, expected):
    data = stand_in.read_bytes()
    bad = stand_in.with_name(f"{damage}.so")
    bad.write_bytes({"half": data[: len(data) // 2], "empty": b"", "garbage": b"garbage " * 300,
                     "header-only": data[:64]}[damage])
    problem = runtime_problem(bad)
    assert problem is not None and problem.startswith(str(bad)) and expected in problem, problem


def test_foreign_and_sanitized_libraries_are_refused(tmp_path):
    other = compile_library(tmp_path, "other", OTHER)
    assert "not shimgen's runtime (it does not export shimgen_model_open)" in runtime_problem(other)
    try:
        sanitized = compile_library(tmp_path, "asan", STAND_IN_RUNTIME, "-fsanitize=address")
    except subprocess.CalledProcessError:
        pytest.skip("gcc here cannot build with -fsanitize=address")
    problem = runtime_problem(sanitized)
    assert problem is not None and "sanitizer (libasan." in problem, problem


@pytest.mark.parametrize("how", ["--runtime", "env"])
def test_run_refuses_a_truncated_runtime_in_one_line(stand_in, tmp_path, how):
    cut = _truncated(stand_in, stand_in.stat().st_size // 2)
    model = tmp_path / "m.pt2"
    model.write_bytes(b"PK")
    args = ["run", model, *(["--runtime", cut] if how == "--runtime" else [])]
    done = run_shimgen(*args, cwd=tmp_path, env_extra={"SHIMGEN_RUNTIME": str(cut)} if how == "env" else None)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"shimgen: error: {cut}: truncated") and "delete or rebuild it" in line, line
    assert ("--runtime" if how == "--runtime" else "$SHIMGEN_RUNTIME") in line


def test_cache_record_of_an_unusable_library_counts_as_absent(stand_in, tmp_path):
    config = load_config(default_config())
    entry = entry_for(config, cuda=False, root=tmp_path / "cache")
    write_record(entry, config, stand_in, "test")
    assert read_record(entry) == (stand_in.resolve(), "")
    stand_in.write_bytes(stand_in.read_bytes()[:100])
    library, why = read_record(entry)
    assert library is None and why.startswith(str(stand_in.resolve())) and "truncated" in why


def test_unusable_library_of_the_entry_is_deleted_before_a_rebuild_and_nothing_outside(stand_in, tmp_path):
    config = load_config(default_config())
    entry = entry_for(config, cuda=False, root=tmp_path / "cache")
    entry.build_dir.mkdir(parents=True)
    inside = entry.build_dir / "libshimgen_runtime.so"
    inside.write_bytes(b"")  # as a full disk or a killed link leaves it: Ninja would not relink it
    write_record(entry, config, inside, "first use")
    _discard_unusable(entry)
    assert not inside.exists()

    outside = _truncated(stand_in, 200)  # a user's build directory: reported, never deleted
    write_record(entry, config, outside, "shimgen build")
    _discard_unusable(entry)
    assert outside.exists()

    good = entry.build_dir / "libgood.so"
    good.write_bytes(stand_in.read_bytes())
    entry.record.write_text(json.dumps({**json.loads(entry.record.read_text()), "library": str(good)}))
    _discard_unusable(entry)
    assert good.exists()  # a usable library is never removed


def test_sanitized_build_forgets_the_record_of_its_library(stand_in, tmp_path, monkeypatch):
    from shimgen.builder import runtime_cache
    from shimgen.builder.builder import BuildOptions

    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    config = load_config(default_config())
    entry = entry_for(config, cuda=False)
    write_record(entry, config, stand_in, "shimgen build")

    result: Any = SimpleNamespace(cuda=False, artifacts=[SimpleNamespace(path=stand_in)],
                                  check=SimpleNamespace(exit_code=0))  # what record_build reads
    unsanitized = runtime_cache.record_build(config, BuildOptions(tmp_path / "b"), result)
    assert unsanitized is not None and entry.record.exists()
    sanitized = runtime_cache.record_build(config, BuildOptions(tmp_path / "b", sanitize=("address",)), result)
    assert sanitized is None and not entry.record.exists()
