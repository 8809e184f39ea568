"""Hostile .pt2 packages built here: a package is data, so nothing in it runs and nothing it names is
written outside the outputs (issue 19, items 1 and 5)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CC = shutil.which("gcc") or shutil.which("cc")
pytestmark = pytest.mark.skipif(CC is None or shutil.which("g++") is None, reason="needs gcc and g++")
MODEL_DIR = "m/data/aotinductor/model"


def _shimgen(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shimgen", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=_env())


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    env.pop("CXX", None)
    return env


@pytest.fixture(scope="module")
def model_so(tmp_path_factory) -> bytes:
    """A real shared library standing in for the model .so (its constants are read before any compile)."""
    tmp = tmp_path_factory.mktemp("so")
    (tmp / "m.c").write_text("int model_entry(void) { return 1; }\n")
    subprocess.run([CC, "-shared", "-fPIC", str(tmp / "m.c"), "-o", str(tmp / "m.so")], check=True)
    return (tmp / "m.so").read_bytes()


def _package(path: Path, so: bytes, comment: str) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{MODEL_DIR}/m.wrapper.so", so)
        archive.writestr(f"{MODEL_DIR}/m.wrapper.cpp", f"int x;\n// {comment}\n")
    return path


@pytest.mark.parametrize("comment, compiler", [
    ("bash -ec 'touch {marker}' x.cpp -c -o x.o", None),
    ("g++ x.cpp -wrapper sh,-c,'touch {marker}' -c -o x.o", "g++"),
    ("sh -c 'touch {marker}' x.cpp -c -o x.o", "g++"),
    ("g++ x.cpp '-fplugin={marker}.so' -c -o x.o", None),
])
def test_recompile_runs_nothing_the_package_says(tmp_path, model_so, comment, compiler):
    marker = tmp_path / "marker"
    package = _package(tmp_path / "evil.pt2", model_so, comment.format(marker=marker))
    args = ["recompile", str(package), "-o", str(tmp_path / "out.so")] + (["--compiler", compiler] if compiler else [])
    done = _shimgen(*args)
    assert not marker.exists(), "the package's command ran"
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("shimgen: error:") and "allow-list" in lines[0], done.stderr
    assert not (tmp_path / "out.so").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evil.pt2"]  # no scratch left behind


CONSUMER = """
#include <stdint.h>
typedef void* AtenTensorHandle;
int32_t aoti_torch_get_dim(AtenTensorHandle, int64_t*);
int64_t consumer_dim(AtenTensorHandle t) { int64_t d = -1; aoti_torch_get_dim(t, &d); return d; }
"""


@pytest.fixture(scope="module")
def consumer(tmp_path_factory) -> tuple[bytes, Path]:
    """A .so importing one shim, and a config that provides it: what prefix-imports accepts."""
    tmp = tmp_path_factory.mktemp("consumer")
    (tmp / "c.c").write_text(CONSUMER)
    subprocess.run([CC, "-shared", "-fPIC", str(tmp / "c.c"), "-o", str(tmp / "c.so")], check=True)
    config = tmp / "shimgen.toml"
    config.write_text('prefix = "executorch_"\nsymbols = ["aoti_torch_get_dim"]\n')
    return (tmp / "c.so").read_bytes(), config


def _zip(path: Path, members: list[tuple[str, bytes]]) -> Path:
    import warnings

    with warnings.catch_warnings(), zipfile.ZipFile(path, "w") as archive:
        warnings.simplefilter("ignore")  # "Duplicate name": the point of one case
        for name, data in members:
            archive.writestr(zipfile.ZipInfo(name), data)
    return path


@pytest.mark.parametrize("command", ["prefix-imports", "recompile"])
@pytest.mark.parametrize("extra, message", [
    (("../../escaped.txt", b"x"), "climbs out of the archive"),
    (("/tmp/absolute.txt", b"x"), "is absolute"),
    ((f"{MODEL_DIR}/m.wrapper.so", b"second copy"), "appears twice"),
])
def test_hostile_member_names_are_refused(tmp_path, consumer, command, extra, message):
    so, config = consumer
    work = tmp_path / "work"
    work.mkdir()
    package = _zip(work / "evil.pt2", [(f"{MODEL_DIR}/m.wrapper.so", so),
                                       (f"{MODEL_DIR}/m.wrapper.cpp", b"int x;\n// g++ x.cpp -c -o x.o\n"), extra])
    done = _shimgen(command, str(package), "-o", str(work / "out.pt2"), "-c", str(config))
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "evil.pt2" in lines[0], done.stderr
    assert sorted(p.name for p in work.iterdir()) == ["evil.pt2"]
    assert not (tmp_path / "escaped.txt").exists()


def _with_declared_size(path: Path, member: str, size: int) -> None:
    """Patch a member's declared uncompressed size in both its local and central headers: what a
    hostile package claims, cheaply (the data is never read that far)."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
    data[info.header_offset + 22:info.header_offset + 26] = size.to_bytes(4, "little")
    central = [i for i in range(len(data)) if data[i:i + 4] == b"PK\x01\x02"]
    for offset in central:
        name_length = int.from_bytes(data[offset + 28:offset + 30], "little")
        if data[offset + 46:offset + 46 + name_length].decode() == member:
            data[offset + 24:offset + 28] = size.to_bytes(4, "little")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("command", ["prefix-imports", "recompile"])
def test_a_3_gib_member_in_a_small_package_is_refused_unread(tmp_path, consumer, command):
    so, config = consumer
    package = tmp_path / "bomb.pt2"
    with zipfile.ZipFile(package, "w") as archive:
        archive.writestr(f"{MODEL_DIR}/m.wrapper.so", so)
        archive.writestr(zipfile.ZipInfo(f"{MODEL_DIR}/weights.bin"), bytes(4 << 20), zipfile.ZIP_DEFLATED)
    _with_declared_size(package, f"{MODEL_DIR}/weights.bin", 3 << 30)
    with zipfile.ZipFile(package) as archive:
        assert archive.getinfo(f"{MODEL_DIR}/weights.bin").file_size == 3 << 30
    done = _shimgen(command, str(package), "-o", str(tmp_path / "out.pt2"), "-c", str(config))
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "zip bomb" in lines[0] and "weights.bin" in lines[0], done.stderr
    assert not (tmp_path / "out.pt2").exists()


def _peak_rss_kib(*args: str) -> tuple[int, subprocess.CompletedProcess]:
    """Run shimgen in a child and return its peak resident set (KiB) as the kernel counted it."""
    code = ("import resource, subprocess, sys; "
            "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
            "sys.stderr.write(done.stderr); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(done.returncode)")
    done = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "shimgen", *args], capture_output=True,
                          text=True, timeout=120, env=_env(), cwd=REPO)
    return int(done.stdout.strip().splitlines()[-1]), done


def test_prefix_imports_streams_big_members(tmp_path, consumer):
    """A stored 128 MiB weights member is copied through, not held: the peak RSS of the run grows by
    far less than the member (reading it whole, then writing it, would add 128-256 MiB)."""
    so, config = consumer
    size = 128 << 20
    peaks = {}
    for label, weights in (("small", b"w" * 4096), ("big", os.urandom(1 << 20) * (size >> 20))):
        package = tmp_path / f"{label}.pt2"
        with zipfile.ZipFile(package, "w") as archive:
            archive.writestr(f"{MODEL_DIR}/m.wrapper.so", so)
            archive.writestr(f"{MODEL_DIR}/weights.bin", weights)
        out = tmp_path / f"{label}.out.pt2"
        peaks[label], done = _peak_rss_kib("prefix-imports", str(package), "-o", str(out), "-c", str(config))
        assert done.returncode == 0, done.stderr
        with zipfile.ZipFile(out) as archive:
            assert archive.getinfo(f"{MODEL_DIR}/weights.bin").file_size == len(weights)
            assert archive.testzip() is None
        del weights
    assert peaks["big"] - peaks["small"] < 48 * 1024, peaks


def test_a_control_character_in_a_member_name_never_reaches_the_terminal(tmp_path, consumer):
    """prefix-imports' result line names each model member: an ESC in the name (from the package)
    is printed escaped, as errors and logs are (issue 19 item 12)."""
    so, config = consumer
    package = _zip(tmp_path / "esc.pt2", [(f"{MODEL_DIR}/m\x1b[2J.wrapper.so", so)])
    done = _shimgen("prefix-imports", str(package), "-o", str(tmp_path / "out.pt2"), "-c", str(config))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr and "m\\x1b[2J.wrapper.so: renamed 1 import(s)" in done.stdout


@pytest.mark.parametrize("command", ["prefix-imports", "recompile"])
def test_the_output_never_overwrites_the_config(tmp_path, consumer, command):
    """prefix-imports c.so -o shimgen.toml -c shimgen.toml replaced the config with the model (exit 0);
    recompile checked only its output's suffix. Both refuse, by path or by link, before any work."""
    so, config = consumer
    work = tmp_path / "work"
    work.mkdir()
    (work / "m.so").write_bytes(so)
    _package(work / "m.pt2", so, "g++ x.cpp -c -o x.o")
    own = work / "shimgen.toml"
    own.write_bytes(config.read_bytes())
    (work / "config.so").symlink_to(own)
    before = own.read_bytes()
    given = work / ("m.so" if command == "prefix-imports" else "m.pt2")
    for output in (own, work / "config.so"):
        done = _shimgen(command, str(given), "-o", str(output), "-c", str(own), cwd=work)
        assert done.returncode == 2, done.stdout + done.stderr
        (line,) = done.stderr.strip().splitlines()
        assert "must not overwrite the config" in line, line
    assert own.read_bytes() == before


@pytest.mark.parametrize("command", ["prefix-imports", "recompile"])
def test_a_file_size_limit_is_named_as_a_write_error(tmp_path, consumer, command):
    """Under 'ulimit -f', copying a member out failed with "<package>(member): cannot read member: File
    too large", blaming the package; it is the write that failed. Nothing is left behind."""
    import resource

    so, config = consumer
    work = tmp_path / "work"
    work.mkdir()
    package = _package(work / "m.pt2", so + bytes(1 << 20), "g++ x.cpp -c -o x.o")
    done = subprocess.run([sys.executable, "-m", "shimgen", command, str(package), "-o", str(work / "out.pt2"),
                           "-c", str(config)], capture_output=True, text=True, timeout=120, env=_env(),
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 10, 64 << 10)))
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("shimgen: error: cannot write ") and "File too large" in line, line
    assert sorted(p.name for p in work.iterdir()) == ["m.pt2"]
