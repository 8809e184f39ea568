"""``shimgen recompile`` of a real model whose weights AOTInductor appended to the .so.

AOTInductor, for weights over 2 GB or with ``aot_inductor.force_mmap_weights``, appends the weights
after the model .so's ELF image, 16 KiB-aligned, and the model (``-DUSE_MMAP_SELF``) maps them by
their distance from the end of its file (shimgen/aoti/overlay.py). A relinked .so has no such
overlay until recompile appends the original's again: the model below runs on the runtime and
matches eager only with it, and fails to open without it or 4 KiB off the boundary (the negative
controls). A package whose overlay is not where its constants blob says is refused in one line.

Its sibling ``blob_weights`` keeps its weights beside the .so instead
(``package_constants_on_disk_format="binary_blob"``: ``<so>_weights.blob`` in the package): the
loader copies them into the model through ``AOTInductorModelUpdateConstantsFromBlob``, and refuses a
package whose blob is missing or shorter than the model's constants.
"""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from shimgen.aoti.overlay import OVERLAY_ALIGN
from shimgen.binary.elf import image_end

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from aoti_models import MMAP_MODELS  # noqa: E402

from tests.aoti_helpers import DEFAULT_CONFIG, PREFIX, blob_member, with_blob  # noqa: E402
from tests.support import run_shimgen  # noqa: E402

NAME = "mmap_weights"
BLOB = "blob_weights"


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    """The models compiled with force_mmap_weights and with a weights blob (about 120 s on a fresh
    cache, 2 cores)."""
    out = tmp_path_factory.mktemp("aoti-mmap")
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(out / "inductor-cache")}
    done = subprocess.run([sys.executable, str(REPO / "tests" / "aoti_models.py"), "compile", str(out), NAME, BLOB],
                          capture_output=True, text=True, env=env, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def recompiled(model) -> Path:
    out = model / f"{NAME}.recompiled.pt2"
    done = run_shimgen("recompile", model / f"{NAME}.pt2", "-o", out, "-c", DEFAULT_CONFIG, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _member(package: Path) -> tuple[str, bytes]:
    with zipfile.ZipFile(package) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".so")]
        return name, archive.read(name)


def _with_so(package: Path, so: bytes, target: Path) -> Path:
    """``package`` with its model .so's bytes replaced, stored as torch stores it."""
    name, _ = _member(package)
    with zipfile.ZipFile(package) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            new.writestr(info, so if info.filename == name else old.read(info))
    return target


def _appended(so: bytes) -> tuple[int, bytes]:
    """(size of the weights + magic as the .so's own constants blob says, the magic number bytes),
    read with LIEF from the image alone."""
    import lief

    lief.logging.disable()
    binary = lief.ELF.parse(io.BytesIO(so[: image_end_of(so)]))
    start = next(s.value for s in binary.dynamic_symbols if s.name == "_binary_constants_bin_start")
    size, magic = struct.unpack("=QQ", bytes(binary.get_content_from_virtual_address(start, 16)))
    return size, struct.pack("=Q", magic)


def image_end_of(so: bytes) -> int:
    return image_end(so, "model")


def _run(package: Path, model: Path, runtime: Path, out: Path, name: str = NAME) -> subprocess.CompletedProcess:
    inputs = [arg for i in range(json.loads((model / f"{name}.json").read_text())["inputs"])
              for arg in ("--input", str(model / f"{name}.in{i}.npy"))]
    return run_shimgen("run", package, "--runtime", runtime, "-o", out, *inputs, cwd=REPO, timeout=300)


def test_torch_appended_the_weights_after_the_image(model):
    """The premise: with force_mmap_weights the weights are not in the image but after it, 16 KiB-aligned,
    the magic number last, and the constants blob holds only their size and that number."""
    _, so = _member(model / f"{NAME}.pt2")
    end = image_end_of(so)
    size, magic = _appended(so)
    weights = sum(int(np.prod(shape)) for shape in MMAP_MODELS[NAME][0].values()) * 4
    assert size == weights + 8
    assert end < len(so) - size and (len(so) - size) % OVERLAY_ALIGN == 0
    assert so.endswith(magic)


def test_recompiled_model_keeps_its_weights_and_matches_eager(model, recompiled, cpu_runtime, tmp_path):
    _, before = _member(model / f"{NAME}.pt2")
    _, after = _member(recompiled)
    size, magic = _appended(after)
    assert (size, magic) == _appended(before)  # the constants blob, byte for byte
    # The overlay re-appended: the same bytes after the rebuilt image, at the original's offset mod 16 KiB.
    old_end, new_end = image_end_of(before), image_end_of(after)
    assert new_end != old_end, "the image was not rebuilt"
    assert after[new_end:].endswith(before[old_end:]) and (len(after) - size) % OVERLAY_ALIGN == 0
    done = _run(recompiled, model, cpu_runtime.library, tmp_path / "out")
    assert done.returncode == 0, done.stderr
    got, expected = np.load(tmp_path / "out" / "output_0.npy"), np.load(model / f"{NAME}.out0.npy")
    assert got.shape == expected.shape
    assert np.abs(got - expected).max() <= MMAP_MODELS[NAME][3]


TORCH_REFUSALS = ("Shared library file is smaller than embedded weights size",
                  "weights_offset must be aligned to 16K boundary", "Weights data seems corrupt")
"""model_base.h's checks on the appended weights, in the order it makes them."""


@pytest.mark.parametrize("layout, refusals", [
    ("none", TORCH_REFUSALS),  # what recompile wrote before it re-appended the overlay
    ("4k-off", TORCH_REFUSALS[1:2]),
])
def test_negative_control_without_the_overlay_where_torch_wants_it(model, recompiled, cpu_runtime, tmp_path,
                                                                   layout, refusals):
    """The recompiled .so cut at its image, or with its overlay moved 4 KiB, no longer opens: the
    model itself refuses (which check fires first for the cut one depends on the image's size)."""
    _, so = _member(recompiled)
    image = so[: image_end_of(so)]
    size, _ = _appended(so)
    broken = image if layout == "none" else image + bytes(-len(image) % OVERLAY_ALIGN + 4096) + so[-size:]
    package = _with_so(recompiled, broken, tmp_path / "broken.pt2")
    done = _run(package, model, cpu_runtime.library, tmp_path / "out")
    assert done.returncode == 2 and any(message in done.stderr for message in refusals), done.stderr
    assert not (tmp_path / "out" / "output_0.npy").exists()


def _cut(so: bytes) -> bytes:  # the overlay stripped, as `strip` drops it
    return so[: image_end_of(so)]


def _shifted(so: bytes) -> bytes:  # the weights 4 KiB later: no longer 16 KiB-aligned
    size, _ = _appended(so)
    return so[:-size] + bytes(4096) + so[-size:]


def _bad_magic(so: bytes) -> bytes:  # weights other than the ones it was built with
    return so[:-8] + bytes(8)


@pytest.mark.parametrize("edit, message", [
    (_cut, "bytes after the ELF image cannot hold"),
    (_shifted, f"not a multiple of {OVERLAY_ALIGN}"),
    (_bad_magic, "does not end with the magic number"),
])
def test_overlay_its_blob_disagrees_with_is_refused_in_one_line(model, tmp_path, edit, message):
    """Before anything is compiled, one line and exit 2; no output, no scratch directory left."""
    _, so = _member(model / f"{NAME}.pt2")
    package = _with_so(model / f"{NAME}.pt2", edit(so), tmp_path / "bad.pt2")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    done = run_shimgen("recompile", package, "-o", out_dir / "m.pt2", "-c", DEFAULT_CONFIG, cwd=REPO, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "-DUSE_MMAP_SELF" in lines[0], done.stderr
    assert list(out_dir.iterdir()) == []


def test_prefixed_imports_only(recompiled, tmp_path):
    from shimgen.aoti.prefix_imports import read_dynamic_symbols

    _, so = _member(recompiled)
    (tmp_path / "m.so").write_bytes(so[: image_end_of(so)])
    imports = [s.name for s in read_dynamic_symbols(tmp_path / "m.so") if not s.defined and "aoti_torch_" in s.name]
    assert imports and all(name.startswith(PREFIX) for name in imports)


def test_appended_weights_are_streamed_not_held(model, tmp_path):
    """The model with 256 MiB more of AOTInductor's padding in front of its weights (still a layout
    the model opens) is recompiled in about the memory of its ELF image: LIEF reads the image alone,
    the overlay is streamed. Measured in the recompiling process itself (RUSAGE_SELF: the compilers
    it starts are not counted): 108 MiB; 588 MiB before, when LIEF parsed the whole file, which the
    ceiling below (the padding's own size) fails."""
    _, so = _member(model / f"{NAME}.pt2")
    end = image_end_of(so)
    padding = 256 << 20
    package = _with_so(model / f"{NAME}.pt2", so[:end] + b" " * padding + so[end:], tmp_path / "padded.pt2")
    out = tmp_path / "out.pt2"
    worker = ("import resource, sys; from pathlib import Path; from shimgen.aoti.recompile import recompile; "
              "from shimgen.project.config import load_config; "
              "recompile(Path(sys.argv[1]), Path(sys.argv[2]), load_config(Path(sys.argv[3]))); "
              "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)")
    # Linux keeps a process's peak across fork and exec: started from pytest, which holds the padded
    # .so, the worker read 624 MiB. A fresh parent in between starts it small.
    parent = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)"
    done = subprocess.run([sys.executable, "-c", parent, sys.executable, "-c", worker, str(package), str(out),
                           str(DEFAULT_CONFIG)], cwd=REPO, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr[-3000:]
    peak = int(done.stdout.split()[-1])
    assert peak < padding, f"peak memory {peak >> 20} MiB for {padding >> 20} MiB of appended data"
    _, after = _member(out)
    size, _ = _appended(after)
    assert after.endswith(so[end:]) and len(after) > padding and (len(after) - size) % OVERLAY_ALIGN == 0


@pytest.fixture(scope="module")
def blob_package(model, tmp_path_factory) -> Path:
    """blob_weights, prefixed (prefix-imports carries the blob over unchanged)."""
    out = tmp_path_factory.mktemp("blob") / f"{BLOB}.prefixed.pt2"
    done = run_shimgen("prefix-imports", model / f"{BLOB}.pt2", "-o", out, "-c", DEFAULT_CONFIG, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


BLOB_BYTES = sum(int(np.prod(shape)) for shape in MMAP_MODELS[BLOB][0].values()) * 4


def test_blob_weights_are_beside_the_so_not_in_it(model, blob_package):
    """The premise: the weights are the blob (w and b, float32), and the .so holds no copy of them."""
    with zipfile.ZipFile(model / f"{BLOB}.pt2") as archive:
        blob = archive.read(blob_member(model / f"{BLOB}.pt2"))
    _, so = _member(model / f"{BLOB}.pt2")
    assert len(blob) == BLOB_BYTES and blob[:4096] not in so
    with zipfile.ZipFile(blob_package) as archive:
        assert archive.read(blob_member(blob_package)) == blob


@pytest.mark.parametrize("route", ["prefix-imports", "recompile"])
def test_blob_weights_model_matches_eager(model, blob_package, cpu_runtime, tmp_path, route):
    package = blob_package
    if route == "recompile":
        package = tmp_path / "recompiled.pt2"
        done = run_shimgen("recompile", model / f"{BLOB}.pt2", "-o", package, "-c", DEFAULT_CONFIG, cwd=REPO, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
    done = _run(package, model, cpu_runtime.library, tmp_path / "out", BLOB)
    assert done.returncode == 0, done.stderr
    got, expected = np.load(tmp_path / "out" / "output_0.npy"), np.load(model / f"{BLOB}.out0.npy")
    assert got.shape == expected.shape
    assert np.abs(got - expected).max() <= MMAP_MODELS[BLOB][3]


def test_blob_weights_are_what_the_model_computes_with(model, blob_package, cpu_runtime, tmp_path):
    """The negative control: the same package with the blob's bytes rotated by one float runs, and is
    far from eager: the weights come from the blob, not from anywhere else."""
    with zipfile.ZipFile(blob_package) as archive:
        blob = archive.read(blob_member(blob_package))
    package = with_blob(blob_package, blob[4:] + blob[:4], tmp_path / "rotated.pt2")
    done = _run(package, model, cpu_runtime.library, tmp_path / "out", BLOB)
    assert done.returncode == 0, done.stderr
    got, expected = np.load(tmp_path / "out" / "output_0.npy"), np.load(model / f"{BLOB}.out0.npy")
    assert np.abs(got - expected).max() > 0.1


@pytest.mark.parametrize("blob, message", [
    (None, "the model's weights are not in its .so and the package holds no *_weights.blob"),
    (b"\0" * (BLOB_BYTES - 1), f"the weights blob holds {BLOB_BYTES - 1} bytes; the model's constants need {BLOB_BYTES}"),
])
def test_missing_or_short_blob_is_refused_at_open(model, blob_package, cpu_runtime, tmp_path, blob, message):
    """Before: a missing blob failed on the first run ("self is a null tensor handle") and a short one
    would have been read past its end. Now each is refused in one line when the model opens."""
    package = with_blob(blob_package, blob, tmp_path / "bad.pt2")
    done = _run(package, model, cpu_runtime.library, tmp_path / "out", BLOB)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "output_0.npy").exists()


ENTRIES = b"AOTInductorModelContainerExtractConstantsMapEntries\0"


@pytest.mark.parametrize("blob", ["kept", "missing"])
def test_blob_model_without_map_entries_api(model, blob_package, cpu_runtime, tmp_path, blob):
    """Models compiled by torch 2.11 and older lack ExtractConstantsMapEntries (the H200's torch 2.11 CUDA
    blob models then ran on unloaded weights: an illegal memory access). The same model with that name
    hidden from dlsym (one byte of .dynstr changed) still gets its blob, and a missing blob is still
    refused at open: the loader counts the container's constants through ExtractConstantsMap."""
    _, so = _member(blob_package)
    assert so.count(ENTRIES) >= 1 and b"AOTInductorModelContainerExtractConstantsMap\0" in so
    older = _with_so(blob_package, so.replace(ENTRIES, ENTRIES[:-2] + b"Z\0"), tmp_path / "older.pt2")
    if blob == "missing":
        older = with_blob(older, None, tmp_path / "older-missing.pt2")
    done = _run(older, model, cpu_runtime.library, tmp_path / "out", BLOB)
    if blob == "missing":
        message = "the model's weights are not in its .so and the package holds no *_weights.blob"
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
        return
    assert done.returncode == 0, done.stderr
    got, expected = np.load(tmp_path / "out" / "output_0.npy"), np.load(model / f"{BLOB}.out0.npy")
    assert np.abs(got - expected).max() <= MMAP_MODELS[BLOB][3]
