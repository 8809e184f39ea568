"""shimgen.aoti.overlay on files made here: the appended weights keep their offset modulo 16 KiB
behind a rebuilt image of any size, and a model's layout that disagrees with its constants blob is
refused (the real AOTInductor model: tests/integration/test_recompile_overlay.py)."""

from __future__ import annotations

import struct

import pytest

from shimgen.aoti.overlay import OVERLAY_ALIGN, append_overlay, check_self_mapped
from shimgen.errors import InputError

MAGIC = 0x1234_5678_9ABC_DEF0


def _self_mapped(path, image: int, weights: bytes) -> tuple[bytes, int]:
    """A file laid out as AOTInductor lays out a model .so with appended weights: ``image`` bytes,
    padding to the next 16 KiB, the weights, the magic number. Returns (its constants blob, image)."""
    tail = weights + struct.pack("=Q", MAGIC)
    pad = OVERLAY_ALIGN - image % OVERLAY_ALIGN  # torch pads a whole block when already aligned
    path.write_bytes(b"\x7fELF" + bytes(image - 4) + b" " * pad + tail)
    return struct.pack("=QQ", len(tail), MAGIC), image


@pytest.mark.parametrize("rebuilt", [100, OVERLAY_ALIGN - 1, OVERLAY_ALIGN, 5 * OVERLAY_ALIGN + 7])
def test_overlay_keeps_its_offset_modulo_16k(tmp_path, rebuilt):
    source = tmp_path / "model.so"
    blob, image = _self_mapped(source, 3000, bytes(range(256)) * 100)
    target = tmp_path / "rebuilt.so"
    target.write_bytes(b"R" * rebuilt)
    append_overlay(source, image, target, "model.so")
    data, original = target.read_bytes(), source.read_bytes()
    assert data.startswith(b"R" * rebuilt) and data.endswith(original[image:])
    assert (len(data) - len(original) + image) % OVERLAY_ALIGN == image % OVERLAY_ALIGN
    check_self_mapped(blob, target, rebuilt, "rebuilt.so")  # the model would find its weights


def test_nothing_after_the_image_appends_nothing(tmp_path):
    source, target = tmp_path / "model.so", tmp_path / "rebuilt.so"
    source.write_bytes(b"S" * 5000)
    target.write_bytes(b"R" * 123)
    append_overlay(source, 5000, target, "model.so")
    assert target.read_bytes() == b"R" * 123


def test_layouts_the_blob_disagrees_with_are_refused(tmp_path):
    path = tmp_path / "model.so"
    blob, image = _self_mapped(path, 3000, bytes(4096))
    check_self_mapped(blob, path, image, "m")
    whole = path.read_bytes()
    cases = [
        (blob[:8], whole, "holds 8 bytes, not AOTInductor's 16"),
        (blob, whole[:image], "its 0 bytes after the ELF image cannot hold the 4104 bytes"),
        (blob, whole[:-4104] + bytes(64) + whole[-4104:], f"not a multiple of {OVERLAY_ALIGN}"),
        (blob, whole[:-8] + bytes(8), "does not end with the magic number"),
        (struct.pack("=QQ", 0, MAGIC), whole, "cannot hold the 0 bytes"),
    ]
    for constants, data, message in cases:
        path.write_bytes(data)
        with pytest.raises(InputError, match=message) as raised:
            check_self_mapped(constants, path, image, "m")
        assert str(raised.value).startswith("m: the model maps its weights from the end of its .so (-DUSE_MMAP_SELF)")
        assert "\n" not in str(raised.value)
