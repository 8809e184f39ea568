"""Names: the lazily-decoded name set the rules query (no compiler needed)."""

from __future__ import annotations

from shimgen.binary.symbols import Binary, Names
from shimgen.check import check_binaries
from shimgen.check.policy import Policy

# A string table as a linker writes it: "helper" is stored inside "use_helper" (suffix merging),
# "aoti_torch_a" inside "executorch_aoti_torch_a", and one name is UTF-8.
TABLE = b"\0use_helper\0executorch_aoti_torch_a\0aoti_torch_b\0caf\xc3\xa9\0libc.so.6\0"


def offset(name: bytes) -> int:
    return TABLE.index(name + b"\0")


OFFSETS = [offset(n) for n in (b"use_helper", b"helper", b"executorch_aoti_torch_a", b"aoti_torch_a",
                               b"aoti_torch_b", "café".encode())]
EXPECTED = {"use_helper", "helper", "executorch_aoti_torch_a", "aoti_torch_a", "aoti_torch_b", "café"}


def test_table_backed_names_equal_the_plain_set():
    names = Names.from_table(TABLE, OFFSETS)
    assert not names.materialized
    assert names.starting_with("aoti_torch_") == ["aoti_torch_a", "aoti_torch_b"]
    assert names.starting_with("helper") == ["helper"]
    assert names.starting_with("caf") == ["café"]
    assert names.starting_with("libc") == []  # in the table, but not one of these names
    assert names.count() == 6 and bool(names)
    assert not names.materialized
    assert names == EXPECTED and len(names) == 6 and "helper" in names
    assert names.materialized
    assert Names(EXPECTED) == names and hash(Names(EXPECTED)) == hash(names)


def test_empty_names():
    assert not Names() and not Names.from_table(TABLE, []) and Names() == set()


def test_rules_on_a_table_backed_binary_do_not_build_every_name():
    binary = Binary("lib.so", None, "ELF", "shared", Names.from_table(TABLE, OFFSETS), Names())
    policy = Policy("executorch_", patterns=("aoti_torch_*",))
    report = check_binaries([binary], policy)
    assert sorted(f.symbol for f in report.findings) == ["aoti_torch_a", "aoti_torch_b"]
    assert report.files[0].shims == 1 and report.files[0].exports == 6
    assert not binary.exports.materialized


def test_sniff_tells_fat_mach_o_from_java_class_files():
    from shimgen.binary.load import sniff

    assert sniff(b"\xca\xfe\xba\xbe\x00\x00\x00\x02") == "Mach-O"
    assert sniff(b"\xca\xfe\xba\xbe\x00\x00\x00\x3d") is None  # a Java 17 class file
    assert sniff(b"\x7fELF\x02\x01\x01\x00") == "ELF"
    assert sniff(b"!<arch>\n") == "archive" and sniff(b"PK\x03\x04....") == "zip"
    assert sniff(b"#!/bin/sh") is None and sniff(b"") is None
