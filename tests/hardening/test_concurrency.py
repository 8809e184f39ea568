"""Two `shimgen build` runs on one build directory serialise through the directory's lock
(shimgen/builder/lock.py), a killed build never leaves the lock stale (nor free while its tools still
write), and the tree stays consistent.

The tests share one build directory, in order: a build killed mid-compile, then two builds that
contend (the first finishes the interrupted build, the second finds nothing to do). The project is a
user's C library of a few shims, each source slow enough to compile (about 2 s) that the kill lands
while compilers run: the lock does not care what is built, and the whole runtime took 2 minutes of
CI's time here for the same proof.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from shimgen.builder.builder import read_artifacts
from shimgen.builder.lock import LOCK_NAME, build_lock
from tests.support import REPO, c_project, run_shimgen

pytestmark = pytest.mark.slow

SOURCES = 6  # with -j 2, about three rounds of 2 s compiles


def _slow_source(index: int) -> str:
    """One exported shim whose body is thousands of dependent statements: seconds at -O2, the same
    on every run (no timing in the test depends on it beyond "a compiler is running")."""
    body = "\n".join(f"  s = mix(s + {i}u) ^ (s << {i % 13 + 1});" for i in range(4000))
    return ('#include "export.h"\nstatic unsigned mix(unsigned x) { return x * 2654435761u ^ (x >> 13); }\n'
            f"AOTI_SHIM_EXPORT unsigned aoti_torch_work{index}(unsigned a);\n"
            f"unsigned aoti_torch_work{index}(unsigned a) {{\n  unsigned s = a;\n{body}\n  return s;\n}}\n")


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A user's project beside its shimgen.toml: SOURCES files, one shim each."""
    names = [f"aoti_torch_work{i}" for i in range(SOURCES)]
    return c_project(tmp_path_factory.mktemp("slow") / "project", f'prefix = "lockpfx_"\nsymbols = {json.dumps(names)}\n',
                     {f"work{i}.c": _slow_source(i) for i in range(SOURCES)})


class Run:
    """A `shimgen build` in a subprocess; every output line recorded with the time it arrived."""

    def __init__(self, config: Path, build_dir: Path, *extra: str) -> None:
        self.lines: list[tuple[float, str]] = []
        self.process = subprocess.Popen(
            [sys.executable, "-m", "shimgen", "build", "-c", str(config), "--cuda", "off", "-j", "2", "-B", str(build_dir),
             *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO,
            env={**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"})
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append((time.monotonic(), line.rstrip("\n")))

    def wait_for(self, text: str, timeout: float = 120) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for at, line in list(self.lines):
                if text in line:
                    return at
            if self.process.poll() is not None and not self.reader.is_alive():
                break
            time.sleep(0.02)
        raise AssertionError(f"no line containing {text!r}:\n" + self.text())

    def finish(self, timeout: float = 300) -> int:
        code = self.process.wait(timeout=timeout)
        self.reader.join(timeout=10)
        return code

    def text(self) -> str:
        return "\n".join(line for _, line in self.lines)


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("shared-build")


def _tools_in(build_dir: Path) -> list[str]:
    """Command lines of the processes working in ``build_dir`` (cmake --build, Ninja's compilers)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if proc.name.isdigit() and str(build_dir) in cmdline:
            found.append(cmdline)
    return found


def test_killed_build_leaves_no_stale_lock(project, build_dir):
    """SIGKILL kills shimgen, not the tools it started: `cmake --build`, Ninja and the compilers carry
    on writing into the directory. They inherited the lock, so it stays held while any of them runs
    (no second build can interleave with them), and is free once the last exits: never stale."""
    from shimgen.errors import ToolError

    run = Run(project, build_dir)
    run.wait_for("[3/4] build")
    deadline = time.monotonic() + 60
    while not any("cmake" not in line for line in _tools_in(build_dir)) and time.monotonic() < deadline:
        time.sleep(0.05)  # until a compiler runs
    compiling = [line for line in _tools_in(build_dir) if "cmake" not in line]
    run.process.send_signal(signal.SIGKILL)
    assert compiling, "no compiler ran in the build directory: the kill proves nothing"
    assert run.finish() == -signal.SIGKILL
    assert (build_dir / LOCK_NAME).exists()  # the file stays; the lock went with the last holder
    try:
        with build_lock(build_dir, wait=False):
            assert _tools_in(build_dir) == []  # free only when nothing of the killed build still writes
    except ToolError:
        pass  # held: its tools still run
    with build_lock(build_dir, timeout=600):
        assert _tools_in(build_dir) == []


def test_two_builds_serialise_and_leave_a_consistent_tree(project, build_dir):
    # Hold the lock here first, so both builds are certain to find it taken; then let them race.
    with build_lock(build_dir, wait=False):
        first, second = Run(project, build_dir), Run(project, build_dir)
        for run in (first, second):
            run.wait_for("waiting for another shimgen build in")
        time.sleep(0.3)
        assert not any("[1/4]" in line for run in (first, second) for _, line in run.lines)  # nothing done yet
    assert first.finish() == 0, first.text()
    assert second.finish() == 0, second.text()

    # The two runs never overlapped: the winner's last locked step came before the loser's first.
    # (The summary is printed after the lock is released, so it may interleave; that is fine.)
    (_start_a, winner), (start_b, loser) = sorted(((run.wait_for("[1/4] generate"), run) for run in (first, second)),
                                                 key=lambda pair: pair[0])
    assert winner.wait_for("[4/4] check-symbols") <= start_b, (winner.text(), loser.text())
    # The loser found the tree complete: nothing to regenerate, configure or rebuild.
    assert "wrote" not in loser.text() and "configure: up to date" in loser.text(), loser.text()
    assert "no work to do" in loser.text(), loser.text()
    for run in (first, second):
        assert "check-symbols: passed" in run.text(), run.text()
        assert f"{SOURCES}/{SOURCES} prefixed shims exported" in run.text(), run.text()

    # The tree is whole: generated files match the config, and the library checks clean.
    check = run_shimgen("generate", "--check", "-c", project, "-o", build_dir / "generated")
    assert check.returncode == 0, check.stdout + check.stderr
    (library,) = read_artifacts(build_dir)
    checked = run_shimgen("check-symbols", library, "--manifest", build_dir / "generated" / "manifest.json")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_no_wait_fails_clearly_and_touches_nothing(project, build_dir):
    stamp = {p: p.stat().st_mtime_ns for p in (build_dir / "generated").iterdir()}
    with build_lock(build_dir, wait=False):
        result = run_shimgen("build", "-c", project, "--cuda", "off", "-B", build_dir, "--no-wait", cwd=REPO)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "another shimgen build is running in" in lines[0] and str(build_dir) in lines[0]
    assert "Traceback" not in result.stderr and "[1/4]" not in result.stdout
    assert {p: p.stat().st_mtime_ns for p in (build_dir / "generated").iterdir()} == stamp


def test_lock_wait_gives_up_after_its_timeout(tmp_path, caplog):
    import logging

    from shimgen.errors import ToolError

    with caplog.at_level(logging.INFO, logger="shimgen"), build_lock(tmp_path, wait=False):  # noqa: SIM117 (the comment needs its own line)
        # flock locks belong to the open file description: a second open in this process contends too.
        with pytest.raises(ToolError, match=r"gave up after 0\.3 s waiting for another shimgen build"):
            with build_lock(tmp_path, timeout=0.3):
                pass
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("shimgen")]
    assert messages == [f"waiting for another shimgen build in {tmp_path} to finish (lock {tmp_path / LOCK_NAME})"]


def test_unwritable_build_directory_is_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = run_shimgen("build", "--cuda", "off", "-B", blocker / "sub", cwd=REPO)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot create the build lock" in lines[0], result.stderr


@pytest.mark.parametrize("kind", ["symlink", "hardlink", "fifo"])
def test_planted_lock_file_is_refused_and_its_target_untouched(tmp_path, kind):
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    build = tmp_path / "build"
    build.mkdir()
    lock = build / LOCK_NAME
    {"symlink": lambda: lock.symlink_to(target), "hardlink": lambda: os.link(target, lock),
     "fifo": lambda: os.mkfifo(lock)}[kind]()
    result = run_shimgen("build", "--cuda", "off", "-B", build, "--no-wait", cwd=REPO, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and str(lock) in lines[0] and "remove it" in lines[0], result.stderr
    assert target.read_text() == "keep me\n"
    assert sorted(p.name for p in build.iterdir()) == [LOCK_NAME]  # nothing configured, nothing built
