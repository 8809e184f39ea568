"""Wheels are read by the bytes they make us produce, not refused by a compression ratio.

A valid library that is mostly NUL padding (what patchelf leaves, what a 2 MiB max-page-size
gives) compresses beyond any ratio worth a limit; it must be read as its unzipped copy is. A bomb
is still refused, by the caps on produced bytes, even when its header lies about its size.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest

from shimgen.binary.load import Limits, load_paths
from shimgen.check import Policy, check_paths
from shimgen.errors import InputError

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not installed")

POLICY = Policy.from_options("executorch_", ("aoti_torch_*",))
SOURCE = "int aoti_torch_a(void) { return 1; }\nint executorch_aoti_torch_b(void) { return 2; }\n"


def padded_library(d: Path) -> Path:
    """A valid shared library of ~6 MB that is almost all NUL: segments aligned to 2 MiB."""
    (d / "pad.c").write_text(SOURCE)
    library = d / "libpad.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wl,-z,max-page-size=0x200000", "-Wl,-z,separate-code",
                    "-o", str(library), str(d / "pad.c")], check=True, capture_output=True)
    return library


def wheel_of(d: Path, members: dict[str, bytes]) -> Path:
    wheel = d / "pkg-1.0-cp311-cp311-linux_x86_64.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return wheel


def test_a_nul_padded_library_is_read_as_its_unzipped_copy(tmp_path):
    library = padded_library(tmp_path)
    data = library.read_bytes()
    ratio = len(data) / len(zlib.compress(data, 9))
    assert len(data) > 4 << 20 and ratio > 224, (len(data), ratio)  # beyond pillow's libXau (224)
    wheel = wheel_of(tmp_path, {"pkg/__init__.py": b"", "pkg/libpad.so": data})
    from_wheel = check_paths([wheel], POLICY)
    from_file = check_paths([library], POLICY)
    assert [(f.code, f.symbol) for f in from_wheel.findings] == [(f.code, f.symbol) for f in from_file.findings] \
        == [("SG001", "aoti_torch_a")]
    (summary,) = from_wheel.files
    assert summary.member == "pkg/libpad.so" and summary.exports == from_file.files[0].exports
    nm = subprocess.run(["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True)
    assert summary.exports == len(nm.stdout.splitlines())


def test_the_cap_on_one_member_counts_produced_bytes(tmp_path):
    """The same padded library under a 1 MiB member cap: refused while decompressing, and the
    refusal names the member; with the header's size made to lie (4 KiB), refused all the same."""
    data = padded_library(tmp_path).read_bytes()
    wheel = wheel_of(tmp_path, {"pkg/libpad.so": data})
    with pytest.raises(InputError, match=r"\(pkg/libpad\.so\): member .*limit of 1048576"):
        load_paths([wheel], limits=Limits(member_bytes=1 << 20))
    liar = tmp_path / "liar.whl"
    body = bytearray(wheel.read_bytes())
    for signature, at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):  # uncompressed size, both headers
        where = body.find(signature) + at
        body[where:where + 4] = (4096).to_bytes(4, "little")
    liar.write_bytes(bytes(body))
    with pytest.raises(InputError, match=r"pkg/libpad\.so"):
        load_paths([liar], limits=Limits(member_bytes=1 << 20))
    # Without a cap in the way the lie still ends in an error (a CRC or size mismatch), never a pass.
    with pytest.raises(InputError):
        load_paths([liar])


def test_the_cap_on_the_whole_zip_counts_produced_bytes(tmp_path):
    data = padded_library(tmp_path).read_bytes()
    wheel = wheel_of(tmp_path, {f"pkg/lib{i}.so": data for i in range(3)})
    assert len(load_paths([wheel])) == 3
    with pytest.raises(InputError, match=r"members add up to more than the limit"):
        load_paths([wheel], limits=Limits(total_bytes=2 * len(data)))


def test_no_temporary_file_outlives_the_check(tmp_path, monkeypatch):
    import tempfile

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    data = padded_library(tmp_path).read_bytes()
    assert len(data) > 4 << 20  # over the in-memory threshold: streamed to a temporary file
    good = wheel_of(tmp_path, {"pkg/liba.so": data, "pkg/libb.so": data})
    assert len(load_paths([good])) == 2
    bad = tmp_path / "bad.whl"
    with zipfile.ZipFile(bad, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("pkg/liba.so", data)
        archive.writestr("pkg/libb.so", data[: len(data) // 2])  # cut: an error in the middle of the set
    with pytest.raises(InputError, match=r"libb\.so"):
        load_paths([bad])
    assert list(scratch.iterdir()) == []


def test_the_default_caps_agree():
    """check-symbols starts a wheel's decompression with zipread's DEFAULT_CAPS before the loader is
    imported; the loader takes that stream only under equal caps (else it starts over)."""
    from shimgen.binary.load import DEFAULT_LIMITS
    from shimgen.binary.zipread import DEFAULT_CAPS

    assert (DEFAULT_CAPS.members, DEFAULT_CAPS.member_bytes, DEFAULT_CAPS.total_bytes) == \
        (DEFAULT_LIMITS.zip_members, DEFAULT_LIMITS.member_bytes, DEFAULT_LIMITS.total_bytes)


def test_a_wheel_started_early_is_read_once_and_cleaned_up(tmp_path, monkeypatch, capsys):
    """The CLI starts decompressing a wheel before importing the checker: the loader takes that
    stream (no second decompression), the report is the one of a plain load, and no stream,
    thread or temporary file outlives the command, also when a later PATH is bad input."""
    import tempfile
    import threading

    from shimgen.binary import zipread
    from shimgen.cli import main

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    data = padded_library(tmp_path).read_bytes()
    wheel = wheel_of(tmp_path, {"pkg/liba.so": data, "pkg/libb.so": data, "pkg/x.py": b""})
    made = []
    original = zipread.MemberStream.__init__

    def counting(self, *args, **kwargs):
        made.append(args[0])
        original(self, *args, **kwargs)

    monkeypatch.setattr(zipread.MemberStream, "__init__", counting)
    assert main(["check-symbols", str(wheel), "--prefix", "p_", "--format", "json"]) == 1
    assert made == [str(wheel)]  # started once, by the CLI, and taken by the loader
    assert '"SG001"' in capsys.readouterr().out
    (tmp_path / "bad.so").write_bytes(b"\x7fELF")
    assert main(["check-symbols", str(wheel), str(tmp_path / "bad.so"), "--prefix", "p_"]) == 2
    assert "bad.so" in capsys.readouterr().err
    assert zipread._STARTED == {}
    assert list(scratch.iterdir()) == []
    assert not [t for t in threading.enumerate() if t.name.startswith("shimgen-zip")]


@pytest.mark.slow
def test_pillow_13_wheel_is_read(pytestconfig, tmp_path_factory):
    """The wheel that was refused: pillow 13.0.0's libXau member has ratio 224."""
    store = getattr(pytestconfig, "cache", None)
    cache = Path(store.mkdir("shimgen-wheels")) if store is not None else tmp_path_factory.mktemp("wheels")
    wheels = sorted(cache.glob("pillow-13.0.0-cp311-*manylinux*x86_64*.whl"))
    if not wheels:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--no-deps",
                               "--disable-pip-version-check", "--python-version", "3.11", "--implementation", "cp",
                               "--platform", "manylinux_2_28_x86_64", "-d", str(cache), "pillow==13.0.0"],
                              capture_output=True, text=True, timeout=300, check=False)
        wheels = sorted(cache.glob("pillow-13.0.0-cp311-*manylinux*x86_64*.whl"))
        if done.returncode != 0 or not wheels:
            pytest.skip(f"cannot download pillow 13.0.0 (offline?): {done.stderr.strip()[-300:]}")
    with zipfile.ZipFile(wheels[0]) as archive:
        ratios = {i.filename: i.file_size / i.compress_size for i in archive.infolist() if "libXau" in i.filename}
    assert ratios and max(ratios.values()) > 200, ratios
    report = check_paths([wheels[0]], Policy.from_options("p_", ()))
    assert any("libXau" in (s.member or "") for s in report.files)
    assert report.exit_code == 0


@pytest.mark.skipif(shutil.which("unzip") is None or shutil.which("nm") is None, reason="needs unzip and nm")
def test_the_wheel_benchmark_runs_in_its_tiny_mode():
    """benchmarks/check_wheels.py on a synthetic wheel: one row with both readers measured, its
    ratios, and shimgen's exit status (1: the wheel exports a plain shim)."""
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "check_wheels.py"
    done = subprocess.run([sys.executable, str(script), "--tiny"], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = [line for line in done.stdout.splitlines() if line.startswith("tiny-1.0")]
    fields = row.split()
    assert fields[2] == "2" and fields[-1] == "1", row  # two ELF members; shimgen found the plain shim
    assert float(fields[5]) > 0 and float(fields[9]) > 0, row  # wall and RSS ratios
    assert "worst:" in done.stdout
