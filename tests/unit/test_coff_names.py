"""COFF object recognition and i386 name spelling: pure functions of bytes and names."""

from __future__ import annotations

import struct

from shimgen.binary.coff import I386, c_name
from shimgen.binary.load import sniff
from shimgen.binary.magic import BIGOBJ_CLASS_ID
from shimgen.binary.magic import coff_kind as kind_of


def test_i386_name_spelling() -> None:
    """The decorations come off exactly: what is left is what C wrote, or the name unchanged."""
    cases = {"_f": "f", "_f@8": "f", "@f@12": "f", "f@@16": "f", "___reserved": "__reserved",
             "?f@@YAHXZ": "?f@@YAHXZ", "__imp__f": "__imp__f", "@feat.00": "@feat.00", "_": "_"}
    assert {raw: c_name(raw, I386) for raw in cases} == cases
    assert c_name("_f", 0x8664) == "_f"  # x64: no decoration, a leading '_' is the C name's own


def test_coff_headers_are_told_from_other_bytes() -> None:
    regular = struct.pack("<HHIIIHH", 0x8664, 3, 0, 200, 10, 0, 0)
    assert kind_of(regular) == "object" and sniff(regular) == "COFF"
    assert kind_of(struct.pack("<HHIIIHH", 0x8664, 3, 0, 200, 10, 240, 0)) is None  # an image's optional header
    assert kind_of(struct.pack("<HHIIIHH", 0x1234, 3, 0, 200, 10, 0, 0)) is None  # no known machine
    assert kind_of(struct.pack("<HHIIIHH", 0x8664, 0, 0, 200, 10, 0, 0)) is None  # no section
    bigobj = struct.pack("<HHHHI", 0, 0xFFFF, 2, 0x8664, 0) + BIGOBJ_CLASS_ID + bytes(36)
    assert kind_of(bigobj) == "bigobj" and sniff(bigobj) == "COFF"
    short_import = struct.pack("<HHHHI", 0, 0xFFFF, 0, 0x8664, 0) + bytes(12)
    assert kind_of(short_import) == "import" and sniff(short_import) == "coff-import"
    assert kind_of(b"\0\0\xff\xff\x02\x00" + bytes(30)) is None  # version 2 without the bigobj class id
    assert kind_of(b"d\x86") is None  # too short to tell
